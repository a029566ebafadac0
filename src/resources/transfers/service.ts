import { ApiError, ErrorCode, notFound } from '../../core/errors.js';
import { currencyOf, type Currency } from '../../core/money.js';
import type { SandboxContext } from '../../store/context.js';
import { TRANSFER_IN_DEFAULT_AMOUNT, transferInRules, transferOutcomeOf, transferOutRules, type TransferOutcome } from '../../rules/transfer-rules.js';
import { recordRule } from '../../store/coverage.js';
import { assertCustomerCanMoveMoney, type CustomerRecord } from '../customers/index.js';
import { getExternalAccountFor, primaryIdentifierSuffix, type ExternalAccount } from '../external-accounts/index.js';
import { internalAccountRepo, presentInternalAccount, type InternalAccountRow } from '../internal-accounts/index.js';
import { accountBalances, bucketOf, move, worldAccount } from '../ledger/index.js';
import type { Platform } from '../../tenancy/index.js';
import { getTransaction, recordTransaction, updateTransaction, type TransactionBody } from '../transactions/index.js';
import type { TransferInRequest, TransferOutRequest } from './schemas.js';

/** Job kind: a pending same-currency transfer reaches its final status. */
export const SETTLE_TRANSFER_JOB = 'transfer.settle';

const currencyInfo = (code: string): Currency => currencyOf(code) ?? { code, name: code, symbol: '', decimals: 2 };
const money = (amount: number, code: string) => ({ amount, currency: currencyInfo(code) });

/** Who a transaction on this account belongs to, in the contract's required fields. */
export interface AccountOwner {
  customerId: string;
  platformCustomerId: string;
}

/** An internal account of the platform, or `404 REFERENCE_NOT_FOUND` (another platform's id included). */
export function internalAccountOf(ctx: SandboxContext, platformId: string, id: string): InternalAccountRow {
  const row = internalAccountRepo(ctx).byId(platformId, id);
  if (!row) throw notFound('REFERENCE_NOT_FOUND', `No internal account ${id} on this platform.`);
  return row;
}

/**
 * The money-movement gate of an internal account: a customer's account needs End User Terms
 * consent (403) and an APPROVED KYC/KYB (403 USER_NOT_READY); a closed or frozen account moves
 * nothing. Platform-owned transactions carry the platform's id as `customerId`.
 */
export function ownerForMovement(ctx: SandboxContext, platform: Platform, account: InternalAccountRow): AccountOwner {
  return moverOf(ctx, platform, account).owner;
}

/** `ownerForMovement` with the customer it read (none for a platform account), for a caller that needs the customer too. */
export function moverOf(ctx: SandboxContext, platform: Platform, account: InternalAccountRow): { owner: AccountOwner; customer: CustomerRecord | undefined } {
  if (account.status !== 'ACTIVE') {
    throw new ApiError(400, ErrorCode.INVALID_INPUT, `Internal account ${account.id} is ${account.status} and cannot move money.`);
  }
  if (account.customer_id === null) return { owner: { customerId: platform.id, platformCustomerId: 'PLATFORM' }, customer: undefined };
  const customer = assertCustomerCanMoveMoney(ctx, platform, account.customer_id);
  return { owner: { customerId: customer.id, platformCustomerId: customer.platformCustomerId }, customer };
}

/**
 * The platform's per-currency limits: the currency must be configured and enabled for the
 * direction; below `minAmount` is `AMOUNT_OUT_OF_RANGE`, above `maxAmount`
 * `TRANSACTION_SIZE_LIMIT_EXCEEDED`.
 */
export function checkAmount(platform: Platform, currency: string, amount: number, direction: 'INCOMING' | 'OUTGOING'): void {
  const config = platform.config.supportedCurrencies.find((c) => c.currencyCode === currency);
  if (!config || !config.enabledTransactionTypes.includes(direction)) {
    throw new ApiError(400, 'INVALID_CURRENCY', `${currency} is not enabled for ${direction} transactions on this platform (see GET /config).`);
  }
  if (amount < config.minAmount) {
    throw new ApiError(400, 'AMOUNT_OUT_OF_RANGE', `${amount} is below the ${currency} minimum of ${config.minAmount}.`, {
      minAmount: config.minAmount,
      maxAmount: config.maxAmount,
    });
  }
  if (amount > config.maxAmount) {
    throw new ApiError(400, 'TRANSACTION_SIZE_LIMIT_EXCEEDED', `${amount} is above the ${currency} single-transaction maximum of ${config.maxAmount}.`, {
      minAmount: config.minAmount,
      maxAmount: config.maxAmount,
    });
  }
}

/** The amount a transfer-in without `amount` pulls: the sandbox default within the platform's limits for the currency. */
export function defaultTransferInAmount(platform: Platform, currency: string): number {
  const config = platform.config.supportedCurrencies.find((c) => c.currencyCode === currency);
  if (!config) return TRANSFER_IN_DEFAULT_AMOUNT;
  return Math.min(Math.max(TRANSFER_IN_DEFAULT_AMOUNT, config.minAmount), config.maxAmount);
}

/** An external account on the same side (customer or platform) as the internal account, in the same currency. */
function counterpartAccount(ctx: SandboxContext, platform: Platform, internal: InternalAccountRow, externalId: string, field: string): ExternalAccount {
  const external = getExternalAccountFor(ctx, platform.id, externalId, internal.customer_id === null ? 'platform' : 'customer');
  if (internal.customer_id !== null && external.customerId !== internal.customer_id) {
    throw new ApiError(400, ErrorCode.INVALID_INPUT, `External account ${externalId} belongs to another customer.`, {
      errors: [{ field, constraint: { rule: 'same-owner' }, message: 'Use an external account of the same customer as the internal account.' }],
    });
  }
  if (external.currency !== internal.currency) {
    throw new ApiError(400, 'INVALID_CURRENCY', `Same-currency transfers need one currency: ${internal.id} holds ${internal.currency}, ${externalId} is ${external.currency}. Use a quote for a cross-currency payment.`);
  }
  if (external.status !== 'ACTIVE' && external.status !== 'PENDING_OWNERSHIP_VERIFICATION') {
    throw new ApiError(400, 'EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED', `External account ${externalId} is ${external.status}.`);
  }
  return external;
}

const railOf = (external: ExternalAccount, requested: string | undefined): string | undefined =>
  requested ?? (external.accountInfo.paymentRails as string[] | undefined)?.[0];

/**
 * Records a same-currency transfer in the contract's shape (amounts equal on both sides, no
 * fees) and, while it is pending, schedules its settlement by the suffix rule.
 */
function recordSameCurrency(
  ctx: SandboxContext,
  platform: Platform,
  t: {
    id: string;
    status: string;
    type: 'INCOMING' | 'OUTGOING';
    source: { id: string; currency: string };
    destination: { id: string; currency: string };
    owner: AccountOwner;
    amount: number;
    outcome: TransferOutcome;
    suffix: string;
    extra: Record<string, unknown>;
  },
): TransactionBody {
  const transaction = recordTransaction(ctx, platform.id, {
    id: t.id,
    status: t.status,
    type: t.type,
    direction: t.type === 'OUTGOING' ? 'DEBIT' : 'CREDIT',
    source: { sourceType: 'ACCOUNT', accountId: t.source.id, currency: t.source.currency },
    destination: { destinationType: 'ACCOUNT', accountId: t.destination.id, currency: t.destination.currency },
    ...t.owner,
    sentAmount: money(t.amount, t.source.currency),
    receivedAmount: money(t.amount, t.destination.currency),
    exchangeRate: 1,
    fees: 0,
    reconciliationInstructions: { reference: `SBX-${t.id.slice(-12).toUpperCase()}` },
    ...t.extra,
  });
  if (t.status === 'PENDING') {
    ctx.scheduler.schedule(platform.id, SETTLE_TRANSFER_JOB, t.outcome.delaySeconds! * 1000, { transactionId: transaction.id, suffix: t.suffix });
  }
  return transaction;
}

/**
 * `POST /transfer-out`: debits the internal account to an external one of the same currency.
 * The sandbox suffix of the destination decides the outcome; while pending, the amount is held
 * (counted in `totalBalance`, not `balance`). One transaction: check, debit or hold, record;
 * every refusal comes before the first write (`checksFirst`: no savepoint in a commit group).
 */
export function transferOut(ctx: SandboxContext, platform: Platform, request: TransferOutRequest): TransactionBody {
  return ctx.tx(() => {
    const source = internalAccountOf(ctx, platform.id, request.source.accountId);
    const owner = ownerForMovement(ctx, platform, source);
    const destination = counterpartAccount(ctx, platform, source, request.destination.accountId, 'destination.accountId');
    const amount = request.amount ?? accountBalances(ctx, source.id).available;
    checkAmount(platform, source.currency, amount, 'OUTGOING');
    const outcome = transferOutcomeOf(primaryIdentifierSuffix(destination));
    recordRule(ctx, platform.id, transferOutRules.of(primaryIdentifierSuffix(destination)));
    const rail = railOf(destination, request.destination.paymentRail);
    const id = ctx.ids.next('Transaction');
    const status = outcome.timing === 'later' ? 'PENDING' : outcome.outgoing.status;
    if (status !== 'FAILED') {
      // Completed: leaves at once. Pending: held until the outcome.
      move(ctx, platform.id, id, bucketOf(source.id), status === 'PENDING' ? bucketOf(source.id, 'held') : worldAccount(source.currency), source.currency, amount);
    }
    return recordSameCurrency(ctx, platform, {
      id, status, type: 'OUTGOING', source, destination, owner, amount, outcome, suffix: primaryIdentifierSuffix(destination),
      extra: {
        description: request.remittanceInformation ?? outcome.description,
        ...(rail ? { paymentRail: rail, railSelectionMode: request.destination.paymentRail ? 'MANUAL' : 'AUTO' } : {}),
        ...(status === 'FAILED' && outcome.outgoing.failureReason ? { failureReason: outcome.outgoing.failureReason } : {}),
        ...(request.purposeOfPayment ? { purposeOfPayment: request.purposeOfPayment } : {}),
      },
    });
  }, { checksFirst: true });
}

/**
 * `POST /transfer-in`: pulls from an external account into an internal one of the same
 * currency. Pending pulls sit in the account's incoming bucket (in `totalBalance` only).
 * Every refusal comes before the first write (`checksFirst`).
 */
export function transferIn(ctx: SandboxContext, platform: Platform, request: TransferInRequest): TransactionBody {
  return ctx.tx(() => {
    const destination = internalAccountOf(ctx, platform.id, request.destination.accountId);
    const owner = ownerForMovement(ctx, platform, destination);
    const source = counterpartAccount(ctx, platform, destination, request.source.accountId, 'source.accountId');
    const amount = request.amount ?? defaultTransferInAmount(platform, destination.currency);
    checkAmount(platform, destination.currency, amount, 'INCOMING');
    const outcome = transferOutcomeOf(primaryIdentifierSuffix(source));
    recordRule(ctx, platform.id, transferInRules.of(primaryIdentifierSuffix(source)));
    const id = ctx.ids.next('Transaction');
    const status = outcome.timing === 'later' ? 'PENDING' : outcome.incoming.status;
    if (status === 'PENDING' || status === 'COMPLETED') {
      move(ctx, platform.id, id, worldAccount(destination.currency), bucketOf(destination.id, status === 'PENDING' ? 'incoming' : 'available'), destination.currency, amount);
    }
    return recordSameCurrency(ctx, platform, {
      id, status, type: 'INCOMING', source, destination, owner, amount, outcome, suffix: primaryIdentifierSuffix(source),
      extra: {
        description: outcome.description,
        ...(status === 'FAILED' || status === 'REJECTED' ? { failureReason: outcome.incoming.failureReason } : {}),
      },
    });
  }, { checksFirst: true });
}

/** The scheduled end of a pending transfer: releases or settles the held (or incoming) amount. */
export function settleTransfer(ctx: SandboxContext, platformId: string, transactionId: string, suffix: string): void {
  const transaction = getTransaction(ctx, platformId, transactionId);
  if (transaction.status !== 'PENDING') return;
  const outcome = transferOutcomeOf(suffix);
  const amount = (transaction.sentAmount as { amount: number }).amount;
  if (transaction.type === 'OUTGOING') {
    const source = (transaction.source as { accountId: string; currency: string });
    const final = outcome.outgoing;
    move(ctx, platformId, transactionId, bucketOf(source.accountId, 'held'), final.status === 'COMPLETED' ? worldAccount(source.currency) : bucketOf(source.accountId), source.currency, amount);
    updateTransaction(ctx, platformId, transactionId, { status: final.status, ...(final.failureReason ? { failureReason: final.failureReason } : {}) });
  } else {
    const destination = (transaction.destination as { accountId: string; currency: string });
    const final = outcome.incoming;
    move(ctx, platformId, transactionId, bucketOf(destination.accountId, 'incoming'), final.status === 'COMPLETED' ? bucketOf(destination.accountId) : worldAccount(destination.currency), destination.currency, amount);
    updateTransaction(ctx, platformId, transactionId, { status: final.status, ...(final.failureReason ? { failureReason: final.failureReason } : {}) });
  }
}

/**
 * Credits an internal account at once in its own currency (USDB for the embedded wallet) and
 * records a COMPLETED incoming payment; returns that transaction. Its only refusals (the
 * account, its owner) come before the first write (`checksFirst`).
 */
export function fund(ctx: SandboxContext, platform: Platform, accountId: string, amount: number): TransactionBody {
  return ctx.tx(() => {
    const account = internalAccountOf(ctx, platform.id, accountId);
    const owner = ownerForMovement(ctx, platform, account);
    const id = ctx.ids.next('Transaction');
    move(ctx, platform.id, id, worldAccount(account.currency), bucketOf(account.id), account.currency, amount);
    return recordTransaction(ctx, platform.id, {
      id,
      status: 'COMPLETED',
      type: 'INCOMING',
      direction: 'CREDIT',
      source: { sourceType: 'REALTIME_FUNDING', currency: account.currency, ...(account.customer_id ? { customerId: account.customer_id } : {}), accountHolderName: 'Sandbox funding' },
      destination: { destinationType: 'ACCOUNT', accountId: account.id, currency: account.currency },
      ...owner,
      receivedAmount: money(amount, account.currency),
      fees: 0,
      description: 'Sandbox funding',
      reconciliationInstructions: { reference: `SBX-${id.slice(-12).toUpperCase()}` },
    });
  }, { checksFirst: true });
}

/** `POST /sandbox/internal-accounts/{id}/fund`: funds the account and answers it as the contract's InternalAccount. */
export function fundInternalAccount(ctx: SandboxContext, platform: Platform, accountId: string, amount: number): Record<string, unknown> {
  return ctx.tx(() => {
    fund(ctx, platform, accountId, amount);
    return presentInternalAccount(ctx, internalAccountOf(ctx, platform.id, accountId));
  }, { checksFirst: true });
}
