import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.js';
import { allMigrations } from '../../src/index.js';
import { createContext } from '../../src/store/context.js';

// Group commit (src/store/context.ts): the transactions of a turn share one SQLite transaction.
// Its commit comes at the end of the turn, put off one turn at a time while other transactions
// keep joining (a loaded server's next requests), at most four turns.
const dir = mkdtempSync(join(tmpdir(), 'sbx-group-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

function context(name: string) {
  const ctx = createContext({ db: join(dir, `${name}.db`), logger: silentLogger, migrations: allMigrations });
  ctx.db.exec('CREATE TABLE probe (n INTEGER NOT NULL)');
  const write = (n: number) => ctx.tx(() => ctx.db.prepare('INSERT INTO probe (n) VALUES (?)').run(n));
  return { ctx, write };
}

describe('group commit', () => {
  it('a lone transaction commits at the end of its own turn', async () => {
    const { ctx, write } = context('lone');
    write(1);
    const committed = ctx.committed();
    expect(committed).toBeInstanceOf(Promise);
    expect(ctx.db.inTransaction).toBe(true);
    await turn();
    expect(ctx.db.inTransaction).toBe(false);
    await committed;
    expect(ctx.committed()).toBeUndefined();
    await ctx.close();
  });

  it('a transaction with others nested in it commits one turn later, never more', async () => {
    const { ctx, write } = context('nested');
    ctx.tx(() => {
      write(1);
      write(2);
      ctx.tx(() => write(3));
    });
    await turn();
    expect(ctx.db.inTransaction).toBe(true); // the nested calls count as joining: put off once
    await turn();
    expect(ctx.db.inTransaction).toBe(false);
    expect(ctx.db.prepare('SELECT COUNT(*) FROM probe').pluck().get()).toBe(3);
    await ctx.close();
  });

  it('waits a turn while transactions join, commits once a turn brings none, and waits at most four turns', async () => {
    const { ctx, write } = context('joined');
    write(1);
    write(2); // joins in the same turn
    await turn();
    expect(ctx.db.inTransaction).toBe(true); // put off: one joined
    await turn();
    expect(ctx.db.inTransaction).toBe(false); // none joined in that turn: committed
    expect(ctx.db.prepare('SELECT COUNT(*) FROM probe').pluck().get()).toBe(2);

    // A transaction joining every turn: committed after the fourth turn put off, whatever comes.
    write(10);
    let turns = 0;
    while (ctx.db.inTransaction && turns < 20) {
      write(11 + turns);
      await turn();
      turns += 1;
    }
    expect(turns).toBe(5);
    expect(ctx.db.inTransaction).toBe(false);
    await ctx.close();
  });

  describe('a transaction that makes its checks first (checksFirst)', () => {
    const count = (ctx: ReturnType<typeof context>['ctx']) => ctx.db.prepare('SELECT COUNT(*) FROM probe').pluck().get();

    it('joins the open group: its writes commit with the group', async () => {
      const { ctx, write } = context('checks-first');
      write(1);
      ctx.tx(() => ctx.db.prepare('INSERT INTO probe (n) VALUES (?)').run(2), { checksFirst: true });
      const committed = ctx.committed();
      await turn();
      await turn();
      await committed;
      expect(count(ctx)).toBe(2);
      await ctx.close();
    });

    it('a refusal before any write leaves the group and its other transactions as they were', async () => {
      const { ctx, write } = context('checks-first-refused');
      write(1);
      expect(() => ctx.tx(() => {
        throw new Error('refused before writing');
      }, { checksFirst: true })).toThrow('refused before writing');
      write(2);
      const committed = ctx.committed();
      await turn();
      await turn();
      await expect(committed).resolves.toBeUndefined();
      expect(count(ctx)).toBe(2);
      await ctx.close();
    });

    it('a failure after writing rolls back its whole group, rejects every waiter, and the next group commits', async () => {
      const { ctx, write } = context('checks-first-doomed');
      write(1);
      const before = ctx.committed()!;
      expect(() => ctx.tx(() => {
        ctx.db.prepare('INSERT INTO probe (n) VALUES (?)').run(2);
        throw new Error('a fault after the first write');
      }, { checksFirst: true })).toThrow('a fault after the first write');
      // No savepoint was rolled back: its write is still there, until the group's rollback.
      expect(count(ctx)).toBe(2);
      write(3); // joins the doomed group: rolled back with it
      const after = ctx.committed()!;
      expect(after).toBe(before);
      await expect(before).rejects.toThrow(/rolled back: a transaction in it failed after writing \(a fault after the first write\)/);
      expect(ctx.db.inTransaction).toBe(false);
      expect(count(ctx)).toBe(0); // nothing half-written: none of the group's writes stayed

      write(4);
      await expect(ctx.committed()).resolves.toBeUndefined();
      expect(count(ctx)).toBe(1);
      await ctx.close();
    });

    it('opening the group, it keeps the usual rollback; nested, a failure before writing lets the caller go on', async () => {
      const { ctx, write } = context('checks-first-nested');
      // Opening the group: a failure rolls back the group, which holds only its own writes.
      expect(() => ctx.tx(() => {
        write(1);
        throw new Error('first of the turn');
      }, { checksFirst: true })).toThrow('first of the turn');
      expect(ctx.db.inTransaction).toBe(false);
      // Nested, no savepoint of its own: a refusal before its first write (a ledger posting's
      // insufficient funds) leaves the caller's writes as they were, and the caller goes on.
      ctx.tx(() => {
        write(2);
        try {
          ctx.tx(() => {
            throw new Error('refused before writing');
          }, { checksFirst: true });
        } catch {
          // the caller goes on
        }
        write(4);
      });
      await turn();
      await turn();
      await ctx.committed();
      expect(ctx.db.prepare('SELECT n FROM probe ORDER BY n').pluck().all()).toEqual([2, 4]);
      await ctx.close();
    });

    it('nested, a failure after writing dooms the group even when the caller catches it', async () => {
      const { ctx, write } = context('checks-first-nested-fault');
      ctx.tx(() => write(1)); // opens the group
      ctx.tx(() => {
        write(2);
        try {
          ctx.tx(() => {
            write(3);
            throw new Error('a fault after writing');
          }, { checksFirst: true });
        } catch {
          // the caller goes on, but what the inner call wrote cannot be undone alone
        }
        write(4);
      });
      await expect(ctx.committed()).rejects.toThrow(/rolled back: a transaction in it failed after writing \(a fault after writing\)/);
      expect(ctx.db.prepare('SELECT n FROM probe ORDER BY n').pluck().all()).toEqual([]);
      await ctx.close();
    });
  });
  // Jobs run in the context's transactions (src/store/jobs.ts): the jobs due at one time share a
  // commit group instead of committing one by one, and a job that fails undoes only its own writes.
  it('jobs due together run in one commit group; a failing one is rolled back alone and dropped', async () => {
    const { ctx, write } = context('jobs');
    // No timer: the jobs run when the test says.
    ctx.scheduler.stop();
    ctx.scheduler.register('probe-write', (job) => write((job.payload as { n: number }).n));
    ctx.scheduler.register('probe-fail', () => {
      write(-1);
      throw new Error('job failed on purpose');
    });
    ctx.tx(() => {
      ctx.scheduler.schedule('p', 'probe-write', 0, { n: 1 });
      ctx.scheduler.schedule('p', 'probe-fail', 0, {});
      ctx.scheduler.schedule('p', 'probe-write', 0, { n: 2 });
    });
    await turn();
    await ctx.committed();
    ctx.scheduler.runDueNow();
    // Still open: the three ran in one group (each committing on its own would have closed it);
    // the failing one was a savepoint in it.
    expect(ctx.db.inTransaction).toBe(true);
    await turn();
    await ctx.committed();
    expect(ctx.db.inTransaction).toBe(false);
    expect(ctx.db.prepare('SELECT n FROM probe ORDER BY n').pluck().all()).toEqual([1, 2]);
    expect(ctx.db.prepare("SELECT COUNT(*) FROM jobs WHERE kind LIKE 'probe-%'").pluck().get()).toBe(0);
    await ctx.close();
  });
});
