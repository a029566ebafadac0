import { ruleFamily } from './rule-ids.js';

/**
 * sandbox-rules.md, "Quotes whose destination is that account, after execution": the suffix of
 * the destination's primary identifier decides what happens. Each step is a scheduler job on
 * the sandbox clock, so tests advance the clock instead of sleeping.
 */

/** One step of a payout after execution. */
export type PayoutStep =
  | { kind: 'complete'; afterSeconds: number }
  | { kind: 'fail'; afterSeconds: number; failureReason: string; refund: 'COMPLETED' | 'FAILED'; refundReason: 'TRANSACTION_FAILED' | 'USER_CANCELLATION' }
  | { kind: 'return'; afterSeconds: number };

/** What execution does for a suffix: fail at once, or run the steps in order. */
export interface PayoutRule {
  description: string;
  failAtExecution?: { failureReason: string };
  steps: PayoutStep[];
}

/** Seconds an ordinary payout takes from PROCESSING to COMPLETED. */
export const ORDINARY_SETTLEMENT_SECONDS = 5;

/** Suffix -> rule; a rule is changed in one row. */
export const payoutRuleBySuffix: Readonly<Record<string, PayoutRule>> = {
  '002': { description: 'Execution fails (sandbox suffix 002)', failAtExecution: { failureReason: 'QUOTE_EXECUTION_FAILED' }, steps: [] },
  '003': { description: 'Long payment: completes after about 6 minutes (sandbox suffix 003)', steps: [{ kind: 'complete', afterSeconds: 360 }] },
  '004': {
    description: 'Counterparty delivery fails (sandbox suffix 004)',
    steps: [{ kind: 'fail', afterSeconds: ORDINARY_SETTLEMENT_SECONDS, failureReason: 'COUNTERPARTY_POST_TX_FAILED', refund: 'COMPLETED', refundReason: 'TRANSACTION_FAILED' }],
  },
  '005': {
    description: 'Completes, then the receiving bank returns it (sandbox suffix 005)',
    steps: [{ kind: 'complete', afterSeconds: ORDINARY_SETTLEMENT_SECONDS }, { kind: 'return', afterSeconds: 60 }],
  },
  '006': {
    description: 'Cancelled by the user (sandbox suffix 006)',
    steps: [{ kind: 'fail', afterSeconds: ORDINARY_SETTLEMENT_SECONDS, failureReason: 'QUOTE_EXECUTION_FAILED', refund: 'COMPLETED', refundReason: 'USER_CANCELLATION' }],
  },
  '007': {
    description: 'Payout fails and the refund fails too (sandbox suffix 007)',
    steps: [{ kind: 'fail', afterSeconds: ORDINARY_SETTLEMENT_SECONDS, failureReason: 'COUNTERPARTY_POST_TX_FAILED', refund: 'FAILED', refundReason: 'TRANSACTION_FAILED' }],
  },
};

/** Any other suffix succeeds. */
export const defaultPayoutRule: PayoutRule = {
  description: 'Cross-currency payment',
  steps: [{ kind: 'complete', afterSeconds: ORDINARY_SETTLEMENT_SECONDS }],
};

/** Rule ids of the payout suffixes (recorded when a quote to such an external account is executed). */
export const payoutRules = ruleFamily(
  'payouts',
  'payouts.suffix',
  {
    '002': 'Quote to an external account ending 002, executed: execution fails (QUOTE_EXECUTION_FAILED), nothing moves',
    '003': 'Quote to an account ending 003: long payment, PROCESSING, COMPLETED after 6 minutes',
    '004': 'Quote to an account ending 004: delivery fails after 5 s (COUNTERPARTY_POST_TX_FAILED), refunded',
    '005': 'Quote to an account ending 005: COMPLETED after 5 s, returned 60 s later (PAYOUT_RETURNED), refunded',
    '006': 'Quote to an account ending 006: cancelled by the user after 5 s (refund USER_CANCELLATION)',
    '007': 'Quote to an account ending 007: payout fails after 5 s and the refund fails too',
    other: 'Quote to an external account without a magic suffix: COMPLETED after 5 s',
  },
  payoutRuleBySuffix,
);

export function payoutRuleOf(suffix: string): PayoutRule {
  return payoutRuleBySuffix[suffix] ?? defaultPayoutRule;
}

/**
 * How long a quote locks its rate, by the destination's rail (API.md: 1 to 15 minutes by payment
 * type; the contract: instant rails 1 to 5 minutes, longer-settling corridors longer).
 */
export const lockSecondsByRail: Readonly<Record<string, number>> = {
  LIGHTNING: 60,
  SPARK: 60,
  CRYPTO: 120,
  RTP: 300,
  FEDNOW: 300,
  SEPA_INSTANT: 300,
  FASTER_PAYMENTS: 300,
  PIX: 300,
  SPEI: 300,
  UPI: 300,
  INSTAPAY: 300,
  PAYNOW: 300,
  FAST: 300,
  MOBILE_MONEY: 300,
  INTERNAL: 300,
  UMA: 300,
  ACH: 900,
  WIRE: 900,
  SEPA: 900,
  SWIFT: 900,
  BANK_TRANSFER: 900,
  NEFT: 900,
  RTGS: 900,
};

export const DEFAULT_LOCK_SECONDS = 600;

/** The service's own fee on a cross-currency payment: a variable rate plus a fixed part in the sending currency's smallest unit. */
export const SERVICE_VARIABLE_FEE_BPS = 30;
export const serviceFixedFeeByCurrency: Readonly<Record<string, number>> = { USD: 10, EUR: 10, GBP: 10, USDC: 100_000, USDB: 100_000, BTC: 20 };

/**
 * sandbox-rules.md, "UMA addresses": how a payment to a sandbox test address ends, by its
 * behaviour (the platform's own customers always succeed).
 */
export function umaPayoutRule(behaviour: 'SUCCEEDS' | 'PENDING_LONG' | 'FAILS_COMPLIANCE', pendingSeconds = 4 * 60 * 60): PayoutRule {
  switch (behaviour) {
    case 'PENDING_LONG':
      return { description: 'UMA payment that stays pending a long time (sandbox test address)', steps: [{ kind: 'complete', afterSeconds: pendingSeconds }] };
    case 'FAILS_COMPLIANCE':
      return { description: 'UMA payment that fails a compliance check (sandbox test address)', failAtExecution: { failureReason: 'COMPLIANCE_REJECTED' }, steps: [] };
    default:
      return { description: 'UMA payment', steps: [{ kind: 'complete', afterSeconds: ORDINARY_SETTLEMENT_SECONDS }] };
  }
}
