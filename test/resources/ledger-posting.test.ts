import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.js';
import { allMigrations } from '../../src/index.js';
import { entriesOf, ledgerBalance, post, worldAccount } from '../../src/resources/ledger/index.js';
import { createContext } from '../../src/store/context.js';

const dir = mkdtempSync(join(tmpdir(), 'service-sandbox-ledger-'));
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A posting makes its checks before its first write (no savepoint of its own, issue 26): the
 * legs are checked in order, as the balances' CHECK would see them, and a refused posting
 * writes nothing, alone or nested in a caller's transaction that goes on after the refusal.
 * Both with group commit (a file database) and without (in memory).
 */
describe.each([
  ['file database, group commit', () => join(dir, `${Math.random().toString(36).slice(2)}.db`)],
  ['in memory', () => ':memory:'],
])('ledger postings (%s)', (_name, dbOf) => {
  const setup = () => {
    const ctx = createContext({ db: dbOf(), logger: silentLogger, migrations: allMigrations });
    const fund = (account: string, amount: number) => ctx.tx(() => post(ctx, 'p', `fund-${account}`, [
      { account: worldAccount('USD'), currency: 'USD', amount: -amount },
      { account, currency: 'USD', amount },
    ]));
    return { ctx, fund };
  };

  it('checks each leg after the legs before it: a credit first covers a later debit of the same account', async () => {
    const { ctx, fund } = setup();
    fund('A', 60);
    ctx.tx(() => post(ctx, 'p', 'credit-then-debit', [
      { account: 'A', currency: 'USD', amount: 100 },
      { account: 'A', currency: 'USD', amount: -150 },
      { account: 'B', currency: 'USD', amount: 50 },
    ]));
    await ctx.committed();
    expect(ledgerBalance(ctx, 'A')).toBe(10);
    expect(ledgerBalance(ctx, 'B')).toBe(50);
    await ctx.close();
  });

  it('refuses a debit the balance does not cover at its leg, even when a later credit would, and writes nothing', async () => {
    const { ctx, fund } = setup();
    fund('A', 60);
    expect(() => ctx.tx(() => post(ctx, 'p', 'debit-then-credit', [
      { account: 'A', currency: 'USD', amount: -150 },
      { account: 'A', currency: 'USD', amount: 100 },
      { account: 'B', currency: 'USD', amount: 50 },
    ]))).toThrow(expect.objectContaining({ code: 'INVALID_AMOUNT', details: expect.objectContaining({ reason: 'INSUFFICIENT_FUNDS', accountId: 'A', available: 60, requested: 150 }) }));
    await expect(ctx.committed() ?? Promise.resolve()).resolves.toBeUndefined();
    expect(ledgerBalance(ctx, 'A')).toBe(60);
    expect(entriesOf(ctx, 'p', 'debit-then-credit')).toEqual([]);
    await ctx.close();
  });

  it('nested in a transaction that catches the refusal, the caller goes on and its writes are kept', async () => {
    const { ctx, fund } = setup();
    fund('A', 60);
    const outcome = ctx.tx(() => {
      post(ctx, 'p', 'first', [{ account: 'A', currency: 'USD', amount: -40 }, { account: 'B', currency: 'USD', amount: 40 }]);
      try {
        post(ctx, 'p', 'second', [{ account: 'A', currency: 'USD', amount: -40 }, { account: 'B', currency: 'USD', amount: 40 }]);
        return 'moved twice';
      } catch {
        return 'refused the second';
      }
    });
    expect(outcome).toBe('refused the second');
    await turn();
    await (ctx.committed() ?? Promise.resolve());
    expect([ledgerBalance(ctx, 'A'), ledgerBalance(ctx, 'B')]).toEqual([20, 40]);
    expect(entriesOf(ctx, 'p', 'second')).toEqual([]);
    await ctx.close();
  });
});
