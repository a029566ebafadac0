import type { SandboxContext } from '../../store/context.js';
import type { InternalAccountRow } from '../internal-accounts/index.js';

/**
 * A check another area puts in front of card funding: whether `account` may fund `cardId` now.
 * The embedded wallet registers one (a wallet source needs an ACTIVE delegated key for that
 * card funding source, openapi `POST /cards`); decisioning skips a source any guard refuses.
 *
 * A module of its own with type-only imports, so the list exists before any area registers
 * into it, whatever order the areas' modules load in.
 */
export type FundingSourceGuard = (ctx: SandboxContext, platformId: string, cardId: string, account: InternalAccountRow) => boolean;

export const fundingSourceGuards: FundingSourceGuard[] = [];

/** Registers a {@link FundingSourceGuard} (at module load of the area that owns the rule). */
export function registerFundingSourceGuard(guard: FundingSourceGuard): void {
  fundingSourceGuards.push(guard);
}
