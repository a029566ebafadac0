import { ruleFamily } from './rule-ids.js';

/**
 * sandbox-rules.md, "Transfers in and out (`/transfer-in`, `/transfer-out`) using that
 * account": the suffix of the external account's primary identifier decides the outcome.
 */

/** How a same-currency transfer ends. */
export interface TransferOutcome {
  /** `now`: final at once; `later`: pending, then final after `delaySeconds` on the sandbox clock. */
  timing: 'now' | 'later';
  delaySeconds?: number;
  /** Final status of an outgoing transfer and an incoming one. */
  outgoing: { status: 'COMPLETED' | 'FAILED'; failureReason?: string };
  incoming: { status: 'COMPLETED' | 'FAILED' | 'REJECTED'; failureReason?: string };
  /** What the sandbox says happened, kept as the transaction's description. */
  description: string;
}

/** Suffix -> outcome. A rule is changed in one row. */
export const transferOutcomeBySuffix: Readonly<Record<string, TransferOutcome>> = {
  '002': {
    timing: 'now',
    outgoing: { status: 'FAILED', failureReason: 'QUOTE_EXECUTION_FAILED' },
    incoming: { status: 'FAILED', failureReason: 'COLLECTION_FAILED' },
    description: 'Insufficient funds at the external account (sandbox suffix 002)',
  },
  '003': {
    timing: 'now',
    outgoing: { status: 'FAILED', failureReason: 'ACCOUNT_INVALID' },
    incoming: { status: 'FAILED', failureReason: 'COLLECTION_FAILED' },
    description: 'External account closed or invalid (sandbox suffix 003)',
  },
  '004': {
    timing: 'now',
    outgoing: { status: 'FAILED', failureReason: 'ACCOUNT_CANNOT_RECEIVE' },
    incoming: { status: 'REJECTED', failureReason: 'COLLECTION_FAILED' },
    description: 'Rejected by the bank (sandbox suffix 004)',
  },
  '005': {
    timing: 'later',
    delaySeconds: 30,
    outgoing: { status: 'FAILED', failureReason: 'PAYOUT_RETURNED' },
    incoming: { status: 'FAILED', failureReason: 'COLLECTION_FAILED' },
    description: 'Pending about 30 s, then failed (sandbox suffix 005)',
  },
};

/** Any other suffix completes at once. */
export const defaultTransferOutcome: TransferOutcome = {
  timing: 'now',
  outgoing: { status: 'COMPLETED' },
  incoming: { status: 'COMPLETED' },
  description: 'Same-currency transfer',
};

/** Rule ids of the suffixes for `/transfer-out` (recorded when the transfer is made). */
export const transferOutRules = ruleFamily(
  'transfers',
  'transfers.out',
  {
    '002': 'POST /transfer-out to an account ending 002: FAILED at once (insufficient funds), nothing moves',
    '003': 'POST /transfer-out to an account ending 003: FAILED at once (account closed or invalid)',
    '004': 'POST /transfer-out to an account ending 004: rejected by the bank, FAILED',
    '005': 'POST /transfer-out to an account ending 005: PENDING (held) 30 s, then FAILED and released',
    other: 'POST /transfer-out to an account without a magic suffix: COMPLETED at once',
  },
  transferOutcomeBySuffix,
);

/** Rule ids of the suffixes for `/transfer-in` (recorded when the transfer is made). */
export const transferInRules = ruleFamily(
  'transfers',
  'transfers.in',
  {
    '002': 'POST /transfer-in from an account ending 002: FAILED at once (insufficient funds)',
    '003': 'POST /transfer-in from an account ending 003: FAILED at once (account closed or invalid)',
    '004': 'POST /transfer-in from an account ending 004: REJECTED by the bank',
    '005': 'POST /transfer-in from an account ending 005: PENDING 30 s, then FAILED',
    other: 'POST /transfer-in from an account without a magic suffix: COMPLETED at once',
  },
  transferOutcomeBySuffix,
);

/** The outcome for an account identifier suffix. */
export function transferOutcomeOf(suffix: string): TransferOutcome {
  return transferOutcomeBySuffix[suffix] ?? defaultTransferOutcome;
}

/**
 * `POST /transfer-in` without `amount` (the contract makes it optional and says nothing more):
 * the sandbox pulls this many smallest units (100.00 in a two-decimal currency), raised to the
 * platform's `minAmount` or lowered to its `maxAmount` for the currency when outside them.
 */
export const TRANSFER_IN_DEFAULT_AMOUNT = 10_000;
