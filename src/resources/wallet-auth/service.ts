import { createHash } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { entropyToMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english.js';
import { ApiError, ErrorCode, invalidInput, notFound } from '../../core/errors.js';
import type { SandboxContext } from '../../store/context.js';
import { signBundle } from '../../crypto/bundle.js';
import { HpkeError, hpkeOpen, hpkeSeal, sealSessionSigningKey } from '../../crypto/hpke.js';
import { BoundedCache } from '../../core/bounded-cache.js';
import { fromHex, generateKeyPair, KeyFormatError, parsePublicKey, publicKeyOf, secretKeyFrom, toHex } from '../../crypto/keys.js';
import { checkOidcClaims, checkOidcVerify, decodeOidcToken, OidcError, type OidcCheckOptions, RETIRED_SANDBOX_OIDC_TOKEN } from '../../crypto/oidc.js';
import { verifyAssertion, verifyRegistration, WebAuthnError } from '../../crypto/webauthn.js';
import { OIDC_IAT_SKEW_SECONDS, OIDC_MAX_AGE_SECONDS, supportedOidcIssuers } from '../../rules/oidc-issuers.js';
import { walletLiteralRules, walletRules } from '../../rules/wallet-rules.js';
import { recordRule } from '../../store/coverage.js';
import { findCardForPlatform } from '../cards/index.js';
import { getCustomer } from '../customers/index.js';
import { internalAccountRepo, presentInternalAccount, type InternalAccountRow } from '../internal-accounts/index.js';
import type { Platform } from '../../tenancy/index.js';
import type { CredentialRow, DelegatedKeyRow, EnclaveRow, SessionRow } from './repo.js';
import type { CredentialCreateRequest, CredentialVerifyRequest } from './schemas.js';
import type { SignedHeaders } from '../../server/signed-headers.js';
import { checkStamp, issueSignedRequest, pendingRequest, repoOf, signedStep, unauthorized, type SignedStep } from './signed-retry.js';

/** A response of an operation: status and JSON body (undefined for 204). */
export interface Outcome {
  status: number;
  body?: unknown;
}

// Wallet-auth 404s use REFERENCE_NOT_FOUND: the contract's Error404 enum has no credential, session or delegated-key code.
const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const b64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

// ---------------------------------------------------------------- enclave and wallets

/** The platform's sandbox enclave (organization id and OTP target key), created on first use. */
export function enclaveOf(ctx: SandboxContext, platform: Platform): EnclaveRow {
  const repo = repoOf(ctx);
  let enclave = repo.enclave(platform.id);
  if (!enclave) {
    const organizationId = `org_${createHash('sha256').update(platform.id).digest('hex').slice(0, 24)}`;
    enclave = {
      platform_id: platform.id,
      organization_id: organizationId,
      // Retired columns: every platform's bundles are signed by the published sandbox enclave key.
      signer_secret: '',
      target_secret: toHex(generateKeyPair(ctx.random).secretKey),
      otp_bundle: '',
      created_at: ctx.clock.iso(),
    };
    ctx.tx(() => repo.insertEnclave(enclave!));
  }
  return enclave;
}

/**
 * What a client pins to verify the platform's enclave bundles (`GET /_sandbox/enclave`): the
 * sandbox enclave's public key, which is every bundle's `enclaveQuorumPublic`, and the
 * platform's `organizationId`, which every bundle's signed data names.
 */
export function enclaveInfo(ctx: SandboxContext, platform: Platform): { enclaveQuorumPublic: string; organizationId: string } {
  return { enclaveQuorumPublic: walletRules.enclaveQuorumPublic, organizationId: enclaveOf(ctx, platform).organization_id };
}

/** The sandbox enclave signing key (walletRules.enclaveSigningSecret, published), as a scalar. */
const enclaveSecret = fromHex(walletRules.enclaveSigningSecret);

/** Signs an enclave bundle's `data` with the sandbox enclave key (`enclaveQuorumPublic` is its public key). */
const signEnclaveBundle = (data: Record<string, unknown>): string => signBundle(data, enclaveSecret);

const otpBundles = new BoundedCache<string>(256);
/**
 * The signed `otpEncryptionTargetBundle` of a platform (data: `organizationId`, `targetPublic`).
 * Signing is deterministic (RFC 6979), so the bundle is the same on every call; cached, as
 * signing in JS costs more than a lookup.
 */
const otpTargetBundle = (enclave: EnclaveRow): string =>
  otpBundles.get(`${enclave.organization_id}:${enclave.target_secret}`, () =>
    signEnclaveBundle({ organizationId: enclave.organization_id, targetPublic: toHex(publicKeyOf(fromHex(enclave.target_secret), false)) }),
  );

/** The embedded-wallet account `accountId` of the platform, bootstrapped; 404 when absent, 400 when not a wallet. */
export function walletAccount(ctx: SandboxContext, platform: Platform, accountId: string): InternalAccountRow {
  const account = internalAccountRepo(ctx).byId(platform.id, accountId);
  if (!account) throw notFound('REFERENCE_NOT_FOUND', `Internal account ${accountId} not found.`);
  if (account.type !== 'EMBEDDED_WALLET') throw invalidInput(`Internal account ${accountId} is not an EMBEDDED_WALLET account.`, [{ field: 'accountId', message: 'Name an embedded wallet (USDB) account.' }]);
  bootstrap(ctx, account);
  return account;
}

/**
 * The wallet's first state: the settings row and the `EMAIL_OTP` credential tied to the
 * customer's email (openapi: "Embedded Wallet internal accounts are initialized with an
 * EMAIL_OTP credential"). Made on first use, stamped with the account's creation time, so
 * customer creation stays untouched.
 */
function bootstrap(ctx: SandboxContext, account: InternalAccountRow): void {
  const repo = repoOf(ctx);
  if (repo.settings(account.id)) return;
  ctx.tx(() => {
    if (repo.settings(account.id)) return;
    repo.insertSettings({ account_id: account.id, platform_id: account.platform_id, private_enabled: 0, seed: toHex(generateKeyPair(ctx.random).secretKey), bootstrapped: 1 });
    const email = account.customer_id ? (getCustomer(ctx, account.platform_id, account.customer_id).profile.email as string | undefined) : undefined;
    if (email) repo.insertCredential(newCredential(ctx, account, 'EMAIL_OTP', email, {}, account.created_at));
  });
}

function newCredential(ctx: SandboxContext, account: InternalAccountRow, type: string, nickname: string, extra: Partial<CredentialRow>, at = ctx.clock.iso()): CredentialRow {
  return {
    id: ctx.ids.next('AuthMethod'),
    platform_id: account.platform_id,
    account_id: account.id,
    type,
    nickname,
    webauthn_id: null,
    webauthn_public_key: null,
    webauthn_counter: null,
    webauthn_origin: null,
    webauthn_rp_id: null,
    registration_challenge: null,
    oidc_iss: null,
    oidc_aud: null,
    oidc_sub: null,
    otp_expires_at: null,
    created_at: at,
    updated_at: at,
    ...extra,
  };
}

function credentialOf(ctx: SandboxContext, platform: Platform, id: string): CredentialRow {
  const credential = repoOf(ctx).credential(platform.id, id);
  if (!credential) throw notFound('REFERENCE_NOT_FOUND', `Authentication credential ${id} not found.`);
  return credential;
}

/** The contract's `AuthMethod`. */
export function presentCredential(row: CredentialRow): Record<string, unknown> {
  return {
    id: row.id,
    accountId: row.account_id,
    type: row.type,
    ...(row.webauthn_id ? { credentialId: row.webauthn_id } : {}),
    nickname: row.nickname,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

// ---------------------------------------------------------------- credentials

/** `GET /auth/credentials`: every credential of the wallet; empty for an account not visible or not a wallet. */
export function listCredentials(ctx: SandboxContext, platform: Platform, accountId: string): { data: Record<string, unknown>[] } {
  const account = internalAccountRepo(ctx).byId(platform.id, accountId);
  if (!account || account.type !== 'EMBEDDED_WALLET') return { data: [] };
  bootstrap(ctx, account);
  return { data: repoOf(ctx).credentialsOf(accountId).map(presentCredential) };
}

const otpSeconds = (platform: Platform) => Number(platform.config.embeddedWalletConfig?.expirationSeconds ?? walletRules.defaultOtpSeconds);

/** Issues an OTP (the sandbox "sends" `000000`) and returns the credential with the target bundle. */
function issueOtp(ctx: SandboxContext, platform: Platform, credential: CredentialRow, enclave: EnclaveRow): Record<string, unknown> {
  const now = ctx.clock.iso();
  repoOf(ctx).setOtp(credential.id, ctx.clock.now() + otpSeconds(platform) * 1000, now);
  return { ...presentCredential({ ...credential, updated_at: now }), otpEncryptionTargetBundle: otpTargetBundle(enclave) };
}

/** `POST /auth/credentials/{id}/challenge`. */
export function challengeCredential(ctx: SandboxContext, platform: Platform, id: string, body: { clientPublicKey?: string | undefined }): Record<string, unknown> {
  const credential = credentialOf(ctx, platform, id);
  const enclave = enclaveOf(ctx, platform);
  return ctx.tx(() => {
    if (credential.type === 'EMAIL_OTP' || credential.type === 'SMS_OTP') return issueOtp(ctx, platform, credential, enclave);
    if (credential.type === 'OAUTH') throw invalidInput('OAUTH credentials have no challenge step: call POST /auth/credentials/{id}/verify with a fresh oidcToken.');
    if (!body.clientPublicKey) {
      throw invalidInput('A PASSKEY challenge needs clientPublicKey.', [{ field: 'clientPublicKey', constraint: { required: true }, message: 'Send the compressed (or, legacy, uncompressed) P-256 public key.' }]);
    }
    const key = clientKey(body.clientPublicKey);
    const session = { accountId: credential.account_id, credentialId: credential.id, clientPublicKey: key.hex, type: 'PASSKEY' };
    const { request, challenge } = issueSignedRequest(ctx, platform, {
      kind: 'passkeyLogin',
      accountId: credential.account_id,
      targetId: credential.id,
      binding: {},
      payload: JSON.stringify(session),
      organizationId: enclave.organization_id,
    });
    return { ...presentCredential(credential), challenge: sha256Hex(request.payload), requestId: challenge.requestId, expiresAt: challenge.expiresAt };
  });
}

/** A client key of a verify/refresh request, checked to be a P-256 point. */
function clientKey(hex: string, field = 'clientPublicKey'): { hex: string; bytes: Uint8Array; compressed: Uint8Array; legacy: boolean } {
  try {
    const parsed = parsePublicKey(hex, field);
    return { hex, bytes: parsed.bytes, compressed: parsed.compressed, legacy: parsed.form === 'uncompressed' };
  } catch (error) {
    const reason = (error as KeyFormatError).reason;
    throw new ApiError(400, ErrorCode.INVALID_INPUT, reason, { reason, errors: [{ field, message: reason }] });
  }
}

/** Key material of a session about to be issued (async work done before the transaction). */
interface PreparedSession {
  publicKey: string;
  encryptedSessionSigningKey?: string;
}

/**
 * Client-held flow (compressed key): the key is the session key. Legacy flow (uncompressed): a
 * fresh session key sealed to it (API.md "Embedded wallet signing").
 */
async function prepareSession(ctx: SandboxContext, key: { hex: string; bytes: Uint8Array; legacy: boolean }): Promise<PreparedSession> {
  if (!key.legacy) return { publicKey: key.hex.toLowerCase() };
  const session = generateKeyPair(ctx.random);
  return { publicKey: toHex(session.publicKey), encryptedSessionSigningKey: await sealSessionSigningKey(key.bytes, session.secretKey, secretKeyFrom(ctx.random)) };
}

function insertSession(ctx: SandboxContext, credential: CredentialRow, prepared: PreparedSession): Record<string, unknown> {
  const now = ctx.clock.now();
  const row: SessionRow = {
    id: ctx.ids.next('Session'),
    platform_id: credential.platform_id,
    account_id: credential.account_id,
    credential_id: credential.id,
    public_key: prepared.publicKey,
    created_at: new Date(now).toISOString(),
    updated_at: new Date(now).toISOString(),
    expires_at: now + walletRules.sessionSeconds * 1000,
    revoked_at: null,
  };
  repoOf(ctx).insertSession(row);
  return presentSession(row, credential, prepared.encryptedSessionSigningKey);
}

/** The contract's `AuthSession`. */
export function presentSession(row: SessionRow, credential: CredentialRow | undefined, encryptedSessionSigningKey?: string): Record<string, unknown> {
  return {
    id: row.id,
    accountId: row.account_id,
    type: credential?.type ?? 'EMAIL_OTP',
    ...(credential?.webauthn_id ? { credentialId: credential.webauthn_id } : {}),
    nickname: credential?.nickname ?? '',
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    expiresAt: new Date(row.expires_at).toISOString(),
    ...(encryptedSessionSigningKey ? { encryptedSessionSigningKey } : {}),
  };
}

const oidcOptions = (ctx: SandboxContext): OidcCheckOptions => ({
  // The identity provider minted iat/exp on its own clock: real time or the sandbox clock may hold.
  nowMs: ctx.clock.clientTimes(),
  supportedIssuers: new Set(Object.keys(supportedOidcIssuers)),
  maxAgeSeconds: OIDC_MAX_AGE_SECONDS,
  skewSeconds: OIDC_IAT_SKEW_SECONDS,
});

function oidcFailure(error: unknown): never {
  if (error instanceof OidcError) {
    if (error.kind === 'MALFORMED') throw new ApiError(400, ErrorCode.INVALID_INPUT, error.reason, { reason: error.reason, errors: [{ field: 'oidcToken', message: error.reason }] });
    throw unauthorized('UNAUTHORIZED', error.reason);
  }
  throw error;
}

/** The decrypted OTP attempt of an `encryptedOtpBundle`, or a 4xx naming the failed check. */
async function openOtpBundle(enclave: EnclaveRow, text: string): Promise<{ otpCode: string; publicKey: string }> {
  const bad = (reason: string) => new ApiError(400, ErrorCode.INVALID_INPUT, reason, { reason, errors: [{ field: 'encryptedOtpBundle', message: reason }] });
  let wire: { encappedPublic?: unknown; ciphertext?: unknown };
  try {
    wire = JSON.parse(text) as typeof wire;
  } catch {
    throw bad('encryptedOtpBundle is not the {encappedPublic, ciphertext} JSON');
  }
  if (typeof wire?.encappedPublic !== 'string' || typeof wire.ciphertext !== 'string') throw bad('encryptedOtpBundle needs string encappedPublic and ciphertext');
  let plaintext: Uint8Array;
  try {
    plaintext = await hpkeOpen(fromHex(enclave.target_secret), { encappedPublic: fromHex(wire.encappedPublic, 'encappedPublic'), ciphertext: fromHex(wire.ciphertext, 'ciphertext') });
  } catch (error) {
    if (error instanceof HpkeError || error instanceof KeyFormatError) throw bad(error.reason);
    throw error;
  }
  let attempt: { otp_code?: unknown; public_key?: unknown };
  try {
    attempt = JSON.parse(new TextDecoder().decode(plaintext)) as typeof attempt;
  } catch {
    throw bad('The decrypted OTP attempt is not JSON {otp_code, public_key}');
  }
  if (typeof attempt?.otp_code !== 'string' || typeof attempt.public_key !== 'string') throw bad('The decrypted OTP attempt needs string otp_code and public_key');
  return { otpCode: attempt.otp_code, publicKey: attempt.public_key };
}

/** A compact ES256 JWT signed by the sandbox enclave key: the `verificationToken` bound to the client's key. */
function verificationToken(claims: Record<string, unknown>): string {
  const signingInput = `${b64url(JSON.stringify({ alg: 'ES256', kid: 'sandbox-enclave', typ: 'JWT' }))}.${b64url(JSON.stringify(claims))}`;
  // ES256 is r || s (IEEE P1363, 'compact'); RFC 6979 signing, so the token is the same for the same claims.
  const signature = p256.sign(new TextEncoder().encode(signingInput), enclaveSecret, { format: 'compact' });
  return `${signingInput}.${Buffer.from(signature).toString('base64url')}`;
}

/** `POST /auth/credentials/{id}/verify`. */
export async function verifyCredential(ctx: SandboxContext, platform: Platform, id: string, body: CredentialVerifyRequest, headers: SignedHeaders): Promise<Outcome> {
  const credential = credentialOf(ctx, platform, id);
  if (body.type !== credential.type) throw invalidInput(`Credential ${id} is ${credential.type}, not ${body.type}.`, [{ field: 'type', message: `Send type ${credential.type}.` }]);

  if (body.type === 'EMAIL_OTP' || body.type === 'SMS_OTP') {
    // The payload is the verificationToken, so no organization id is shown; the retry needs no enclave.
    const op = { kind: 'otpLogin', accountId: credential.account_id, targetId: credential.id, binding: body };
    if (headers.signature !== undefined || headers.requestId !== undefined) {
      return ctx.tx(() => {
        const step = signedStep(ctx, platform, op, headers) as Extract<SignedStep, { leg: 'authorized' }>;
        return { status: 200, body: insertSession(ctx, credential, { publicKey: step.request.signer! }) };
      });
    }
    if (credential.otp_expires_at === null || ctx.clock.now() >= credential.otp_expires_at) {
      throw unauthorized('UNAUTHORIZED', 'No OTP is outstanding for this credential (or it expired): call POST /auth/credentials/{id}/challenge');
    }
    const enclave = enclaveOf(ctx, platform);
    const attempt = await openOtpBundle(enclave, body.encryptedOtpBundle);
    // sandbox-rules.md: the OTP is fixed at 000000; any other decrypted code is 401 "Invalid OTP code".
    if (attempt.otpCode !== walletRules.otpCode) {
      recordRule(ctx, platform.id, walletLiteralRules.id('otp.other'));
      throw unauthorized('UNAUTHORIZED', 'Invalid OTP code');
    }
    recordRule(ctx, platform.id, walletLiteralRules.id('otp.000000'));
    const tek = clientKey(attempt.publicKey, 'encryptedOtpBundle.public_key');
    const signer = toHex(tek.compressed);
    return ctx.tx(() => {
      const now = Math.floor(ctx.clock.now() / 1000);
      // The claims Turnkey's verifyOtpVerificationToken (@turnkey/crypto) requires, as strings:
      // the OTP's kind and contact, the enclave's organization, the bound key, and `exp` as a
      // millisecond epoch. `sub` and `iat` say the same in the usual JWT way.
      const exp = (now + walletRules.pendingRequestSeconds) * 1000;
      const token = verificationToken({
        id: ctx.ids.uuid(),
        verification_type: body.type === 'EMAIL_OTP' ? 'OTP_TYPE_EMAIL' : 'OTP_TYPE_SMS',
        contact: credential.nickname,
        organization_id: enclave.organization_id,
        public_key: signer,
        exp: String(exp),
        sub: credential.id,
        iat: now,
      });
      repoOf(ctx).setOtp(credential.id, null, ctx.clock.iso());
      const { challenge } = issueSignedRequest(ctx, platform, { ...op, payload: token, signer });
      return { status: 202, body: { type: credential.type, ...challenge } };
    });
  }

  if (body.type === 'OAUTH') {
    let claims;
    if (body.oidcToken === RETIRED_SANDBOX_OIDC_TOKEN) recordRule(ctx, platform.id, walletLiteralRules.id('oidc-token.sandbox-valid-oidc-token'));
    try {
      claims = checkOidcVerify(decodeOidcToken(body.oidcToken), { iss: credential.oidc_iss!, aud: credential.oidc_aud!, sub: credential.oidc_sub! }, body.clientPublicKey, oidcOptions(ctx));
    } catch (error) {
      oidcFailure(error);
    }
    void claims;
    const prepared = await prepareSession(ctx, clientKey(body.clientPublicKey));
    return ctx.tx(() => ({ status: 200, body: insertSession(ctx, credential, prepared) }));
  }

  // PASSKEY: the assertion answers the challenge of POST /challenge, echoed by Request-Id.
  if (!headers.requestId) throw unauthorized('REQUEST_ID_MISSING', 'PASSKEY verification needs the Request-Id of the challenge');
  const request = pendingRequest(ctx, platform, headers.requestId, 'passkeyLogin', credential.id);
  if (body.assertion.credentialId !== credential.webauthn_id) throw unauthorized('UNAUTHORIZED', 'Assertion credentialId is not the registered passkey of this credential');
  let newCounter = credential.webauthn_counter ?? 0;
  // sandbox-rules.md: the deprecated assertion signature skips the WebAuthn checks.
  if (body.assertion.signature === walletRules.legacyPasskeySignature) recordRule(ctx, platform.id, walletLiteralRules.id('passkey-signature.sandbox-valid-passkey-signature'));
  if (body.assertion.signature !== walletRules.legacyPasskeySignature) {
    try {
      ({ newCounter } = await verifyAssertion({
        response: {
          id: body.assertion.credentialId,
          rawId: body.assertion.credentialId,
          type: 'public-key',
          clientExtensionResults: {},
          response: {
            clientDataJSON: body.assertion.clientDataJson,
            authenticatorData: body.assertion.authenticatorData,
            signature: body.assertion.signature,
            ...(body.assertion.userHandle ? { userHandle: body.assertion.userHandle } : {}),
          },
        },
        expectedChallenge: b64url(sha256Hex(request.payload)),
        expectedOrigin: credential.webauthn_origin!,
        expectedRpId: credential.webauthn_rp_id!,
        credential: { credentialId: credential.webauthn_id!, publicKey: credential.webauthn_public_key!, counter: credential.webauthn_counter ?? 0 },
      }));
    } catch (error) {
      if (error instanceof WebAuthnError) throw unauthorized('UNAUTHORIZED', `Passkey assertion rejected: ${error.reason}`);
      throw error;
    }
  }
  const session = JSON.parse(request.payload) as { clientPublicKey: string };
  const prepared = await prepareSession(ctx, clientKey(session.clientPublicKey));
  return ctx.tx(() => {
    const fresh = pendingRequest(ctx, platform, request.id, 'passkeyLogin', credential.id);
    repoOf(ctx).consumeRequest(fresh.id, ctx.clock.iso());
    repoOf(ctx).setCounter(credential.id, newCounter, ctx.clock.iso());
    return { status: 200, body: insertSession(ctx, { ...credential }, prepared) };
  });
}

/** Checks a registration request and returns the credential fields it will create. */
async function registrationOf(ctx: SandboxContext, platform: Platform, account: InternalAccountRow, body: CredentialCreateRequest): Promise<{ type: string; nickname: string; extra: Partial<CredentialRow>; parameters: Record<string, unknown>; activityType: string }> {
  const existing = repoOf(ctx).credentialsOf(account.id);
  const customer = account.customer_id ? getCustomer(ctx, platform.id, account.customer_id) : undefined;
  switch (body.type) {
    case 'EMAIL_OTP': {
      if (existing.some((c) => c.type === 'EMAIL_OTP')) throw new ApiError(400, 'EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS', 'This account already has an EMAIL_OTP credential.');
      const email = customer?.profile.email as string | undefined;
      if (!email) throw invalidInput('The customer has no email; set it with PATCH /customers/{id} first.');
      return { type: 'EMAIL_OTP', nickname: email, extra: {}, activityType: 'ACTIVITY_TYPE_UPDATE_USER_EMAIL', parameters: { userEmail: email, userId: account.customer_id } };
    }
    case 'SMS_OTP': {
      if (existing.some((c) => c.type === 'SMS_OTP')) throw new ApiError(400, 'SMS_OTP_CREDENTIAL_ALREADY_EXISTS', 'This account already has an SMS_OTP credential.');
      const phone = customer?.profile.phoneNumber as string | undefined;
      if (!phone) throw invalidInput('The customer has no phoneNumber; set it with PATCH /customers/{id} first.');
      return { type: 'SMS_OTP', nickname: phone, extra: {}, activityType: 'ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER', parameters: { userId: account.customer_id, userPhoneNumber: phone } };
    }
    case 'OAUTH': {
      let identity;
      if (body.oidcToken === RETIRED_SANDBOX_OIDC_TOKEN) recordRule(ctx, platform.id, walletLiteralRules.id('oidc-token.sandbox-valid-oidc-token'));
      try {
        const claims = decodeOidcToken(body.oidcToken);
        identity = checkOidcClaims(claims, oidcOptions(ctx));
        const nickname = typeof claims.email === 'string' && claims.email ? claims.email : identity.sub;
        return {
          type: 'OAUTH',
          nickname,
          extra: { oidc_iss: identity.iss, oidc_aud: identity.aud, oidc_sub: identity.sub },
          activityType: 'ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS',
          parameters: { oauthProviders: [{ oidcToken: body.oidcToken, providerName: supportedOidcIssuers[identity.iss]!.providerName }], userId: account.customer_id },
        };
      } catch (error) {
        oidcFailure(error);
      }
    }
    // falls through never
    case 'PASSKEY': {
      if (existing.some((c) => c.webauthn_id === body.attestation.credentialId)) throw new ApiError(400, 'PASSKEY_CREDENTIAL_ALREADY_EXISTS', 'This passkey is already registered on the account.');
      if (repoOf(ctx).registrationChallengeUsed(platform.id, body.challenge)) throw unauthorized('UNAUTHORIZED', 'The registration challenge was already used; challenges are single use');
      let origin: string;
      try {
        origin = (JSON.parse(Buffer.from(body.attestation.clientDataJson, 'base64url').toString('utf8')) as { origin: string }).origin;
        new URL(origin);
      } catch {
        throw invalidInput('attestation.clientDataJson is not base64url JSON with an origin.', [{ field: 'attestation.clientDataJson', message: 'Send the browser clientDataJSON, base64url-encoded.' }]);
      }
      const rpId = new URL(origin).hostname;
      let verified;
      try {
        verified = await verifyRegistration({
          response: {
            id: body.attestation.credentialId,
            rawId: body.attestation.credentialId,
            type: 'public-key',
            clientExtensionResults: {},
            response: { clientDataJSON: body.attestation.clientDataJson, attestationObject: body.attestation.attestationObject, ...(body.attestation.transports ? { transports: body.attestation.transports } : {}) },
          },
          expectedChallenge: body.challenge,
          expectedOrigin: origin,
          expectedRpId: rpId,
        });
      } catch (error) {
        if (error instanceof WebAuthnError) throw unauthorized('UNAUTHORIZED', `Passkey attestation rejected: ${error.reason}`);
        throw error;
      }
      return {
        type: 'PASSKEY',
        nickname: body.nickname,
        extra: { webauthn_id: verified.credentialId, webauthn_public_key: verified.publicKey, webauthn_counter: verified.counter, webauthn_origin: origin, webauthn_rp_id: rpId, registration_challenge: body.challenge },
        activityType: 'ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2',
        parameters: { authenticators: [{ attestation: body.attestation, authenticatorName: body.nickname, challenge: body.challenge }], userId: account.customer_id },
      };
    }
  }
}

/** `POST /auth/credentials`: an additional credential, by signed retry (202, then 201). */
export async function createCredential(ctx: SandboxContext, platform: Platform, body: CredentialCreateRequest, headers: SignedHeaders): Promise<Outcome> {
  const account = walletAccount(ctx, platform, body.accountId);
  const enclave = enclaveOf(ctx, platform);
  const op = { kind: 'createCredential', accountId: account.id, targetId: account.id, binding: body, organizationId: enclave.organization_id };
  if (headers.signature === undefined && headers.requestId === undefined) {
    const registration = await registrationOf(ctx, platform, account, body);
    return ctx.tx(() => {
      const { challenge } = issueSignedRequest(ctx, platform, { ...op, activityType: registration.activityType, parameters: registration.parameters, state: registration });
      return { status: 202, body: { type: body.type, ...challenge } };
    });
  }
  return ctx.tx(() => {
    const step = signedStep(ctx, platform, op, headers) as Extract<SignedStep, { leg: 'authorized' }>;
    const registration = JSON.parse(step.request.state!) as Awaited<ReturnType<typeof registrationOf>>;
    const existing = repoOf(ctx).credentialsOf(account.id);
    if (registration.type !== 'PASSKEY' && existing.some((c) => c.type === registration.type)) {
      throw new ApiError(400, `${registration.type}_CREDENTIAL_ALREADY_EXISTS`, `This account already has an ${registration.type} credential.`);
    }
    const row = newCredential(ctx, account, registration.type, registration.nickname, registration.extra);
    repoOf(ctx).insertCredential(row);
    // openapi: for OTP credentials the one-time password is triggered on the signed retry.
    const out = row.type === 'EMAIL_OTP' || row.type === 'SMS_OTP' ? issueOtp(ctx, platform, row, enclave) : presentCredential(row);
    return { status: 201, body: out };
  });
}

/** `DELETE /auth/credentials/{id}`: signed by a session of another credential; the account keeps at least one. */
export function revokeCredential(ctx: SandboxContext, platform: Platform, id: string, headers: SignedHeaders): Outcome {
  const credential = credentialOf(ctx, platform, id);
  const enclave = enclaveOf(ctx, platform);
  return ctx.tx(() => {
    if (repoOf(ctx).credentialsOf(credential.account_id).length < 2) throw invalidInput('The account has a single credential, which cannot be revoked.');
    const step = signedStep(
      ctx,
      platform,
      {
        kind: 'revokeCredential',
        accountId: credential.account_id,
        targetId: credential.id,
        binding: {},
        excludeCredentialId: credential.id,
        activityType: 'ACTIVITY_TYPE_DELETE_AUTHENTICATION_METHOD',
        parameters: { authMethodId: credential.id, type: credential.type },
        organizationId: enclave.organization_id,
      },
      headers,
    );
    if (step.leg === 'challenge') return { status: 202, body: { type: credential.type, ...step.challenge } };
    repoOf(ctx).deleteCredential(credential.id);
    repoOf(ctx).revokeSessionsOf(credential.id, ctx.clock.iso());
    return { status: 204 };
  });
}

// ---------------------------------------------------------------- sessions

/** `GET /auth/sessions`: active sessions of the wallet (never with key material). */
export function listSessions(ctx: SandboxContext, platform: Platform, accountId: string): { data: Record<string, unknown>[] } {
  const account = internalAccountRepo(ctx).byId(platform.id, accountId);
  if (!account || account.type !== 'EMBEDDED_WALLET') return { data: [] };
  const repo = repoOf(ctx);
  return { data: repo.activeSessions(accountId, ctx.clock.now()).map((s) => presentSession(s, repo.credential(platform.id, s.credential_id))) };
}

function activeSession(ctx: SandboxContext, platform: Platform, id: string): SessionRow | undefined {
  const session = repoOf(ctx).session(platform.id, id);
  return session && session.revoked_at === null && session.expires_at > ctx.clock.now() ? session : undefined;
}

/** `DELETE /auth/sessions/{id}`: 404 unless active; signed by any active session of the wallet. */
export function revokeSession(ctx: SandboxContext, platform: Platform, id: string, headers: SignedHeaders): Outcome {
  const enclave = enclaveOf(ctx, platform);
  return ctx.tx(() => {
    const session = activeSession(ctx, platform, id);
    if (!session) throw notFound('REFERENCE_NOT_FOUND', `Session ${id} is not active (never issued, revoked or expired).`);
    const credential = repoOf(ctx).credential(platform.id, session.credential_id);
    const step = signedStep(
      ctx,
      platform,
      { kind: 'revokeSession', accountId: session.account_id, targetId: id, binding: {}, activityType: 'ACTIVITY_TYPE_DELETE_SESSION', parameters: { sessionId: id }, organizationId: enclave.organization_id },
      headers,
    );
    if (step.leg === 'challenge') return { status: 202, body: { type: credential?.type ?? 'EMAIL_OTP', ...step.challenge } };
    repoOf(ctx).revokeSession(id, ctx.clock.iso());
    return { status: 204 };
  });
}

/** `POST /auth/sessions/{id}/refresh`: signed by the session itself; a new 15-minute session. */
export async function refreshSession(ctx: SandboxContext, platform: Platform, id: string, body: { clientPublicKey: string }, headers: SignedHeaders): Promise<Outcome> {
  const enclave = enclaveOf(ctx, platform);
  const known = repoOf(ctx).session(platform.id, id);
  if (!known) throw notFound('REFERENCE_NOT_FOUND', `Session ${id} not found.`);
  const key = clientKey(body.clientPublicKey);
  const signing = headers.signature !== undefined || headers.requestId !== undefined;
  const prepared = signing ? await prepareSession(ctx, key) : undefined;
  return ctx.tx(() => {
    const session = activeSession(ctx, platform, id);
    if (!session) throw unauthorized('UNAUTHORIZED', `Session ${id} is no longer active; verify the credential again`);
    const step = signedStep(
      ctx,
      platform,
      {
        kind: 'refreshSession',
        accountId: session.account_id,
        targetId: id,
        binding: { clientPublicKey: body.clientPublicKey },
        signer: session.public_key,
        activityType: 'ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2',
        parameters: { targetPublicKey: body.clientPublicKey },
        organizationId: enclave.organization_id,
      },
      headers,
    );
    if (step.leg === 'challenge') return { status: 202, body: step.challenge };
    const credential = repoOf(ctx).credential(platform.id, session.credential_id)!;
    return { status: 201, body: insertSession(ctx, credential, prepared!) };
  });
}

// ---------------------------------------------------------------- internal accounts

/** The wallet with its `privateEnabled`. */
function presentWallet(ctx: SandboxContext, account: InternalAccountRow): Record<string, unknown> {
  const settings = repoOf(ctx).settings(account.id);
  const { createdAt, updatedAt, ...rest } = presentInternalAccount(ctx, account);
  return { ...rest, privateEnabled: settings?.private_enabled === 1, createdAt, updatedAt };
}

/** `PATCH /internal-accounts/{id}`: wallet privacy, by signed retry. */
export function updateInternalAccount(ctx: SandboxContext, platform: Platform, id: string, body: { privateEnabled?: boolean | undefined }, headers: SignedHeaders): Outcome {
  const account = walletAccount(ctx, platform, id);
  const enclave = enclaveOf(ctx, platform);
  return ctx.tx(() => {
    const step = signedStep(
      ctx,
      platform,
      { kind: 'updateInternalAccount', accountId: id, targetId: id, binding: body, activityType: 'ACTIVITY_TYPE_UPDATE_WALLET', parameters: { walletId: id, ...body }, organizationId: enclave.organization_id },
      headers,
    );
    if (step.leg === 'challenge') return { status: 202, body: step.challenge };
    repoOf(ctx).setPrivate(id, body.privateEnabled!);
    internalAccountRepo(ctx).updateStatus(id, account.status, ctx.clock.iso());
    const out = presentWallet(ctx, internalAccountRepo(ctx).byId(platform.id, id)!);
    ctx.outbox.append(platform.id, 'INTERNAL_ACCOUNT.STATUS_UPDATED', id, out);
    return { status: 200, body: out };
  });
}

/**
 * `POST /internal-accounts/{id}/export`: the wallet's mnemonic HPKE-sealed to the bound
 * `clientPublicKey`. The contract calls it the "wallet mnemonic ... the master key of the
 * self-custodial Embedded Wallet": the 24 BIP-39 English words of the wallet's 32-byte seed
 * (@scure/bip39, the audited implementation: the checksum and the word list are not ours to
 * get wrong), the same words every export.
 */
export async function exportInternalAccount(ctx: SandboxContext, platform: Platform, id: string, body: { clientPublicKey: string }, headers: SignedHeaders): Promise<Outcome> {
  walletAccount(ctx, platform, id);
  const key = clientKey(body.clientPublicKey);
  const enclave = enclaveOf(ctx, platform);
  const step = ctx.tx(() =>
    signedStep(
      ctx,
      platform,
      { kind: 'exportInternalAccount', accountId: id, targetId: id, binding: { clientPublicKey: body.clientPublicKey }, activityType: 'ACTIVITY_TYPE_EXPORT_WALLET', parameters: { walletId: id, targetPublicKey: body.clientPublicKey }, organizationId: enclave.organization_id },
      headers,
    ),
  );
  if (step.leg === 'challenge') return { status: 202, body: step.challenge };
  const mnemonic = entropyToMnemonic(fromHex(repoOf(ctx).settings(id)!.seed), english);
  const sealed = await hpkeSeal(key.bytes, new TextEncoder().encode(mnemonic), secretKeyFrom(ctx.random));
  // Deliberate difference from the contract's note that sandbox bundles carry empty dataSignature
  // and enclaveQuorumPublic (issue 24): signed by the published sandbox enclave key, so a client
  // verifies it unchanged (decryptExportBundle with that key as the signer override).
  const bundle = signEnclaveBundle({ encappedPublic: toHex(sealed.encappedPublic), ciphertext: toHex(sealed.ciphertext), organizationId: enclave.organization_id });
  return { status: 200, body: { id, encryptedWalletCredentials: bundle } };
}

// ---------------------------------------------------------------- wallet payments (quotes)

/** The `payloadToSign` of a wallet payment: the activity that moves `amount` out of the wallet. */
export function walletPaymentInstructions(ctx: SandboxContext, platform: Platform, quote: { quoteId: string; accountId: string; amount: number; currency: string; sparkAddress: string }): Record<string, unknown>[] {
  const enclave = enclaveOf(ctx, platform);
  const payloadToSign = JSON.stringify({
    organizationId: enclave.organization_id,
    parameters: {
      signWith: quote.accountId,
      type: 'TRANSACTION_TYPE_SPARK',
      unsignedTransaction: sha256Hex(`${quote.quoteId}:${quote.accountId}:${quote.amount}:${quote.currency}`),
    },
    timestampMs: String(ctx.clock.now()),
    type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2',
  });
  return [
    {
      instructionsNotes: 'Pay from outside: a Spark invoice for the exact amount.',
      isPlatformAccount: false,
      accountOrWalletInfo: { accountType: 'SPARK_WALLET', address: quote.sparkAddress, assetType: quote.currency, invoice: `sparkrt1${sha256Hex(quote.quoteId).slice(0, 58)}` },
    },
    {
      instructionsNotes: 'Pay from the embedded wallet: stamp payloadToSign and send it as Service-Wallet-Signature on POST /quotes/{quoteId}/execute.',
      isPlatformAccount: false,
      accountOrWalletInfo: { accountType: 'EMBEDDED_WALLET', payloadToSign },
    },
  ];
}

/**
 * The guard of `POST /quotes/{id}/execute` from an embedded wallet: the stamp must be over the
 * quote's `payloadToSign` by the key of an active session of the source wallet. Throws the
 * contract's 401; writes nothing. (The quote itself is single use, so is the payload.)
 */
export function authorizeWalletPayment(ctx: SandboxContext, accountId: string, payloadToSign: string, signature: string | undefined): void {
  checkStamp(ctx, signature, payloadToSign, { accountId });
}

// ---------------------------------------------------------------- delegated keys

const fundingSourceOf = (cardId: string, accountId: string) => {
  const h = createHash('sha256').update(`${cardId}|${accountId}`).digest('hex');
  return `CardFundingSource:${h.slice(0, 8)}-${h.slice(8, 12)}-7${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/** The contract's `DelegatedKey` (never the secret). */
export function presentDelegatedKey(row: DelegatedKeyRow): Record<string, unknown> {
  return {
    id: row.id,
    cardId: row.card_id,
    fundingSourceId: row.funding_source_id,
    accountId: row.account_id,
    publicKey: row.public_key,
    nickname: row.nickname,
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * Whether an embedded wallet may fund the card now: it needs an ACTIVE delegated key for that
 * card funding source (openapi `POST /cards`: until one exists, Authorization Decisioning cannot
 * use it). Other accounts are not the wallet's business. Registered with the cards area.
 */
export function walletFundsCard(ctx: SandboxContext, platformId: string, cardId: string, account: InternalAccountRow): boolean {
  if (account.type !== 'EMBEDDED_WALLET') return true;
  return repoOf(ctx).activeDelegatedKey(platformId, fundingSourceOf(cardId, account.id)) !== undefined;
}

/**
 * `POST /auth/delegated-keys`: three legs. Leg 1 generates the key (202); leg 2 creates the
 * signer identity, the key `PENDING` (202); leg 3 grants the policy, the key `ACTIVE` (201). The
 * same body on every leg. The card must be the platform's and list the wallet among its
 * `fundingSources` (404 otherwise, as the contract's 404 names: card, card funding source or
 * wallet not found); the funding source id is derived from the (card, account) pair.
 */
export function createDelegatedKey(ctx: SandboxContext, platform: Platform, body: { cardId: string; internalAccountId: string; nickname: string }, headers: SignedHeaders): Outcome {
  const account = walletAccount(ctx, platform, body.internalAccountId);
  const card = findCardForPlatform(ctx, platform.id, body.cardId);
  if (!card) throw notFound('REFERENCE_NOT_FOUND', `Card ${body.cardId} not found.`);
  if (!(card.fundingSources as string[]).includes(account.id)) {
    throw notFound('REFERENCE_NOT_FOUND', `Card ${body.cardId} has no funding source on ${account.id}: add the wallet to the card's fundingSources (PATCH /cards/{id}) first.`);
  }
  const enclave = enclaveOf(ctx, platform);
  const fundingSourceId = fundingSourceOf(body.cardId, account.id);
  const repo = repoOf(ctx);
  return ctx.tx(() => {
    const conflict = () => {
      if (repo.activeDelegatedKey(platform.id, fundingSourceId)) throw new ApiError(409, ErrorCode.CONFLICT, `An ACTIVE delegated key already exists for ${fundingSourceId}; revoke it first.`);
    };
    const base = { accountId: account.id, targetId: account.id, binding: body, organizationId: enclave.organization_id };
    if (headers.signature === undefined && headers.requestId === undefined) {
      conflict();
      const key = generateKeyPair(ctx.random);
      const publicKey = toHex(key.publicKey);
      const { challenge } = issueSignedRequest(ctx, platform, {
        ...base,
        kind: 'delegatedKey:user',
        activityType: 'ACTIVITY_TYPE_CREATE_USERS_V3',
        parameters: { users: [{ apiKeys: [{ apiKeyName: body.nickname, publicKey, curveType: 'API_KEY_CURVE_P256' }], userName: `delegated-${fundingSourceId}` }] },
        state: { secret: toHex(key.secretKey), publicKey },
      });
      return { status: 202, body: challenge };
    }
    const request = headers.requestId ? repo.request(platform.id, headers.requestId) : undefined;
    const kind = request?.kind === 'delegatedKey:policy' ? 'delegatedKey:policy' : 'delegatedKey:user';
    const step = signedStep(ctx, platform, { ...base, kind }, headers) as Extract<SignedStep, { leg: 'authorized' }>;
    const now = ctx.clock.iso();
    if (kind === 'delegatedKey:user') {
      const state = JSON.parse(step.request.state!) as { secret: string; publicKey: string };
      const row: DelegatedKeyRow = {
        id: ctx.ids.next('DelegatedKey'),
        platform_id: platform.id,
        account_id: account.id,
        card_id: body.cardId,
        funding_source_id: fundingSourceId,
        public_key: state.publicKey,
        secret: state.secret,
        nickname: body.nickname,
        status: 'PENDING',
        created_at: now,
        updated_at: now,
      };
      repo.insertDelegatedKey(row);
      const { challenge } = issueSignedRequest(ctx, platform, {
        ...base,
        kind: 'delegatedKey:policy',
        activityType: 'ACTIVITY_TYPE_CREATE_POLICIES',
        parameters: { policies: [{ policyName: `sign-${row.id}`, effect: 'EFFECT_ALLOW', consensus: `approvers.any(user, user.id == '${row.id}')` }] },
        state: { keyId: row.id },
      });
      return { status: 202, body: challenge };
    }
    conflict();
    const { keyId } = JSON.parse(step.request.state!) as { keyId: string };
    repo.setDelegatedStatus(keyId, 'ACTIVE', now);
    return { status: 201, body: presentDelegatedKey(repo.delegatedKey(platform.id, keyId)!) };
  });
}

/** `GET /auth/delegated-keys`. */
export function listDelegatedKeys(ctx: SandboxContext, platform: Platform, filter: { accountId?: string | undefined; fundingSourceId?: string | undefined }): { data: Record<string, unknown>[] } {
  return { data: repoOf(ctx).delegatedKeys(platform.id, filter).map(presentDelegatedKey) };
}

/** `GET /auth/delegated-keys/{id}`. */
export function getDelegatedKey(ctx: SandboxContext, platform: Platform, id: string): Record<string, unknown> {
  const row = repoOf(ctx).delegatedKey(platform.id, id);
  if (!row) throw notFound('REFERENCE_NOT_FOUND', `Delegated key ${id} not found.`);
  return presentDelegatedKey(row);
}

/** `DELETE /auth/delegated-keys/{id}`: ACTIVE to REVOKED; anything else is 400. */
export function revokeDelegatedKey(ctx: SandboxContext, platform: Platform, id: string): void {
  ctx.tx(() => {
    const row = repoOf(ctx).delegatedKey(platform.id, id);
    if (!row) throw notFound('REFERENCE_NOT_FOUND', `Delegated key ${id} not found.`);
    if (row.status !== 'ACTIVE') throw invalidInput(`Delegated key ${id} is ${row.status}; only an ACTIVE key can be revoked.`);
    repoOf(ctx).setDelegatedStatus(id, 'REVOKED', ctx.clock.iso());
  });
}

/** Deletes every wallet-auth row of a platform. */
export const removePlatformWalletAuth = (ctx: SandboxContext, platformId: string) => repoOf(ctx).removePlatform(platformId);

// ---------------------------------------------------------------- customer contact changes

/**
 * The guard of `PATCH /customers/{id}`: changing `email` while an embedded wallet of the customer
 * has an `EMAIL_OTP` credential (or `phoneNumber` with `SMS_OTP`) is a signed retry that binds
 * the new value and the tied credential set. Returns the 202 challenge, or undefined when the
 * update may run; on the authorized retry it renames the tied credentials. Call inside the
 * transaction that then applies the customer update, so both happen or neither.
 */
export function guardCustomerContactChange(
  ctx: SandboxContext,
  platform: Platform,
  customer: { id: string; email?: string | undefined; phoneNumber?: string | undefined },
  change: { email?: string | undefined; phoneNumber?: string | undefined },
  headers: SignedHeaders,
): SignedChallengeBody | undefined {
  const wallets = internalAccountRepo(ctx)
    .byOwner(platform.id, customer.id)
    .filter((a) => a.type === 'EMBEDDED_WALLET');
  // The tied EMAIL_OTP credential is made on the wallet's first use by wallet auth (see
  // bootstrap): until then no credential is tied and the email changes at once, and the
  // credential later takes the current email.
  if (wallets.length === 0) return undefined;
  const repo = repoOf(ctx);
  // An email already tied to another account's EMAIL_OTP credential cannot become this wallet's
  // login email (contract: 409 EMAIL_OTP_EMAIL_ALREADY_EXISTS).
  if (change.email !== undefined && change.email.toLowerCase() !== customer.email?.toLowerCase()) {
    const own = new Set(wallets.map((w) => w.id));
    const holder = repo.emailOtpAccounts(platform.id, change.email).find((accountId) => !own.has(accountId));
    if (holder) {
      throw new ApiError(409, 'EMAIL_OTP_EMAIL_ALREADY_EXISTS', `${change.email} is already the email of an EMAIL_OTP credential of another embedded wallet (${holder}); a wallet's login email must be its own.`, {
        email: change.email,
      });
    }
  }
  const tied = (type: string) => wallets.flatMap((w) => repo.credentialsOf(w.id).filter((c) => c.type === type));
  // A retry is checked even when the tied set has since emptied, so that change is a 409.
  const retry = headers.requestId !== undefined;
  const emailChange = change.email !== undefined && change.email !== customer.email && (retry || tied('EMAIL_OTP').length > 0);
  const phoneChange = !emailChange && change.phoneNumber !== undefined && change.phoneNumber !== customer.phoneNumber && (retry || tied('SMS_OTP').length > 0);
  if (!emailChange && !phoneChange) return undefined;
  if (change.email !== undefined && change.phoneNumber !== undefined) {
    throw invalidInput('Update email and phoneNumber in separate PATCH calls when an embedded wallet ties them to OTP credentials.', [{ field: 'phoneNumber', message: 'Send it in its own PATCH.' }]);
  }
  const type = emailChange ? 'EMAIL_OTP' : 'SMS_OTP';
  const value = emailChange ? change.email! : change.phoneNumber!;
  const set = () => tied(type).map((c) => `${c.id}:${c.nickname}`).join(',');
  const enclave = enclaveOf(ctx, platform);
  const step = signedStep(
    ctx,
    platform,
    {
      kind: 'updateCustomerContact',
      accountId: wallets[0]!.id,
      targetId: customer.id,
      binding: emailChange ? { email: value } : { phoneNumber: value },
      credentialSet: set(),
      activityType: emailChange ? 'ACTIVITY_TYPE_UPDATE_USER_EMAIL' : 'ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER',
      parameters: emailChange ? { userEmail: value, userId: customer.id } : { userId: customer.id, userPhoneNumber: value },
      organizationId: enclave.organization_id,
    },
    headers,
    set,
  );
  if (step.leg === 'challenge') return step.challenge;
  for (const credential of tied(type)) repo.setNickname(credential.id, value, ctx.clock.iso());
  return undefined;
}

/** The 202 body of a signed-retry first leg. */
export type SignedChallengeBody = { payloadToSign: string; requestId: string; expiresAt: string };
