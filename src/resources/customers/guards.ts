import type { SandboxContext } from '../../store/context.js';
import type { SignedHeaders } from '../../server/signed-headers.js';
import type { Platform } from '../../tenancy/index.js';

/**
 * The extension point of customers for the guards that stand in front of `PATCH
 * /customers/{customerId}`: a guard may answer a change with a signed-retry challenge instead of
 * letting it through (an embedded wallet ties the customer's email and phone to OTP
 * credentials, so changing them needs the wallet's signature). Customers import no guard; each
 * registers here when its area loads (the composition root lists it).
 *
 * A module of its own with type-only imports, so the list exists before any guard registers.
 */
export type CustomerUpdateGuard = (
  ctx: SandboxContext,
  platform: Platform,
  customer: { id: string; email?: string | undefined; phoneNumber?: string | undefined },
  change: { email?: string | undefined; phoneNumber?: string | undefined },
  headers: SignedHeaders,
) => CustomerUpdateChallenge | undefined;

/** The 202 answer of a change that must be signed first (the signed-retry mechanism's first leg). */
export interface CustomerUpdateChallenge {
  payloadToSign: string;
  requestId: string;
  expiresAt: string;
}

export const updateGuards: CustomerUpdateGuard[] = [];

/** Registers a {@link CustomerUpdateGuard} (at module load of the area that owns the rule). */
export function registerCustomerUpdateGuard(guard: CustomerUpdateGuard): void {
  updateGuards.push(guard);
}
