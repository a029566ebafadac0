import { ApiError } from '../../core/errors.js';
import type { SandboxContext } from '../../store/context.js';
import { parseStamp, StampError, verifyStamp } from '../../crypto/stamp.js';
import { walletLiteralRules, walletRules } from '../../rules/wallet-rules.js';
import { recordRule } from '../../store/coverage.js';
import type { SignedHeaders } from '../../server/signed-headers.js';
import type { Platform } from '../../tenancy/index.js';
import { WalletAuthRepo, type RequestRow, type SessionRow } from './repo.js';
import { perContext } from '../../core/per-context.js';

/**
 * The one 202 `payloadToSign` / `requestId` / signed-retry mechanism of the API (API.md
 * "Embedded wallet signing"): the first leg stores a pending request with the body it binds and
 * an expiry on the sandbox clock; the retry must carry `Request-Id`, the same bound body and a
 * stamp over the exact payload by the right key; the request is then used up. Each operation
 * declares what it binds. The request's signing headers are read by the server
 * (src/server/signed-headers.ts), so a guarded area can pass them on without importing this guard.
 */

export const repoOf = perContext((ctx: SandboxContext) => new WalletAuthRepo(ctx.db));

/** The contract's 401 codes of wallet signing. */
export const WalletSignatureCode = {
  MISSING: 'WALLET_SIGNATURE_MISSING',
  MALFORMED: 'WALLET_SIGNATURE_MALFORMED',
  BODY_MISMATCH: 'WALLET_SIGNATURE_BODY_MISMATCH',
  INVALID: 'WALLET_SIGNATURE_INVALID',
  REQUEST_ID_MISSING: 'REQUEST_ID_MISSING',
} as const;

/** A 401 whose `details.reason` names the failed check (API.md "Sandbox behaviour"). */
export const unauthorized = (code: string, reason: string) => new ApiError(401, code, reason, { reason });

/** What an operation binds into its pending request. */
export interface SignedOperation {
  /** Operation name; a Request-Id of another operation does not match. */
  kind: string;
  /** The wallet whose session must sign. */
  accountId: string;
  /** The resource the operation acts on (path id, or the account). */
  targetId: string;
  /** What the retry body must repeat exactly. */
  binding: unknown;
  /** Activity `type` and `parameters` of the payload to sign (ignored when `payload` is given). */
  activityType?: string;
  parameters?: Record<string, unknown>;
  /** A ready payload (the OTP verify's verificationToken). */
  payload?: string;
  /** The compressed key that must sign, instead of any active session of the account. */
  signer?: string;
  /** A credential whose sessions may not sign (credential revoke). */
  excludeCredentialId?: string;
  /** A snapshot of the credential set; a change before the retry is 409 EMAIL_OTP_CREDENTIAL_SET_CHANGED. */
  credentialSet?: string;
  /** Operation state carried to the retry (never returned). */
  state?: unknown;
  /** The organization id shown in the payload (unused with a ready `payload`). */
  organizationId?: string;
}

/** The 202 body (`SignedRequestChallenge`). */
export interface SignedChallenge {
  payloadToSign: string;
  requestId: string;
  expiresAt: string;
}

/** The outcome of one leg. */
export type SignedStep =
  | { leg: 'challenge'; challenge: SignedChallenge; request: RequestRow }
  | { leg: 'authorized'; request: RequestRow; session: SessionRow | undefined };

const canonical = (value: unknown): string => JSON.stringify(sortKeys(value));
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().filter((k) => (value as Record<string, unknown>)[k] !== undefined).map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]));
  }
  return value;
}

/** Issues a pending request and its challenge (the first leg). Call inside the caller's transaction. */
export function issueSignedRequest(ctx: SandboxContext, platform: Platform, op: SignedOperation): { challenge: SignedChallenge; request: RequestRow } {
  const id = ctx.ids.next('Request');
  const now = ctx.clock.now();
  const payload =
    op.payload ??
    JSON.stringify({
      organizationId: op.organizationId,
      parameters: op.parameters ?? {},
      timestampMs: String(now),
      type: op.activityType ?? 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
    });
  const request: RequestRow = {
    id,
    platform_id: platform.id,
    account_id: op.accountId,
    kind: op.kind,
    target_id: op.targetId,
    binding: canonical(op.binding),
    payload,
    signer: op.signer ?? null,
    exclude_credential_id: op.excludeCredentialId ?? null,
    credential_set: op.credentialSet ?? null,
    state: op.state === undefined ? null : JSON.stringify(op.state),
    expires_at: now + walletRules.pendingRequestSeconds * 1000,
    consumed_at: null,
  };
  repoOf(ctx).insertRequest(request);
  return { request, challenge: { payloadToSign: payload, requestId: id, expiresAt: new Date(request.expires_at).toISOString() } };
}

/**
 * Checks a stamp header over `payload`: the deprecated literal passes unchecked; otherwise the
 * stamp must parse, verify, and be by `signer` (when given) or by the key of an active session of
 * `accountId`. Returns that session.
 */
export function checkStamp(
  ctx: SandboxContext,
  header: string | undefined,
  payload: string,
  who: { accountId: string; signer?: string | null; excludeCredentialId?: string | null },
): SessionRow | undefined {
  if (header === undefined || header === '') throw unauthorized(WalletSignatureCode.MISSING, 'The Service-Wallet-Signature (or Grid-Wallet-Signature) header is required');
  // sandbox-rules.md: the deprecated literal is accepted without a cryptographic check.
  if (header === walletRules.legacySignature) {
    const platformId = repoOf(ctx).settings(who.accountId)?.platform_id;
    if (platformId) recordRule(ctx, platformId, walletLiteralRules.id('signature.sandbox-valid-signature'));
    return undefined;
  }
  let stamp;
  try {
    stamp = parseStamp(header);
  } catch (error) {
    throw unauthorized(WalletSignatureCode.MALFORMED, error instanceof StampError ? error.reason : 'Stamp could not be parsed');
  }
  if (!verifyStamp(stamp, payload)) throw unauthorized(WalletSignatureCode.INVALID, 'Stamp signature does not verify over payloadToSign with its publicKey');
  if (who.signer) {
    if (stamp.publicKey !== who.signer.toLowerCase()) throw unauthorized(WalletSignatureCode.INVALID, 'Stamp is signed by a key other than the one bound into the payload');
    return undefined;
  }
  const session = repoOf(ctx).sessionByKey(stamp.publicKey, who.accountId, ctx.clock.now());
  if (!session) throw unauthorized('UNAUTHORIZED', `Stamp key is not the key of an active session of ${who.accountId}`);
  if (who.excludeCredentialId && session.credential_id === who.excludeCredentialId) {
    throw unauthorized('UNAUTHORIZED', 'Stamp must come from a session of a credential other than the one being revoked');
  }
  return session;
}

/**
 * One leg of a signed-retry operation. Without signing headers: issues the challenge. With both:
 * checks the pending request (this operation, unexpired, unused), the bound body, the credential
 * set and the stamp, then uses the request up. Nothing is written when a check fails. Call
 * inside the caller's transaction, which also applies the operation's effect.
 */
export function signedStep(ctx: SandboxContext, platform: Platform, op: SignedOperation, headers: SignedHeaders, currentCredentialSet?: () => string): SignedStep {
  const { signature, requestId } = headers;
  if (signature === undefined && requestId === undefined) return { leg: 'challenge', ...issueSignedRequest(ctx, platform, op) };
  if (requestId === undefined || requestId === '') throw unauthorized(WalletSignatureCode.REQUEST_ID_MISSING, 'The Request-Id header is required on the signed retry');
  const request = pendingRequest(ctx, platform, requestId, op.kind, op.targetId);
  if (request.binding !== canonical(op.binding)) {
    throw unauthorized(WalletSignatureCode.BODY_MISMATCH, 'The retry body differs from the body bound into payloadToSign');
  }
  if (request.credential_set !== null && currentCredentialSet && currentCredentialSet() !== request.credential_set) {
    throw new ApiError(409, 'EMAIL_OTP_CREDENTIAL_SET_CHANGED', 'The credential set changed after the signed-retry challenge was issued; start again.');
  }
  const session = checkStamp(ctx, signature, request.payload, { accountId: request.account_id, signer: request.signer, excludeCredentialId: request.exclude_credential_id });
  repoOf(ctx).consumeRequest(request.id, ctx.clock.iso());
  return { leg: 'authorized', request, session };
}

/** The pending request `requestId` of operation `kind` on `targetId`, unexpired and unused, or a 401 naming why. */
export function pendingRequest(ctx: SandboxContext, platform: Platform, requestId: string, kind: string, targetId: string): RequestRow {
  const request = repoOf(ctx).request(platform.id, requestId);
  if (!request || request.kind !== kind || request.target_id !== targetId) {
    throw unauthorized('UNAUTHORIZED', 'Request-Id does not match a pending request of this operation on this resource');
  }
  if (request.consumed_at !== null) throw unauthorized('UNAUTHORIZED', 'Request-Id was already used; pending requests are single use');
  if (ctx.clock.now() >= request.expires_at) throw unauthorized('UNAUTHORIZED', `Request-Id expired at ${new Date(request.expires_at).toISOString()}`);
  return request;
}
