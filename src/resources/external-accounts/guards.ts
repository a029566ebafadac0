import type { SandboxContext } from '../../store/context.js';

/**
 * The extension point of external accounts for the guards that stand in front of them: a check
 * before an external account is deleted, which throws the guard's refusal (SCA: a trusted
 * beneficiary must be untrusted first, `409 BENEFICIARY_TRUSTED`). External accounts import no
 * guard; each registers here when its area loads (the composition root lists it).
 *
 * A module of its own with type-only imports, so the list exists before any guard registers.
 */
export type ExternalAccountDeletionGuard = (ctx: SandboxContext, platformId: string, externalAccountId: string) => void;

export const deletionGuards: ExternalAccountDeletionGuard[] = [];

/** Registers an {@link ExternalAccountDeletionGuard} (at module load of the area that owns the rule). */
export function registerExternalAccountDeletionGuard(guard: ExternalAccountDeletionGuard): void {
  deletionGuards.push(guard);
}
