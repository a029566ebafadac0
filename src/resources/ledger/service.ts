import { perContext } from '../../core/per-context.js';
import { ApiError } from '../../core/errors.js';
import type { SandboxContext } from '../../store/context.js';
import { LedgerRepo, type EntryRow } from './repo.js';

/**
 * Where an internal account's money sits. `available` is spendable (`balance`); `held` is
 * reserved for a pending outgoing movement; `incoming` is arriving but not settled. The
 * contract's `totalBalance` is the sum of the three.
 */
export type Bucket = 'available' | 'held' | 'incoming';

/** One leg of a posting: `amount` is signed (credit +, debit -) in the smallest unit. */
export interface Leg {
  account: string;
  currency: string;
  amount: number;
}

/** The ledger account of an internal account's bucket. */
export function bucketOf(accountId: string, bucket: Bucket = 'available'): string {
  return bucket === 'available' ? accountId : `${accountId}#${bucket}`;
}

/** The outside world in one currency: the other side of money that enters or leaves the sandbox. */
export function worldAccount(currency: string): string {
  return `world:${currency}`;
}

const repoOf = perContext((ctx: SandboxContext) => new LedgerRepo(ctx.db));

/** `400 INVALID_AMOUNT` for a debit the available balance does not cover (the contract has no narrower code). */
export function insufficientFunds(accountId: string, available: number, requested: number, currency: string): ApiError {
  return new ApiError(400, 'INVALID_AMOUNT', `Insufficient balance in ${accountId}: ${available} ${currency} available, ${requested} requested.`, {
    reason: 'INSUFFICIENT_FUNDS',
    accountId,
    available,
    requested,
    currency,
  });
}

/**
 * Records one balanced posting. Runs inside the caller's transaction and makes its checks before
 * its first write (`checksFirst`: no savepoint of its own, issue 26): each currency nets to zero,
 * and no account but the world's goes below zero at any leg, the legs applied in order (as the
 * balances' CHECK sees them); a refused posting writes nothing.
 */
export function post(ctx: SandboxContext, platformId: string, reference: string, legs: readonly Leg[]): string {
  const net = new Map<string, number>();
  for (const leg of legs) {
    if (!Number.isSafeInteger(leg.amount)) throw new Error(`ledger: ${leg.amount} is not an integer amount`);
    net.set(leg.currency, (net.get(leg.currency) ?? 0) + leg.amount);
  }
  for (const [currency, total] of net) {
    if (total !== 0) throw new Error(`ledger: posting ${reference} does not balance in ${currency} (${total})`);
  }
  const repo = repoOf(ctx);
  const postingId = ctx.ids.next('Posting');
  const createdAt = ctx.clock.iso();
  ctx.tx(() => {
    // Each debit against the balance after the legs before it: the stored balance (read once per
    // debited account) plus what this posting's earlier legs moved.
    const stored = new Map<string, number>();
    const moved = new Map<string, number>();
    for (const leg of legs) {
      if (leg.account.startsWith('world:')) continue;
      const before = moved.get(leg.account) ?? 0;
      moved.set(leg.account, before + leg.amount);
      if (leg.amount >= 0) continue;
      let balance = stored.get(leg.account);
      if (balance === undefined) stored.set(leg.account, (balance = repo.balance(leg.account)));
      if (balance + before + leg.amount < 0) throw insufficientFunds(leg.account.split('#')[0]!, balance + before, -leg.amount, leg.currency);
    }
    for (const leg of legs) repo.append(platformId, postingId, reference, leg.account, leg.currency, leg.amount, createdAt);
    if (balanceListeners.length) {
      const touched = [...new Set(legs.filter((leg) => !leg.account.startsWith('world:')).map((leg) => leg.account.split('#')[0]!))];
      for (const listener of balanceListeners) listener(ctx, platformId, touched);
    }
  }, { checksFirst: true });
  return postingId;
}

/** Told, inside the posting's transaction, which accounts (bucket suffixes stripped) a posting changed. */
export type BalanceListener = (ctx: SandboxContext, platformId: string, accountIds: readonly string[]) => void;

const balanceListeners: BalanceListener[] = [];

/**
 * Registers a listener for balance changes (the internal accounts area sends
 * `INTERNAL_ACCOUNT.BALANCE_UPDATED` from it). Call it once, at module top level.
 */
export function onBalanceChange(listener: BalanceListener): void {
  if (!balanceListeners.includes(listener)) balanceListeners.push(listener);
}

/** Moves `amount` from one ledger account to another in one currency. */
export function move(ctx: SandboxContext, platformId: string, reference: string, from: string, to: string, currency: string, amount: number): string {
  return post(ctx, platformId, reference, [
    { account: from, currency, amount: -amount },
    { account: to, currency, amount },
  ]);
}

/** Balance of one ledger account. */
export function ledgerBalance(ctx: SandboxContext, account: string): number {
  return repoOf(ctx).balance(account);
}

/** An internal account's balances: `available` (spendable) and `total` (with held and incoming funds). */
export function accountBalances(ctx: SandboxContext, accountId: string): { available: number; total: number } {
  const repo = repoOf(ctx);
  const available = repo.balance(accountId);
  return { available, total: available + repo.balance(bucketOf(accountId, 'held')) + repo.balance(bucketOf(accountId, 'incoming')) };
}

/** Every entry written under a reference (a transaction id), oldest first. */
export function entriesOf(ctx: SandboxContext, platformId: string, reference: string): EntryRow[] {
  return repoOf(ctx).entries(platformId, reference);
}

/**
 * The ledger's own invariants for a platform: every currency nets to zero, and every running
 * balance equals the sum of its entries. Returns the problems found (none when sound).
 */
export function auditLedger(ctx: SandboxContext, platformId: string): string[] {
  const repo = repoOf(ctx);
  const problems: string[] = [];
  for (const { currency, total } of repo.sums(platformId)) if (total !== 0) problems.push(`${currency} nets to ${total}`);
  const { balances, entrySums } = repo.audit(platformId);
  const sums = new Map(entrySums.map((e) => [e.account, e.amount]));
  for (const b of balances) {
    if (sums.get(b.account) !== b.amount) problems.push(`${b.account}: balance ${b.amount} but entries sum to ${sums.get(b.account)}`);
    if (b.amount < 0 && !b.account.startsWith('world:')) problems.push(`${b.account} is negative (${b.amount})`);
  }
  return problems;
}

/** Wipes a platform's ledger (sandbox reset only). */
export function removePlatformLedger(ctx: SandboxContext, platformId: string): void {
  repoOf(ctx).removePlatform(platformId);
}
