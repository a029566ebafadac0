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
});
