import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';

// POST /_sandbox/seed (the benchmark's data set, made through the services), on a file database so
// group commit is on: three batches of customers and the fundings, all found through the lists
// afterwards, nothing left uncommitted. (Its speed is the benchmark's: each batch a transaction of
// its own, not a savepoint nested in the group the previous one left open.)
const dir = mkdtempSync(join(tmpdir(), 'sbx-seed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const s = useSandbox({ db: join(dir, 'seed.db') });

describe('POST /_sandbox/seed', () => {
  it('makes the customers and fundings asked for, in batches each committed, found through the lists', async () => {
    const before = (await s.api.get('/customers?limit=1')).body.totalCount as number;
    const db = s.sandbox.context.db;
    const res = await s.api.post('/_sandbox/seed', { customers: 11_000, transactions: 300 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ customers: 11_000, transactions: 300 });
    expect(db.inTransaction).toBe(false);
    const prefix = res.body.platformCustomerIdPrefix as string;
    // 11,000 seeded and 100 payees for the fundings.
    expect((await s.api.get('/customers?limit=1')).body.totalCount).toBe(before + 11_100);
    for (const n of [0, 5_000, 10_999]) {
      const found = await s.api.get(`/customers?platformCustomerId=${encodeURIComponent(`${prefix}${n}`)}`);
      expect(found.body.data.map((c: { fullName: string }) => c.fullName), String(n)).toEqual([`Seed Customer ${n}`]);
    }
    const fundings = await s.api.get('/transactions?type=INCOMING&status=COMPLETED&limit=1');
    expect(fundings.body.totalCount).toBeGreaterThanOrEqual(300);
  }, 60_000);
});
