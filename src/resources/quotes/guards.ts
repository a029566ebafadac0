import type { SandboxContext } from '../../store/context.js';
import type { Platform } from '../../tenancy/index.js';

/**
 * The extension point of quotes for the guards that stand in front of them: SCA authorizes a
 * send, wallet signatures pay from an embedded wallet, agent policies decide the payments their
 * agents left pending. Quotes imports none of them; each guard registers here when its area
 * loads (the composition root, src/index.ts, lists it), as wallet signatures do with cards
 * (cards/guards.ts).
 *
 * A module of its own with type-only imports, so the list exists before any guard registers.
 */

/** What a quote tells its authorization guard (SCA, issue 14) about a send that is about to move money. */
export interface QuoteAuthorizationRequest {
  quoteId: string;
  /** The customer on whose behalf the money moves; null for the platform's own. */
  customerId: string | null;
  /** `CREATE`: a real-time-funded quote (instructions withheld); `EXECUTE`: a pre-funded send. */
  phase: 'CREATE' | 'EXECUTE';
  crossCurrency: boolean;
  /** The destination external account, when there is one (trusted beneficiaries skip the challenge). */
  externalAccountId?: string | undefined;
  /** The destination is an internal account of the same customer (a transfer between own accounts). */
  ownAccount: boolean;
  /** The factor the request asked for (`scaFactor`). */
  preferredFactor?: 'SMS_OTP' | 'TOTP' | 'PASSKEY' | undefined;
  /**
   * Whether the send needs a live SCA session now: on execute, yes; on create (a real-time quote,
   * or `immediatelyExecute`, where `POST /quotes` has no 409) the authorization needs it instead.
   */
  sessionRequired: boolean;
  /**
   * The caller's own refusals that come after the guard's and before any write: the guard calls
   * it once its checks pass and before it writes a challenge (a quote makes all its checks before
   * its first write: it joins a commit group without a savepoint).
   */
  beforeChallenge?: () => void;
}

/** A payment from an embedded wallet that a quote draws on. */
export interface WalletPayment {
  quoteId: string;
  accountId: string;
  amount: number;
  currency: string;
  /** The wallet's Spark address (its funding instructions). */
  sparkAddress: string;
}

/** Each hook is optional; a guard fills in the points it stands at. */
export interface QuoteGuard {
  /**
   * `POST /quotes` and `POST /quotes/{id}/execute`: the challenge a send must answer before any
   * money moves (the quote waits in PENDING_AUTHORIZATION), or undefined to let it through. May
   * throw the guard's own refusal, before it writes anything; writes only the challenge it returns,
   * calling `request.beforeChallenge` first. Called at creation for a real-time-funded quote
   * (after pricing), at execution once the quote is found claimable (before it is claimed).
   */
  requireAuthorization?(ctx: SandboxContext, platform: Platform, request: QuoteAuthorizationRequest): Record<string, unknown> | undefined;
  /** `POST /quotes` drawn on an embedded wallet: the payment instructions it is paid by (a `payloadToSign` to stamp). */
  walletInstructions?(ctx: SandboxContext, platform: Platform, payment: WalletPayment): Record<string, unknown>[];
  /**
   * `POST /quotes/{id}/execute` drawn on an embedded wallet, before the quote is claimed: throws
   * unless `walletSignature` is a stamp over `payloadToSign` by the wallet's session.
   */
  authorizeWalletPayment?(ctx: SandboxContext, accountId: string, payloadToSign: string, walletSignature: string | undefined): void;
  /**
   * `POST /transactions/{id}/approve` and `/reject`: decides a payment this guard holds pending
   * (an agent's action awaiting the platform), returning the transaction as it now is; undefined
   * when the transaction is not one of its own (the transactions area then decides it).
   */
  decidePendingPayment?(ctx: SandboxContext, platform: Platform, transactionId: string, decision: 'APPROVE' | 'REJECT', reason?: string): Record<string, unknown> | undefined;
}

/** The registered guards, in registration order. */
export const quoteGuards: QuoteGuard[] = [];

/** Registers a {@link QuoteGuard} (at module load of the area that owns the rule). */
export function registerQuoteGuard(guard: QuoteGuard): void {
  quoteGuards.push(guard);
}
