import { createHash } from 'node:crypto';
import { IsoText } from '../../core/clock.js';
import { perContext } from '../../core/per-context.js';
import { ApiError, ErrorCode } from '../../core/errors.js';
import type { SandboxContext } from '../../store/context.js';
import { parseTotpSecret, totpSecretOf, totpUri, verifyTotp } from '../../crypto/totp.js';
import { verifyAssertion, verifyRegistration, WebAuthnError } from '../../crypto/webauthn.js';
import {
  authorizeBackoff,
  lockFor,
  lockoutRules,
  resetRateLimit,
  riskSignalRules,
  SCA_REGIONS,
  SCA_SANDBOX_CODE,
  scaCodeRules,
  scaLegacyPasskeyRules,
  scaRelyingParty,
  scaTimings,
  STEP_UP_EVENT,
  TOTP_ISSUER,
} from '../../rules/sca-rules.js';
import { recordRule } from '../../store/coverage.js';
import { EU_COUNTRIES, enrollVerifiedPhone, getCustomerSubject, type CustomerSubject } from '../customers/index.js';
import { getExternalAccount } from '../external-accounts/index.js';
import type { Platform } from '../../tenancy/index.js';
import { advanceQuoteAuthorization, expireQuoteAuthorization, getQuote, type QuoteAuthorizationRequest } from '../quotes/index.js';
import { ScaRepo, type ChallengeRow, type CustomerStateRow, type FactorRow, type ResetRow } from './repo.js';
import type { ConfirmRequest, LoginCompleteRequest, Proof, ScaFactor } from './schemas.js';

/** Job kind: a 2FA reset's liveness check moves on (sandbox delay). */
export const RESET_LIVENESS_JOB = 'sca.reset-liveness';
/** Job kind: a quote's challenge reaches its `expiresAt`; unanswered, the quote expires. */
export const QUOTE_CHALLENGE_EXPIRY_JOB = 'sca.quote-challenge-expiry';

const repoOf = perContext((ctx: SandboxContext) => new ScaRepo(ctx.db));

const iso = (ms: number) => new Date(ms).toISOString();
/** Creation times: the requests of one millisecond share one text (issue 26). */
const createdText = new IsoText();
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** Random bytes from the sandbox's source (the OS's CSPRNG; with --seed, the seed's stream). */
const randomBytes = (ctx: SandboxContext, length: number): Uint8Array => ctx.random.bytes(length);

// ---------------------------------------------------------------- scope and factors

/** Whether SCA applies to a customer: its `region` is an EU/EEA country (src/rules/sca-rules.ts). */
export function isScaCustomer(customer: CustomerSubject): boolean {
  return customer.region !== undefined && SCA_REGIONS.has(customer.region);
}

function notInScope(customer: CustomerSubject): ApiError {
  return new ApiError(
    409,
    ErrorCode.CONFLICT,
    `SCA is not required for customer ${customer.id} (region ${customer.region ?? 'unknown'}): only customers whose region is an EU/EEA country are in scope.`,
    { reason: 'SCA_NOT_REQUIRED', region: customer.region ?? null },
  );
}

/** The customer of an `/sca/*` call: `404 USER_NOT_FOUND`, or `409` outside SCA scope. */
function scaCustomer(ctx: SandboxContext, platformId: string, customerId: string): CustomerSubject {
  const customer = getCustomerSubject(ctx, platformId, customerId);
  if (!isScaCustomer(customer)) throw notInScope(customer);
  return customer;
}

/**
 * SMS is implicit for an in-scope customer with a verified phone (contact verification). In
 * IS, LI and NO the sandbox runs no contact verification, so the number on file counts.
 */
function smsAvailable(customer: CustomerSubject): boolean {
  if (typeof customer.profile.phoneNumber !== 'string') return false;
  if (customer.contact?.phone) return customer.contact.phone === 'VERIFIED';
  return !EU_COUNTRIES.has(customer.region ?? '');
}

function activeFactors(ctx: SandboxContext, customer: CustomerSubject): FactorRow[] {
  return repoOf(ctx).factors(customer.platformId, customer.id).filter((f) => f.status === 'ACTIVE');
}

/** Every factor the customer can answer a challenge with. */
function factorsOf(ctx: SandboxContext, customer: CustomerSubject): ScaFactor[] {
  const factors: ScaFactor[] = smsAvailable(customer) ? ['SMS_OTP'] : [];
  for (const f of activeFactors(ctx, customer)) if (!factors.includes(f.factor)) factors.push(f.factor);
  return factors;
}

/** `GET /sca/factors`. */
export function listFactors(ctx: SandboxContext, platform: Platform, customerId: string): { factors: Array<Record<string, unknown>> } {
  const customer = scaCustomer(ctx, platform.id, customerId);
  const factors: Array<Record<string, unknown>> = smsAvailable(customer) ? [{ factor: 'SMS_OTP', name: `SMS to ${maskPhone(customer.profile.phoneNumber)}` }] : [];
  for (const f of activeFactors(ctx, customer)) {
    factors.push(f.factor === 'PASSKEY' ? { factor: 'PASSKEY', credentialId: f.credential_id, name: 'Passkey' } : { factor: 'TOTP', name: 'Authenticator app' });
  }
  return { factors };
}

const maskPhone = (phone: string) => `•••${phone.slice(-2)}`;

/** `POST /sca/factors`: starts a TOTP or passkey enrollment. */
export function startEnrollment(ctx: SandboxContext, platform: Platform, customerId: string, type: 'TOTP' | 'PASSKEY'): Record<string, unknown> {
  return ctx.tx(() => {
    const customer = scaCustomer(ctx, platform.id, customerId);
    const repo = repoOf(ctx);
    const existing = repo.factors(platform.id, customer.id).filter((f) => f.factor === type);
    if (existing.some((f) => f.status === 'ACTIVE')) {
      if (type === 'PASSKEY') {
        throw new ApiError(409, 'PASSKEY_ALREADY_ENROLLED', `Customer ${customer.id} already has a passkey; delete it with DELETE /sca/factors/{credentialId} before enrolling another.`);
      }
      throw new ApiError(409, ErrorCode.CONFLICT, `Customer ${customer.id} already has a TOTP factor; reset it (POST /sca/factors/reset) to enroll a new one.`, { reason: 'FACTOR_ALREADY_ENROLLED' });
    }
    // A new start replaces an unfinished enrollment of the same factor.
    for (const f of existing) repo.deleteFactor(f.id);
    const now = ctx.clock.now();
    const row: FactorRow = {
      id: ctx.ids.next('ScaFactor'),
      platform_id: platform.id,
      customer_id: customer.id,
      factor: type,
      status: 'PENDING',
      secret: null,
      credential_id: null,
      public_key: null,
      counter: 0,
      challenge: null,
      recovery_codes: null,
      expires_at: now + scaTimings.enrollmentSeconds * 1000,
      created_at: iso(now),
    };
    if (type === 'TOTP') {
      const secret = totpSecretOf(randomBytes(ctx, 20));
      repo.insertFactor({ ...row, secret: secret.hex });
      const label = typeof customer.profile.email === 'string' ? customer.profile.email : customer.id;
      return { type: 'TOTP', secret: secret.hex, secretBase32Encoded: secret.base32, totpUri: totpUri(secret.base32, TOTP_ISSUER, label) };
    }
    const challenge = b64url(randomBytes(ctx, 32));
    repo.insertFactor({ ...row, challenge });
    const userName = typeof customer.profile.email === 'string' ? customer.profile.email : customer.platformCustomerId;
    return {
      type: 'PASSKEY',
      options: {
        rp: { id: scaRelyingParty.id, name: scaRelyingParty.name },
        user: { id: b64url(Buffer.from(customer.id)), name: userName, displayName: String(customer.profile.fullName ?? userName) },
        challenge,
        pubKeyCredParams: [
          { type: 'public-key', alg: -7 },
          { type: 'public-key', alg: -257 },
        ],
        timeout: scaTimings.enrollmentSeconds * 1000,
        attestation: 'none',
        excludeCredentials: [],
        authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
      },
      allowedOrigins: [...scaRelyingParty.origins],
      relyingPartyId: scaRelyingParty.id,
    };
  });
}

/** A `400 INVALID_INPUT` for a rejected proof: `details.reason` names the failed check. */
/**
 * Whether `code` is the TOTP code of `secret` now. The authenticator app computes it from its own
 * clock: real time, or the sandbox clock once a test moved it, so either holds (one step of drift
 * either side of each).
 */
function totpHolds(ctx: SandboxContext, secret: string, code: string): boolean {
  return ctx.clock.clientTimes().some((at) => verifyTotp(secret, code, at));
}

function proofError(reason: string, message: string, field: string, extra: Record<string, unknown> = {}): ApiError {
  return new ApiError(400, ErrorCode.INVALID_INPUT, message, { reason, ...extra, errors: [{ field, constraint: { rule: reason }, message }] });
}

/** The challenge inside a WebAuthn response's clientDataJSON, if it can be read. */
function clientChallengeOf(response: Record<string, unknown>): string | undefined {
  try {
    const inner = response.response as Record<string, unknown> | undefined;
    const data = JSON.parse(Buffer.from(String(inner?.clientDataJSON ?? ''), 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof data.challenge === 'string' ? data.challenge : undefined;
  } catch {
    return undefined;
  }
}

function checkOrigin(origin: string | null | undefined, field = 'origin'): string {
  if (!origin) throw new ApiError(400, ErrorCode.INVALID_INPUT, 'A passkey proof needs the origin it was produced against.', { reason: 'ORIGIN_REQUIRED', errors: [{ field, constraint: { required: true }, message: 'Send origin with passkeyAssertion.' }] });
  if (!(scaRelyingParty.origins as readonly string[]).includes(origin)) {
    throw proofError('ORIGIN_NOT_ALLOWED', `Origin ${origin} is not one of the allowed origins (${scaRelyingParty.origins.join(', ')}).`, field);
  }
  return origin;
}

const RECOVERY_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

function recoveryCodes(ctx: SandboxContext): string[] {
  const bytes = randomBytes(ctx, 96);
  const codes: string[] = [];
  for (let i = 0; i < 8; i += 1) {
    let code = '';
    for (let j = 0; j < 12; j += 1) code += RECOVERY_ALPHABET[bytes[i * 12 + j]! % RECOVERY_ALPHABET.length];
    codes.push(`${code.slice(0, 4)}-${code.slice(4, 8)}-${code.slice(8)}`);
  }
  return codes;
}

/**
 * `POST /sca/factors/confirm`. TOTP: the secret of the start call binds the confirmation; the
 * current code computed from it (one step of drift either side) or the sandbox `123456` enrolls
 * the factor and returns the recovery codes once. PASSKEY: the attestation is verified for real
 * (challenge, origin, RP id, user presence, signature).
 */
export async function confirmEnrollment(ctx: SandboxContext, platform: Platform, customerId: string, request: ConfirmRequest): Promise<Record<string, unknown>> {
  const customer = scaCustomer(ctx, platform.id, customerId);
  const repo = repoOf(ctx);
  const now = ctx.clock.now();
  if (request.type === 'TOTP') {
    const secret = parseTotpSecret(request.secret);
    const row = secret && repo.factors(platform.id, customer.id).find((f) => f.factor === 'TOTP' && f.secret === secret.hex);
    if (!row) throw proofError('UNKNOWN_ENROLLMENT', 'No TOTP enrollment with this secret; start one with POST /sca/factors.', 'secret');
    if (row.status === 'ACTIVE') throw proofError('ENROLLMENT_ALREADY_CONFIRMED', 'This TOTP enrollment was already confirmed; its recovery codes were shown then.', 'secret');
    if (row.expires_at !== null && now >= row.expires_at) throw proofError('ENROLLMENT_EXPIRED', `This TOTP enrollment expired at ${iso(row.expires_at)}; start a new one.`, 'secret');
    // sandbox-rules.md: `123456` is accepted besides the real code of the secret.
    if (request.code !== SCA_SANDBOX_CODE && !totpHolds(ctx, row.secret!, request.code)) {
      throw proofError('INVALID_CODE', 'The code does not match the authenticator (sandbox: 123456 or the current TOTP code).', 'code');
    }
    if (request.code === SCA_SANDBOX_CODE) recordRule(ctx, platform.id, scaCodeRules.id(SCA_SANDBOX_CODE));
    const codes = recoveryCodes(ctx);
    ctx.tx(() => repo.updateFactor({ ...row, status: 'ACTIVE', expires_at: null, recovery_codes: JSON.stringify(codes.map(sha256)) }));
    return { type: 'TOTP', recoveryCodes: codes };
  }
  const origin = checkOrigin(request.origin);
  const challenge = clientChallengeOf(request.credential);
  const row = repo.factors(platform.id, customer.id).find((f) => f.factor === 'PASSKEY' && f.status === 'PENDING' && f.challenge === challenge);
  if (!row) throw proofError('UNKNOWN_ENROLLMENT', 'The credential answers no open passkey enrollment of this customer; start one with POST /sca/factors.', 'credential');
  if (row.expires_at !== null && now >= row.expires_at) throw proofError('ENROLLMENT_EXPIRED', `This passkey enrollment expired at ${iso(row.expires_at)}; start a new one.`, 'credential');
  let stored;
  try {
    stored = await verifyRegistration({ response: request.credential as never, expectedChallenge: row.challenge!, expectedOrigin: origin, expectedRpId: scaRelyingParty.id });
  } catch (error) {
    throw proofError('PASSKEY_ATTESTATION_INVALID', `The passkey attestation was rejected: ${error instanceof WebAuthnError ? error.reason : String(error)}`, 'credential');
  }
  return ctx.tx(() => {
    const current = repo.factors(platform.id, customer.id).filter((f) => f.factor === 'PASSKEY');
    if (current.some((f) => f.status === 'ACTIVE')) throw new ApiError(409, 'PASSKEY_ALREADY_ENROLLED', `Customer ${customer.id} already has a passkey.`);
    const pending = current.find((f) => f.id === row.id);
    if (!pending) throw proofError('UNKNOWN_ENROLLMENT', 'This passkey enrollment was replaced by a newer one.', 'credential');
    repo.updateFactor({ ...pending, status: 'ACTIVE', challenge: null, expires_at: null, credential_id: stored.credentialId, public_key: stored.publicKey, counter: stored.counter });
    return { type: 'PASSKEY', factor: { factor: 'PASSKEY', credentialId: stored.credentialId, name: 'Passkey' } };
  });
}

/** `DELETE /sca/factors/{credentialId}`: removes the customer's passkey. */
export function deleteFactor(ctx: SandboxContext, platform: Platform, customerId: string, credentialId: string): void {
  ctx.tx(() => {
    const customer = scaCustomer(ctx, platform.id, customerId);
    const row = activeFactors(ctx, customer).find((f) => f.factor === 'PASSKEY' && f.credential_id === credentialId);
    if (!row) throw new ApiError(404, 'REFERENCE_NOT_FOUND', `Customer ${customer.id} has no enrolled factor with credential id ${credentialId}.`);
    repoOf(ctx).deleteFactor(row.id);
  });
}

// ---------------------------------------------------------------- login-security state

function stateOf(ctx: SandboxContext, customer: CustomerSubject): CustomerStateRow {
  return repoOf(ctx).state(customer.platformId, customer.id);
}

function lockDetails(state: CustomerStateRow): Record<string, unknown> {
  return { suspended: state.suspended === 1, lockedUntil: state.suspended === 1 || state.locked_until === null ? null : iso(state.locked_until), failedAttempts: state.failed_attempts };
}

/** `423 ACCOUNT_LOCKED` while the customer is locked or suspended. */
function assertNotLocked(ctx: SandboxContext, customer: CustomerSubject): void {
  const state = stateOf(ctx, customer);
  if (state.suspended === 1 || (state.locked_until !== null && ctx.clock.now() < state.locked_until)) {
    const until = state.suspended === 1 ? 'suspended until a password reset (RESET_PASSWORD_COMPLETED)' : `locked until ${iso(state.locked_until!)}`;
    throw new ApiError(423, 'ACCOUNT_LOCKED', `Customer ${customer.id} is ${until} after ${state.failed_attempts} failed attempts.`, lockDetails(state));
  }
}

/** Counts one failed attempt and applies the lockout ladder; commits on its own so the failure sticks. */
function countFailure(ctx: SandboxContext, customer: CustomerSubject): CustomerStateRow {
  return ctx.tx(() => {
    const state = stateOf(ctx, customer);
    const failed = state.failed_attempts + 1;
    const lock = lockFor(failed);
    const next: CustomerStateRow = {
      ...state,
      failed_attempts: failed,
      suspended: lock === 'SUSPENDED' ? 1 : state.suspended,
      locked_until: typeof lock === 'number' ? ctx.clock.now() + lock * 1000 : state.locked_until,
    };
    repoOf(ctx).saveState(next);
    if (lock !== undefined) recordRule(ctx, customer.platformId, lockoutRules.id(lock === 'SUSPENDED' ? 'suspended' : 'locked'));
    return next;
  });
}

/** `409 SCA_SESSION_REQUIRED` unless the customer has a live SCA login session. */
function assertSession(ctx: SandboxContext, customer: CustomerSubject): void {
  const state = stateOf(ctx, customer);
  if (state.session_expires_at === null || ctx.clock.now() >= state.session_expires_at) {
    throw new ApiError(
      409,
      'SCA_SESSION_REQUIRED',
      `Customer ${customer.id} has no live SCA session${state.session_expires_at === null ? '' : ` (it expired at ${iso(state.session_expires_at)})`}: log in with POST /sca/login/start and /sca/login/complete, then retry.`,
      { customerId: customer.id },
    );
  }
}

/** `POST /sca/record-event`. */
export function recordEvent(ctx: SandboxContext, platform: Platform, customerId: string, eventType: 'RESET_PASSWORD_COMPLETED' | 'FAILED_LOGIN_ATTEMPT'): Record<string, unknown> {
  const customer = scaCustomer(ctx, platform.id, customerId);
  if (eventType === 'FAILED_LOGIN_ATTEMPT') assertNotLocked(ctx, customer);
  return ctx.tx(() => {
    const repo = repoOf(ctx);
    repo.insertEvent(ctx.ids.next('ScaEvent'), platform.id, customer.id, eventType, ctx.clock.iso());
    let state: CustomerStateRow;
    if (eventType === 'RESET_PASSWORD_COMPLETED') {
      // Contract: revokes every SCA session and clears the failed-login counter (and any lock).
      state = { ...stateOf(ctx, customer), failed_attempts: 0, locked_until: null, suspended: 0, session_expires_at: null };
      repo.saveState(state);
    } else {
      state = countFailure(ctx, customer);
      // Risk signal (sca-rules.ts STEP_UP_EVENT): the next quote authorization asks for one more factor.
      if (eventType === STEP_UP_EVENT) {
        recordRule(ctx, platform.id, riskSignalRules.id('failed-login-attempt'));
        state = { ...state, step_up: 1 };
        repo.saveState(state);
      }
    }
    const details = lockDetails(state);
    const locked = state.locked_until !== null && ctx.clock.now() < state.locked_until;
    return { eventType, suspended: details.suspended, lockedUntil: locked && state.suspended !== 1 ? details.lockedUntil : null, failedAttempts: state.failed_attempts };
  });
}

// ---------------------------------------------------------------- challenges and proofs

function newChallenge(
  ctx: SandboxContext,
  customer: CustomerSubject,
  kind: ChallengeRow['kind'],
  subjectId: string,
  factor: ScaFactor,
  available: ScaFactor[],
  purpose: string | null,
  remaining: string[],
): ChallengeRow {
  const repo = repoOf(ctx);
  repo.supersede(customer.platformId, subjectId, kind);
  const now = ctx.clock.now();
  const row: ChallengeRow = {
    id: ctx.ids.next('ScaChallenge'),
    platform_id: customer.platformId,
    customer_id: customer.id,
    kind,
    subject_id: subjectId,
    factor,
    available_factors: JSON.stringify(available),
    purpose,
    remaining_steps: JSON.stringify(remaining),
    passkey_challenge: factor === 'PASSKEY' ? b64url(randomBytes(ctx, 32)) : null,
    status: 'OPEN',
    expires_at: now + scaTimings.challengeSeconds * 1000,
    last_sent_at: now,
    created_at: createdText.of(now),
  };
  repo.insertChallenge(row);
  if (kind === 'QUOTE') ctx.scheduler.schedule(customer.platformId, QUOTE_CHALLENGE_EXPIRY_JOB, scaTimings.challengeSeconds * 1000, { challengeId: row.id });
  return row;
}

/** Job: an unanswered quote challenge expired, so the quote and its transaction expire. */
export function expireQuoteChallenge(ctx: SandboxContext, platformId: string, challengeId: string): void {
  const row = repoOf(ctx).challenge(platformId, challengeId);
  if (row?.status === 'OPEN') expireQuoteAuthorization(ctx, platformId, row.subject_id);
}

function passkeyOptions(ctx: SandboxContext, customer: CustomerSubject, challenge: string): Record<string, unknown> {
  const passkey = activeFactors(ctx, customer).find((f) => f.factor === 'PASSKEY');
  return {
    challenge,
    rpId: scaRelyingParty.id,
    timeout: scaTimings.challengeSeconds * 1000,
    userVerification: 'preferred',
    allowCredentials: passkey ? [{ id: passkey.credential_id, type: 'public-key' }] : [],
  };
}

/** The contract's `ScaChallenge` for a challenge row. */
function presentChallenge(ctx: SandboxContext, customer: CustomerSubject, row: ChallengeRow, withOrigins: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: row.id,
    expiresAt: iso(row.expires_at),
    factor: row.factor,
    availableFactors: JSON.parse(row.available_factors) as string[],
  };
  if (row.purpose) out.purpose = row.purpose;
  if (row.passkey_challenge) {
    out.passkeyAssertionOptions = passkeyOptions(ctx, customer, row.passkey_challenge);
    if (withOrigins) out.passkeyAllowedOrigins = [...scaRelyingParty.origins];
  }
  return out;
}

/** A verified proof: which factor answered, and the passkey counter to store. */
interface Verified {
  factor: ScaFactor;
  passkey?: { row: FactorRow; newCounter: number };
}

/**
 * Checks a proof against a challenge without writing anything. A code answers an SMS_OTP or
 * TOTP challenge (`123456`, or the current code of the customer's TOTP factor when TOTP is among
 * the available factors); a passkey assertion answers a PASSKEY challenge and is verified for
 * real (the deprecated literal signature `sandbox-valid-passkey-signature` skips the checks).
 */
async function verifyProof(ctx: SandboxContext, customer: CustomerSubject, row: ChallengeRow, proof: Proof): Promise<Verified | ApiError> {
  const available = JSON.parse(row.available_factors) as ScaFactor[];
  if (proof.passkeyAssertion) {
    checkOrigin(proof.origin);
    if (!row.passkey_challenge || !available.includes('PASSKEY')) {
      return proofError('FACTOR_NOT_AVAILABLE', `Challenge ${row.id} was issued for ${row.factor}; answer it with a code, or ask for a PASSKEY challenge.`, 'passkeyAssertion');
    }
    const passkey = activeFactors(ctx, customer).find((f) => f.factor === 'PASSKEY');
    if (!passkey) return proofError('FACTOR_NOT_ENROLLED', `Customer ${customer.id} has no enrolled passkey.`, 'passkeyAssertion');
    const response = proof.passkeyAssertion;
    const inner = response.response as Record<string, unknown> | undefined;
    // sandbox-rules.md: the deprecated literal assertion signature is still accepted and skips the checks.
    if (inner?.signature === 'sandbox-valid-passkey-signature' || response.signature === 'sandbox-valid-passkey-signature') {
      recordRule(ctx, customer.platformId, scaLegacyPasskeyRules.id('sandbox-valid-passkey-signature'));
      return { factor: 'PASSKEY', passkey: { row: passkey, newCounter: passkey.counter } };
    }
    try {
      const { newCounter } = await verifyAssertion({
        response: response as never,
        expectedChallenge: row.passkey_challenge,
        expectedOrigin: proof.origin!,
        expectedRpId: scaRelyingParty.id,
        credential: { credentialId: passkey.credential_id!, publicKey: passkey.public_key!, counter: passkey.counter },
      });
      return { factor: 'PASSKEY', passkey: { row: passkey, newCounter } };
    } catch (error) {
      return proofError('PASSKEY_ASSERTION_INVALID', `The passkey assertion was rejected: ${error instanceof WebAuthnError ? error.reason : String(error)}`, 'passkeyAssertion');
    }
  }
  if (!proof.code) {
    return new ApiError(400, ErrorCode.INVALID_INPUT, 'Send code (SMS_OTP, TOTP) or passkeyAssertion with origin (PASSKEY).', {
      reason: 'PROOF_REQUIRED',
      errors: [{ field: 'code', constraint: { required: true }, message: 'A code or a passkey assertion is required.' }],
    });
  }
  if (row.factor === 'PASSKEY' && !available.some((f) => f !== 'PASSKEY')) {
    return proofError('FACTOR_NOT_AVAILABLE', `Challenge ${row.id} can only be answered with a passkey assertion.`, 'code');
  }
  const totp = available.includes('TOTP') ? activeFactors(ctx, customer).find((f) => f.factor === 'TOTP') : undefined;
  if (totp && totpHolds(ctx, totp.secret!, proof.code)) return { factor: 'TOTP' };
  // sandbox-rules.md "Codes and literals": `123456` answers every SMS/TOTP challenge.
  if (proof.code === SCA_SANDBOX_CODE) recordRule(ctx, customer.platformId, scaCodeRules.id(SCA_SANDBOX_CODE));
  if (proof.code === SCA_SANDBOX_CODE) return { factor: row.factor === 'PASSKEY' ? (available.find((f) => f !== 'PASSKEY') ?? 'SMS_OTP') : (row.factor as ScaFactor) };
  return proofError('INVALID_CODE', 'The code is not correct (sandbox: 123456).', 'code');
}

/** Marks a challenge answered and stores a passkey's new counter. */
function consume(ctx: SandboxContext, row: ChallengeRow, verified: Verified): void {
  const repo = repoOf(ctx);
  // Its first write: a challenge answered or replaced since it was read changes nothing here.
  if (!repo.closeChallenge(row.id)) throw proofError('CHALLENGE_ALREADY_USED', `Challenge ${row.id} was already answered or replaced.`, 'challengeId');
  if (verified.passkey) repo.updateFactor({ ...verified.passkey.row, counter: verified.passkey.newCounter });
}

function assertOpen(ctx: SandboxContext, row: ChallengeRow): void {
  if (ctx.clock.now() >= row.expires_at) {
    throw proofError('CHALLENGE_EXPIRED', `Challenge ${row.id} expired at ${iso(row.expires_at)}; start a new one.`, 'challengeId', { expiredAt: iso(row.expires_at) });
  }
}

/** The challenge a confirm call answers: the open one of the subject, matching `challengeId` when sent. */
function openChallengeFor(ctx: SandboxContext, platformId: string, subjectId: string, kind: ChallengeRow['kind'], challengeId: string | null | undefined, start: string): ChallengeRow {
  const row = repoOf(ctx).openChallenge(platformId, subjectId, kind);
  if (!row) throw proofError('NO_PENDING_CHALLENGE', `There is no open challenge here; call ${start} first.`, 'challengeId');
  if (challengeId && challengeId !== row.id) {
    throw proofError('CHALLENGE_MISMATCH', `Challenge ${challengeId} is not the open challenge of this ${kind === 'QUOTE' ? 'quote' : kind === 'LOGIN' ? 'customer' : 'beneficiary'}.`, 'challengeId');
  }
  return row;
}

// ---------------------------------------------------------------- login

/** `POST /sca/login/start`. */
export function startLogin(ctx: SandboxContext, platform: Platform, customerId: string, factor: ScaFactor): Record<string, unknown> {
  return ctx.tx(
    () => {
      const customer = scaCustomer(ctx, platform.id, customerId);
      // SMS needs no enrolled factor: the verified phone on the customer is enough.
      const available = factor === 'SMS_OTP' ? smsAvailable(customer) : factorsOf(ctx, customer).includes(factor);
      if (!available) {
        const why = factor === 'SMS_OTP' ? 'has no verified phone number' : `has not enrolled ${factor}`;
        throw proofError('FACTOR_NOT_AVAILABLE', `Customer ${customer.id} ${why}; available factors: ${factorsOf(ctx, customer).join(', ') || 'none'}.`, 'factor');
      }
      const row = newChallenge(ctx, customer, 'LOGIN', customer.id, factor, [factor], null, []);
      if (factor === 'SMS_OTP') return { factor, challengeId: row.id, expiresAt: iso(row.expires_at) };
      if (factor === 'TOTP') return { factor };
      return { factor, passkeyOptions: passkeyOptions(ctx, customer, row.passkey_challenge!), allowedOrigins: [...scaRelyingParty.origins], relyingPartyId: scaRelyingParty.id };
    },
    // Every refusal (no customer, out of scope, factor not available) comes before newChallenge writes.
    { checksFirst: true },
  );
}

/**
 * `POST /sca/login/complete`: a correct proof opens the SCA session; a wrong one counts toward
 * the lockout (`423 ACCOUNT_LOCKED` once locked).
 */
export async function completeLogin(ctx: SandboxContext, platform: Platform, customerId: string, request: LoginCompleteRequest): Promise<Record<string, unknown>> {
  const customer = scaCustomer(ctx, platform.id, customerId);
  assertNotLocked(ctx, customer);
  if (request.factor === 'SMS_OTP' && !request.challengeId) {
    throw new ApiError(400, ErrorCode.INVALID_INPUT, 'An SMS_OTP login needs the challengeId of POST /sca/login/start.', {
      reason: 'CHALLENGE_ID_REQUIRED',
      errors: [{ field: 'challengeId', constraint: { required: true }, message: 'Required for SMS_OTP.' }],
    });
  }
  const row = openChallengeFor(ctx, platform.id, customer.id, 'LOGIN', request.challengeId, `POST /sca/login/start?customerId=${customer.id}`);
  if (row.factor !== request.factor) throw proofError('FACTOR_MISMATCH', `The open login was started for ${row.factor}, not ${request.factor}.`, 'factor');
  assertOpen(ctx, row);
  const verified = await verifyProof(ctx, customer, row, request);
  if (verified instanceof ApiError) {
    if (verified.details?.reason === 'INVALID_CODE' || verified.details?.reason === 'PASSKEY_ASSERTION_INVALID') {
      const state = countFailure(ctx, customer);
      throw new ApiError(verified.status, verified.code, verified.message, { ...verified.details, ...lockDetails(state) });
    }
    throw verified;
  }
  return ctx.tx(
    () => {
      consume(ctx, row, verified);
      const sessionExpiresAt = ctx.clock.now() + scaTimings.sessionSeconds * 1000;
      repoOf(ctx).setSession(platform.id, customer.id, sessionExpiresAt);
      return { status: 'SUCCESS', sessionExpiresAt: iso(sessionExpiresAt) };
    },
    // consume's refusal comes before any write.
    { checksFirst: true },
  );
}

// ---------------------------------------------------------------- 2FA reset

/** `POST /sca/factors/reset`: opens the liveness-gated reset (5 per 24 hours per customer). */
export function startReset(ctx: SandboxContext, platform: Platform, customerId: string, factor: ScaFactor, origin: string): Record<string, unknown> {
  return ctx.tx(() => {
    const customer = scaCustomer(ctx, platform.id, customerId);
    const has = factor === 'SMS_OTP' ? typeof customer.profile.phoneNumber === 'string' : activeFactors(ctx, customer).some((f) => f.factor === factor);
    if (!has) throw proofError('FACTOR_NOT_ENROLLED', `Customer ${customer.id} has no ${factor} factor to reset.`, 'factor');
    const repo = repoOf(ctx);
    const now = ctx.clock.now();
    const recent = repo.resetsSince(platform.id, customer.id, now - resetRateLimit.windowSeconds * 1000);
    if (recent.length >= resetRateLimit.count) {
      const retryAfterSeconds = Math.max(1, Math.ceil((recent[0]! + resetRateLimit.windowSeconds * 1000 - now) / 1000));
      throw new ApiError(429, 'RATE_LIMITED', `Customer ${customer.id} started ${recent.length} resets in the last 24 hours; retry in ${retryAfterSeconds} s.`, { retryAfterSeconds });
    }
    const token = b64url(randomBytes(ctx, 24));
    const row: ResetRow = {
      id: ctx.ids.next('ScaReset'),
      platform_id: platform.id,
      customer_id: customer.id,
      factor,
      status: 'INITIATED',
      token_hash: sha256(token),
      started_at: now,
      expires_at: now + scaTimings.resetWindowSeconds * 1000,
      completed_at: null,
    };
    repo.insertReset(row);
    // Sandbox delay: the liveness check is under review after a third of it, passed at its end.
    ctx.scheduler.schedule(platform.id, RESET_LIVENESS_JOB, (scaTimings.resetLivenessSeconds * 1000) / 3, { resetId: row.id, status: 'PENDING_REVIEW' });
    ctx.scheduler.schedule(platform.id, RESET_LIVENESS_JOB, scaTimings.resetLivenessSeconds * 1000, { resetId: row.id, status: 'LIVENESS_PASSED' });
    return { resetId: row.id, livenessAccessToken: token, verificationLink: `${origin}/hosted/sca-reset/${encodeURIComponent(row.id)}/${token}`, expiresAt: iso(row.expires_at) };
  });
}

const TERMINAL = new Set(['COMPLETED', 'REJECTED', 'EXPIRED']);

/** A reset's status as of now (EXPIRED once its window closed unfinished). */
function resetStatus(ctx: SandboxContext, row: ResetRow): string {
  if (!TERMINAL.has(row.status) && ctx.clock.now() >= row.expires_at) return 'EXPIRED';
  return row.status;
}

/** Moves a reset's liveness on (job, or the hosted page); nothing once it left the liveness states. */
export function advanceResetLiveness(ctx: SandboxContext, resetId: string, status: 'PENDING_REVIEW' | 'LIVENESS_PASSED' | 'REJECTED'): ResetRow | undefined {
  const row = repoOf(ctx).resetById(resetId);
  if (!row) return undefined;
  const current = resetStatus(ctx, row);
  if (current !== 'INITIATED' && current !== 'PENDING_REVIEW') return undefined;
  if (status === 'PENDING_REVIEW' && current !== 'INITIATED') return undefined;
  repoOf(ctx).updateReset(row.id, status, null);
  return { ...row, status };
}

/** The reset a hosted liveness link opens, if the token is right and the check is still open. */
export function resetForLink(ctx: SandboxContext, resetId: string, token: string): ResetRow | undefined {
  const row = repoOf(ctx).resetById(resetId);
  if (!row || row.token_hash !== sha256(token)) return undefined;
  const status = resetStatus(ctx, row);
  return status === 'INITIATED' || status === 'PENDING_REVIEW' ? row : undefined;
}

function resetRow(ctx: SandboxContext, customer: CustomerSubject, resetId: string): ResetRow {
  const row = repoOf(ctx).reset(customer.platformId, resetId);
  if (!row || row.customer_id !== customer.id) throw new ApiError(404, 'REFERENCE_NOT_FOUND', `Customer ${customer.id} has no reset ${resetId}.`);
  return row;
}

/** `GET /sca/factors/reset/{resetId}`. */
export function getReset(ctx: SandboxContext, platform: Platform, customerId: string, resetId: string): Record<string, unknown> {
  const customer = scaCustomer(ctx, platform.id, customerId);
  const row = resetRow(ctx, customer, resetId);
  let enrollmentStatus: string | null = null;
  if (row.factor !== 'SMS_OTP') {
    const reenrolled = row.completed_at !== null && activeFactors(ctx, customer).some((f) => f.factor === row.factor && f.created_at >= row.completed_at!);
    enrollmentStatus = reenrolled ? 'COMPLETED' : 'PENDING';
  }
  return { status: resetStatus(ctx, row), factor: row.factor, enrollmentStatus, expiresAt: iso(row.expires_at), completedAt: row.completed_at };
}

/** `POST /sca/factors/reset/{resetId}/complete`: clears the lost factor; for SMS enrolls the new mobile number. */
export function completeReset(ctx: SandboxContext, platform: Platform, customerId: string, resetId: string, mobile: { countryCode: string; number: string } | undefined): void {
  ctx.tx(() => {
    const customer = scaCustomer(ctx, platform.id, customerId);
    const row = resetRow(ctx, customer, resetId);
    const status = resetStatus(ctx, row);
    if (status !== 'LIVENESS_PASSED') {
      throw new ApiError(400, ErrorCode.INVALID_INPUT, `Reset ${resetId} is ${status}, not LIVENESS_PASSED; ${TERMINAL.has(status) ? 'start a new reset' : 'poll it until liveness passes'}.`, { reason: 'RESET_NOT_READY', status });
    }
    if (row.factor === 'SMS_OTP') {
      if (!mobile) {
        throw new ApiError(400, ErrorCode.INVALID_INPUT, 'An SMS_OTP reset needs the new mobile number.', {
          reason: 'MOBILE_REQUIRED',
          errors: [{ field: 'mobile', constraint: { required: true }, message: 'Send mobile.countryCode and mobile.number.' }],
        });
      }
      enrollVerifiedPhone(ctx, platform, customer.id, `${mobile.countryCode}${mobile.number}`);
    } else {
      for (const f of repoOf(ctx).factors(platform.id, customer.id)) if (f.factor === row.factor) repoOf(ctx).deleteFactor(f.id);
    }
    repoOf(ctx).updateReset(row.id, 'COMPLETED', ctx.clock.iso());
  });
}

// ---------------------------------------------------------------- beneficiary trust

/** The beneficiary of a trust call: a live USDC address of an in-scope customer, else 404/409. */
function beneficiary(ctx: SandboxContext, platform: Platform, externalAccountId: string): { customer: CustomerSubject; accountId: string } {
  const account = getExternalAccount(ctx, platform.id, externalAccountId);
  if (!account.customerId) {
    throw new ApiError(409, ErrorCode.CONFLICT, `External account ${account.id} belongs to the platform; only a customer's beneficiaries can be trusted.`, { reason: 'SCA_NOT_REQUIRED' });
  }
  const customer = getCustomerSubject(ctx, platform.id, account.customerId);
  if (!isScaCustomer(customer)) throw notInScope(customer);
  // API.md "Trusted beneficiaries": only USDC addresses can be trusted.
  if (account.currency !== 'USDC' || typeof account.accountInfo.address !== 'string') {
    throw new ApiError(409, ErrorCode.CONFLICT, `External account ${account.id} is a ${account.currency} ${account.accountInfo.accountType}; only USDC addresses can be trusted.`, { reason: 'NOT_A_USDC_ADDRESS' });
  }
  return { customer, accountId: account.id };
}

/** `POST .../trust` and `.../untrust`: needs a live SCA session; issues the challenge to confirm with. */
export function startTrustChange(ctx: SandboxContext, platform: Platform, externalAccountId: string, kind: 'TRUST' | 'UNTRUST'): Record<string, unknown> {
  return ctx.tx(() => {
    const { customer, accountId } = beneficiary(ctx, platform, externalAccountId);
    assertSession(ctx, customer);
    const available = factorsOf(ctx, customer);
    if (available.length === 0) throw new ApiError(409, ErrorCode.CONFLICT, `Customer ${customer.id} has no SCA factor (no verified phone, nothing enrolled).`, { reason: 'NO_SCA_FACTOR' });
    const row = newChallenge(ctx, customer, kind, accountId, available[0]!, available, null, []);
    return { scaChallenge: presentChallenge(ctx, customer, row, true) };
  });
}

/** `POST .../trust/confirm` and `.../untrust/confirm`: a correct proof sets `trusted`. */
export async function confirmTrustChange(ctx: SandboxContext, platform: Platform, externalAccountId: string, kind: 'TRUST' | 'UNTRUST', proof: Proof & { challengeId?: string | null | undefined }): Promise<{ trusted: boolean }> {
  const { customer, accountId } = beneficiary(ctx, platform, externalAccountId);
  assertSession(ctx, customer);
  const row = openChallengeFor(ctx, platform.id, accountId, kind, proof.challengeId, `POST /customers/external-accounts/${accountId}/${kind.toLowerCase()}`);
  assertOpen(ctx, row);
  const verified = await verifyProof(ctx, customer, row, proof);
  if (verified instanceof ApiError) throw verified;
  return ctx.tx(() => {
    consume(ctx, row, verified);
    repoOf(ctx).setTrust(platform.id, accountId, customer.id, kind === 'TRUST', ctx.clock.iso());
    return { trusted: kind === 'TRUST' };
  });
}

/** Whether an external account is a trusted beneficiary. */
export function isTrustedBeneficiary(ctx: SandboxContext, platformId: string, externalAccountId: string): boolean {
  return repoOf(ctx).isTrusted(platformId, externalAccountId);
}

/** API.md "Beneficiary trust": a trusted account cannot be deleted (`409 BENEFICIARY_TRUSTED`). */
export function assertBeneficiaryDeletable(ctx: SandboxContext, platformId: string, externalAccountId: string): void {
  if (repoOf(ctx).isTrusted(platformId, externalAccountId)) {
    throw new ApiError(409, 'BENEFICIARY_TRUSTED', `External account ${externalAccountId} is a trusted beneficiary; untrust it (POST .../untrust and .../untrust/confirm) before deleting it.`);
  }
}

// ---------------------------------------------------------------- quotes

/**
 * The SCA guard of quotes: undefined when the send needs no challenge (customer outside scope,
 * own-account transfer, trusted beneficiary), else the first `ScaChallenge` of the quote's
 * authorization sequence. A pre-funded send needs a live SCA session (`409 SCA_SESSION_REQUIRED`).
 * Sequences: a cross-currency real-time quote authorizes CURRENCY_CONVERSION then PAYOUT, any
 * other send one TRANSFER step; a recorded risk signal appends a RISK_STEP_UP step.
 */
export function requireQuoteAuthorization(ctx: SandboxContext, platform: Platform, request: QuoteAuthorizationRequest): Record<string, unknown> | undefined {
  if (request.customerId === null) return undefined;
  const customer = getCustomerSubject(ctx, platform.id, request.customerId);
  if (!isScaCustomer(customer)) return undefined;
  if (request.preferredFactor === 'TOTP') {
    throw new ApiError(400, ErrorCode.INVALID_INPUT, 'TOTP cannot carry the dynamic linking a payment needs; use SMS_OTP or PASSKEY.', {
      errors: [{ field: 'scaFactor', constraint: { enum: ['SMS_OTP', 'PASSKEY'] }, message: 'TOTP is not valid for a per-transaction challenge.' }],
    });
  }
  if (request.ownAccount) return undefined;
  if (request.sessionRequired) assertSession(ctx, customer);
  // API.md: after trust, sends to that payee need the lighter authentication (the session) only.
  if (request.externalAccountId && repoOf(ctx).isTrusted(platform.id, request.externalAccountId)) return undefined;
  const available = factorsOf(ctx, customer).filter((f) => f !== 'TOTP');
  if (available.length === 0) {
    throw new ApiError(403, 'USER_NOT_READY', `Customer ${customer.id} has no factor for a payment challenge: verify the phone number or enroll a passkey.`, { reason: 'NO_SCA_FACTOR' });
  }
  if (request.preferredFactor && !available.includes(request.preferredFactor)) {
    throw new ApiError(400, ErrorCode.INVALID_INPUT, `Customer ${customer.id} cannot use ${request.preferredFactor}; available: ${available.join(', ')}.`, {
      errors: [{ field: 'scaFactor', constraint: { enum: available }, message: `${request.preferredFactor} is not available to this customer.` }],
    });
  }
  // The quote's own refusals (its funds), after SCA's and before the first write.
  request.beforeChallenge?.();
  const steps = request.phase === 'CREATE' && request.crossCurrency ? ['CURRENCY_CONVERSION', 'PAYOUT'] : ['TRANSFER'];
  const state = stateOf(ctx, customer);
  if (state.step_up === 1) {
    steps.push('RISK_STEP_UP');
    repoOf(ctx).saveState({ ...state, step_up: 0 });
  }
  const factor = request.preferredFactor ?? (available.includes('SMS_OTP') ? 'SMS_OTP' : 'PASSKEY');
  const row = newChallenge(ctx, customer, 'QUOTE', request.quoteId, factor, available, steps.length > 1 ? steps[0]! : null, steps.slice(1));
  return presentChallenge(ctx, customer, row, false);
}

/** The quote's current challenge (open or not): it names the customer SCA runs for. */
function quoteChallenge(ctx: SandboxContext, platformId: string, quoteId: string): ChallengeRow {
  const open = repoOf(ctx).openChallenge(platformId, quoteId, 'QUOTE');
  if (open) return open;
  throw new ApiError(409, ErrorCode.CONFLICT, `Quote ${quoteId} has no pending SCA challenge (SCA does not apply to it, or it was already authorized).`, { reason: 'NO_PENDING_CHALLENGE' });
}

/**
 * `POST /quotes/{quoteId}/authorize`: answers the quote's current challenge. The next step's
 * challenge, or the release of the quote, is done by the quotes area.
 */
export async function authorizeQuote(ctx: SandboxContext, platform: Platform, quoteId: string, proof: Proof): Promise<Record<string, unknown>> {
  getQuote(ctx, platform.id, quoteId);
  const row = quoteChallenge(ctx, platform.id, quoteId);
  const customer = getCustomerSubject(ctx, platform.id, row.customer_id);
  if (!isScaCustomer(customer)) throw notInScope(customer);
  assertNotLocked(ctx, customer);
  assertSession(ctx, customer);
  assertOpen(ctx, row);
  const failures = row.failed_attempts ?? 0;
  if (failures >= authorizeBackoff.freeAttempts && row.last_failed_at) {
    const wait = row.last_failed_at + authorizeBackoff.seconds * 1000 - ctx.clock.now();
    if (wait > 0) {
      const retryAfterSeconds = Math.ceil(wait / 1000);
      throw new ApiError(429, 'RATE_LIMITED', `${failures} wrong proofs for challenge ${row.id}; retry in ${retryAfterSeconds} s.`, { retryAfterSeconds, failedAttempts: failures });
    }
  }
  const verified = await verifyProof(ctx, customer, row, proof);
  if (verified instanceof ApiError) {
    if (verified.details?.reason === 'INVALID_CODE' || verified.details?.reason === 'PASSKEY_ASSERTION_INVALID') {
      const state = countFailure(ctx, customer);
      ctx.tx(() => repoOf(ctx).markFailed(row.id, ctx.clock.now()));
      throw new ApiError(verified.status, verified.code, verified.message, { ...verified.details, ...lockDetails(state) });
    }
    throw verified;
  }
  return ctx.tx(() => {
    consume(ctx, row, verified);
    const remaining = JSON.parse(row.remaining_steps) as string[];
    if (remaining.length === 0) return advanceQuoteAuthorization(ctx, platform, quoteId, undefined);
    const available = JSON.parse(row.available_factors) as ScaFactor[];
    // A risk step-up asks for a second factor: another one than the step before, when the customer has one.
    const factor = remaining[0] === 'RISK_STEP_UP' ? (available.find((f) => f !== verified.factor) ?? verified.factor) : (row.factor as ScaFactor);
    const next = newChallenge(ctx, customer, 'QUOTE', quoteId, factor, available, remaining[0]!, remaining.slice(1));
    return advanceQuoteAuthorization(ctx, platform, quoteId, presentChallenge(ctx, customer, next, false));
  });
}

/**
 * `POST /quotes/{quoteId}/authorize/resend`: re-sends the SMS code of the open challenge (same
 * challenge, same `expiresAt`); `409` for a passkey challenge or an expired one, `429` when sent
 * again within the resend interval.
 */
export function resendQuoteCode(ctx: SandboxContext, platform: Platform, quoteId: string): void {
  ctx.tx(() => {
    getQuote(ctx, platform.id, quoteId);
    const row = quoteChallenge(ctx, platform.id, quoteId);
    const customer = getCustomerSubject(ctx, platform.id, row.customer_id);
    if (!isScaCustomer(customer)) throw notInScope(customer);
    if (row.factor !== 'SMS_OTP') throw new ApiError(409, ErrorCode.CONFLICT, `Challenge ${row.id} uses ${row.factor}, whose code cannot be re-sent.`, { reason: 'NOT_RESENDABLE' });
    const now = ctx.clock.now();
    if (now >= row.expires_at) throw new ApiError(409, ErrorCode.CONFLICT, `Challenge ${row.id} expired at ${iso(row.expires_at)}; it can no longer be authorized.`, { reason: 'CHALLENGE_EXPIRED' });
    const wait = row.last_sent_at + scaTimings.resendIntervalSeconds * 1000 - now;
    if (wait > 0) {
      const retryAfterSeconds = Math.ceil(wait / 1000);
      throw new ApiError(429, 'RATE_LIMITED', `The code was sent less than ${scaTimings.resendIntervalSeconds} s ago; retry in ${retryAfterSeconds} s.`, { retryAfterSeconds });
    }
    repoOf(ctx).markSent(row.id, now);
  });
}

/**
 * The control plane's view of a customer's SCA state (`GET /_sandbox/sca/state`): factors,
 * session, lockout, the risk flag, trusted beneficiaries and the most recent recorded security events.
 */
export function scaState(ctx: SandboxContext, platform: Platform, customerId: string): Record<string, unknown> {
  const customer = scaCustomer(ctx, platform.id, customerId);
  const state = stateOf(ctx, customer);
  const now = ctx.clock.now();
  return {
    customerId: customer.id,
    region: customer.region,
    factors: listFactors(ctx, platform, customer.id).factors,
    sessionExpiresAt: state.session_expires_at !== null && now < state.session_expires_at ? iso(state.session_expires_at) : null,
    ...lockDetails(state),
    locked: state.suspended === 1 || (state.locked_until !== null && now < state.locked_until),
    stepUpPending: state.step_up === 1,
    trustedBeneficiaries: repoOf(ctx).trustedOf(platform.id, customer.id),
    events: repoOf(ctx).events(platform.id, customer.id, 50).map((e) => ({ eventType: e.event_type, recordedAt: e.created_at })),
  };
}

/** Wipes a platform's SCA state (sandbox reset). */
export function removePlatformSca(ctx: SandboxContext, platformId: string): void {
  repoOf(ctx).removePlatform(platformId);
}
