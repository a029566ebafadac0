import { createHash } from 'node:crypto';
import type { SandboxContext } from '../../store/context.js';
import { ApiError, ErrorCode } from '../../core/errors.js';
import { KYC_LINK_TTL_SECONDS, KYC_SESSION_TTL_SECONDS } from '../../rules/kyc-rules.js';
import { getCustomer } from '../customers/index.js';
import type { Platform } from '../../tenancy/index.js';
import type { KycLinkRow } from './repo.js';
import { kycRepo } from './service.js';

/** Where the hosted KYC pages live, under the sandbox's origin. */
export const HOSTED_KYC_PATH = '/hosted/kyc';

/** The origin (`http://host:port`) of a request URL. */
export function originOf(url: string): string {
  return new URL(url).origin;
}

function opaqueToken(ctx: SandboxContext, salt: string): string {
  return createHash('sha256').update(`${ctx.ids.uuid()}:${ctx.ids.uuid()}:${salt}`).digest('base64url').slice(0, 32);
}

/**
 * `POST /customers/{id}/kyc-link`: a fresh single-use link to the sandbox's hosted KYC page.
 * `409` while a contact channel the customer has is not VERIFIED (API.md Customers table).
 */
export function createKycLink(ctx: SandboxContext, platform: Platform, customerId: string, redirectUri: string | undefined, origin: string): Record<string, unknown> {
  const customer = getCustomer(ctx, platform.id, customerId);
  const pending = (['email', 'phone'] as const).filter((channel) => customer.contact?.[channel] === 'PENDING');
  if (pending.length > 0) {
    throw new ApiError(409, ErrorCode.CONFLICT, `Verify the customer's ${pending.join(' and ')} first (POST /customers/${customerId}/verify-${pending[0]}).`, {
      pendingChannels: pending,
    });
  }
  const now = ctx.clock.now();
  const token = opaqueToken(ctx, customerId);
  const row: KycLinkRow = {
    token,
    platform_id: platform.id,
    customer_id: customerId,
    redirect_uri: redirectUri ?? null,
    expires_at: new Date(now + KYC_LINK_TTL_SECONDS * 1000).toISOString(),
    used_at: null,
    session_id: null,
    created_at: new Date(now).toISOString(),
  };
  kycRepo(ctx).insertLink(row);
  const url = new URL(`${HOSTED_KYC_PATH}/${token}`, origin);
  if (redirectUri) url.searchParams.set('redirectUri', redirectUri);
  return { kycUrl: url.toString(), expiresAt: row.expires_at, provider: 'SUMSUB', token: `sbx_sdk_${token}` };
}

/** Outcome of opening a link: a session to continue in, or why it cannot be used. */
export type OpenedLink = { ok: true; sessionId: string } | { ok: false; reason: 'unknown' | 'used' | 'expired' };

/** Uses a link once: opens a hosted session. A second use, or one after `expiresAt`, fails. */
export function openKycLink(ctx: SandboxContext, token: string): OpenedLink {
  return ctx.tx(() => {
    const repo = kycRepo(ctx);
    const link = repo.linkByToken(token);
    if (!link) return { ok: false, reason: 'unknown' };
    if (link.used_at) return { ok: false, reason: 'used' };
    if (ctx.clock.iso() >= link.expires_at) return { ok: false, reason: 'expired' };
    const sessionId = opaqueToken(ctx, token);
    repo.useLink(token, ctx.clock.iso(), sessionId);
    return { ok: true, sessionId };
  });
}

/** The link behind a live hosted session, or undefined when unknown or expired. */
export function sessionLink(ctx: SandboxContext, sessionId: string): KycLinkRow | undefined {
  const link = kycRepo(ctx).linkBySession(sessionId);
  if (!link || !link.used_at) return undefined;
  if (ctx.clock.now() > Date.parse(link.used_at) + KYC_SESSION_TTL_SECONDS * 1000) return undefined;
  return link;
}
