import { ApiError, ErrorCode, invalidInput, notFound } from '../../core/errors.js';
import { currencyOf, type Currency } from '../../core/money.js';
import { perContext } from '../../core/per-context.js';
import type { SandboxContext } from '../../store/context.js';
import { findCustomerByUmaAddress } from '../customers/index.js';
import type { Platform } from '../../tenancy/index.js';
import { parseUmaAddress } from '../uma/index.js';
import { InvitationRepo, type InvitationRow } from './repo.js';
import type { InvitationClaimRequest, InvitationCreateRequest } from './schemas.js';

/** The contract's `UmaInvitation`. */
export interface UmaInvitation {
  code: string;
  createdAt: string;
  claimedAt?: string;
  url: string;
  expiresAt?: string;
  inviterUma: string;
  inviteeUma?: string;
  status: 'PENDING' | 'CLAIMED' | 'EXPIRED' | 'CANCELLED';
  firstName?: string;
  amountToSend?: { amount: number; currency: Currency };
}

const INVITATION_NOT_FOUND = 'INVITATION_NOT_FOUND';
/** Where a claim link points (the contract's example host); the sandbox serves no page there. */
const INVITATION_URL_BASE = 'https://uma.me/i/';

const repoOf = perContext((ctx: SandboxContext) => new InvitationRepo(ctx.db));

/** The status on the sandbox clock: a PENDING invitation past its `expiresAt` is EXPIRED. */
function statusOf(ctx: SandboxContext, row: InvitationRow): UmaInvitation['status'] {
  if (row.status === 'PENDING' && row.expires_at !== null && ctx.clock.now() >= Date.parse(row.expires_at)) return 'EXPIRED';
  return row.status as UmaInvitation['status'];
}

function present(ctx: SandboxContext, row: InvitationRow): UmaInvitation {
  const out: UmaInvitation = { code: row.code, createdAt: row.created_at, url: row.url, inviterUma: row.inviter_uma, status: statusOf(ctx, row) };
  if (row.claimed_at !== null) out.claimedAt = row.claimed_at;
  if (row.expires_at !== null) out.expiresAt = row.expires_at;
  if (row.invitee_uma !== null) out.inviteeUma = row.invitee_uma;
  if (row.first_name !== null) out.firstName = row.first_name;
  if (row.amount !== null && row.currency !== null) out.amountToSend = { amount: row.amount, currency: currencyOf(row.currency)! };
  return out;
}

function find(ctx: SandboxContext, code: string): InvitationRow {
  const row = repoOf(ctx).byCode(code);
  if (!row) throw notFound(INVITATION_NOT_FOUND, `Invitation ${code} not found.`);
  return row;
}

/** Whether a platform has invitations configured (sandbox default: yes; `POST /_sandbox/invitations/config` changes it). */
export function invitationsConfigured(ctx: SandboxContext, platformId: string): boolean {
  return repoOf(ctx).configured(platformId) ?? true;
}

/** Sets whether invitations are configured for a platform (control plane). */
export function setInvitationsConfigured(ctx: SandboxContext, platformId: string, configured: boolean): { configured: boolean } {
  repoOf(ctx).setConfigured(platformId, configured);
  return { configured };
}

/** `POST /invitations`: an invitation from one of the platform's customers, named by its UMA address. */
export function createInvitation(ctx: SandboxContext, platform: Platform, request: InvitationCreateRequest): UmaInvitation {
  if (!invitationsConfigured(ctx, platform.id)) {
    throw new ApiError(400, 'INVITATIONS_NOT_CONFIGURED', 'Invitations are not configured for this platform.');
  }
  const inviterUma = parseUmaAddress(request.inviterUma, 'inviterUma');
  const inviter = findCustomerByUmaAddress(ctx, platform.id, inviterUma);
  if (!inviter) {
    throw invalidInput(`No customer of this platform has the UMA address ${request.inviterUma}.`, [
      { field: 'inviterUma', message: "The UMA address of one of the platform's customers." },
    ]);
  }
  const now = ctx.clock.iso();
  if (request.expiresAt !== undefined && Date.parse(request.expiresAt) <= ctx.clock.now()) {
    throw invalidInput('expiresAt must be in the future.', [{ field: 'expiresAt', constraint: { format: 'date-time' }, message: `A date-time after ${now}.` }]);
  }
  const currency = inviter.currencies[0];
  if (request.amountToSend !== undefined && currency === undefined) {
    throw invalidInput('The inviter has no currency to express amountToSend in.', [{ field: 'amountToSend', message: 'The inviter customer has no currencies.' }]);
  }
  return ctx.tx(() => {
    const repo = repoOf(ctx);
    // The code is the claim link's secret: 48 bits of the sandbox's random source (the OS's CSPRNG; with --seed, the seed's stream).
    const draw = () => Buffer.from(ctx.random.bytes(6)).toString('hex');
    let code = draw();
    while (repo.byCode(code)) code = draw();
    const row: InvitationRow = {
      code,
      platform_id: platform.id,
      inviter_customer_id: inviter.id,
      inviter_uma: inviter.umaAddress,
      invitee_uma: null,
      first_name: request.firstName ?? null,
      amount: request.amountToSend ?? null,
      currency: request.amountToSend !== undefined ? currency! : null,
      status: 'PENDING',
      url: `${INVITATION_URL_BASE}${code}`,
      expires_at: request.expiresAt !== undefined ? new Date(request.expiresAt).toISOString() : null,
      claimed_at: null,
      created_at: now,
      updated_at: now,
    };
    repo.insert(row);
    return present(ctx, row);
  });
}

/**
 * `GET /invitations/{code}`. The code is the shared secret of a claim link, so any platform
 * holding it may read it (the invitee's platform is usually not the inviter's).
 */
export function getInvitation(ctx: SandboxContext, code: string): UmaInvitation {
  return present(ctx, find(ctx, code));
}

function refuseUnlessPending(ctx: SandboxContext, row: InvitationRow): void {
  const status = statusOf(ctx, row);
  if (status === 'CLAIMED') throw new ApiError(400, 'INVITATION_ALREADY_CLAIMED', `Invitation ${row.code} has already been claimed.`);
  if (status === 'CANCELLED') throw new ApiError(400, 'INVITATION_CANCELLED', `Invitation ${row.code} has been cancelled.`);
  if (status === 'EXPIRED') {
    // The contract has no INVITATION_EXPIRED code: an expired invitation is INVALID_INPUT naming its status.
    throw new ApiError(400, ErrorCode.INVALID_INPUT, `Invitation ${row.code} expired at ${row.expires_at}.`, { status, expiresAt: row.expires_at });
  }
}

/**
 * `POST /invitations/{code}/claim`: PENDING -> CLAIMED with the invitee's UMA address, and an
 * `INVITATION.CLAIMED` webhook to the inviter's platform. Any payout of `amountToSend` is the
 * inviter platform's own payment after the webhook (the contract: "display purposes").
 */
export function claimInvitation(ctx: SandboxContext, code: string, request: InvitationClaimRequest): UmaInvitation {
  const inviteeUma = parseUmaAddress(request.inviteeUma, 'inviteeUma');
  return ctx.tx(() => {
    const row = find(ctx, code);
    refuseUnlessPending(ctx, row);
    if (inviteeUma === row.inviter_uma.toLowerCase()) {
      throw invalidInput('The inviter cannot claim their own invitation.', [{ field: 'inviteeUma', message: 'A UMA address other than the inviter’s.' }]);
    }
    const now = ctx.clock.iso();
    repoOf(ctx).claim(code, inviteeUma, now);
    const claimed = present(ctx, { ...row, status: 'CLAIMED', invitee_uma: inviteeUma, claimed_at: now, updated_at: now });
    ctx.outbox.append(row.platform_id, 'INVITATION.CLAIMED', code, claimed);
    return claimed;
  });
}

/** `POST /invitations/{code}/cancel`: PENDING -> CANCELLED, by the inviter's platform only (`403` for another). */
export function cancelInvitation(ctx: SandboxContext, platform: Platform, code: string): UmaInvitation {
  return ctx.tx(() => {
    const row = find(ctx, code);
    if (row.platform_id !== platform.id) {
      throw new ApiError(403, ErrorCode.FORBIDDEN, 'Only the inviter or the platform that created the invitation can cancel it.');
    }
    refuseUnlessPending(ctx, row);
    const now = ctx.clock.iso();
    repoOf(ctx).setStatus(code, 'CANCELLED', now);
    return present(ctx, { ...row, status: 'CANCELLED', updated_at: now });
  });
}

/** Deletes a platform's invitations and settings (sandbox reset). */
export function removePlatformInvitations(ctx: SandboxContext, platformId: string): void {
  repoOf(ctx).removePlatform(platformId);
}
