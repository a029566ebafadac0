import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/index.js';
import { Api, everyPage, individual, queryPlan, recordPrepared } from '../helpers/sandbox.js';

// internal-accounts-perf-003: the customers' accounts of every currency, or of one type, are read
// as one range of the currency index per currency (those the maintained counts hold), merged in
// creation order. Checked against each customer's own accounts (the owner index), page by page,
// and again in a sandbox that imported the first one's snapshot.

interface Account {
  id: string;
  customerId: string;
  type: string;
  balance: { currency: { code: string } };
}

describe('internal accounts: lists over several currencies', () => {
  it('pages every currency, and each type, in creation order with exact counts; the merged SQL reads index ranges only; the same after a snapshot import', async () => {
    const sandbox = await startSandbox();
    const target = await startSandbox();
    try {
      const api = new Api(sandbox);
      const db = sandbox.context.db;
      const recording = recordPrepared(db, (sql) => sql.includes(' UNION ALL '));

      const customers: string[] = [];
      for (const currencies of [['USD', 'EUR', 'USDC'], ['USDB', 'USD'], [], ['MXN', 'BTC'], ['EUR']]) {
        const res = await api.post('/customers', individual(currencies));
        expect(res.status).toBe(201);
        customers.push(res.body.id);
      }
      const owned: Account[] = [];
      for (const id of customers) owned.push(...(await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(id)}&limit=100`)).body.data);
      // Creation order is id order (UUIDv7 from one generator).
      const expected = owned.map((account) => account.id).sort();
      expect(new Set(owned.map((a) => a.balance.currency.code)).size).toBeGreaterThan(5);

      const all = await everyPage(api, '/customers/internal-accounts', 4);
      expect(all.ids).toEqual(expected);
      expect(all.totalCount).toBe(expected.length);
      for (const type of ['INTERNAL_FIAT', 'INTERNAL_CRYPTO', 'EMBEDDED_WALLET']) {
        const ofType = owned.filter((account) => account.type === type).map((account) => account.id).sort();
        expect(ofType.length, type).toBeGreaterThan(0);
        const page = await everyPage(api, `/customers/internal-accounts?type=${type}`, 2);
        expect(page.ids, type).toEqual(ofType);
        expect(page.totalCount, type).toBe(ofType.length);
      }
      const eur = await everyPage(api, '/customers/internal-accounts?currency=EUR', 1);
      expect(eur.ids).toEqual(owned.filter((a) => a.balance.currency.code === 'EUR').map((a) => a.id).sort());
      // The platform's own accounts are not in the customers' list.
      const platformOwn = (await api.get('/platform/internal-accounts')).body.data as Account[];
      expect(platformOwn.length).toBeGreaterThan(0);
      for (const account of platformOwn) expect(all.ids).not.toContain(account.id);

      recording.stop();
      expect(recording.seen.size).toBeGreaterThan(0);
      for (const sql of recording.seen) {
        const plan = queryPlan(db, sql);
        expect(plan, sql).toContain('MERGE (UNION ALL)');
        const tables = plan.filter((detail) => /^(SCAN|SEARCH) /.test(detail));
        expect(tables.length, sql).toBeGreaterThan(1);
        for (const detail of tables) expect(detail, sql).toMatch(/^SEARCH internal_accounts USING INDEX internal_accounts_by_currency \(platform=\? AND currency=\?/);
        expect(plan.filter((detail) => detail.includes('TEMP B-TREE')), sql).toEqual([]);
      }

      // The maintained counts are those of the rows, in this sandbox and in one that imported its snapshot.
      const counts = `SELECT platform_owned, currency, type, n FROM internal_account_counts WHERE n > 0 ORDER BY 1, 2, 3`;
      const recount = `SELECT customer_id IS NULL, currency,
        CASE currency WHEN 'USDB' THEN 'EMBEDDED_WALLET' WHEN 'USDC' THEN 'INTERNAL_CRYPTO' WHEN 'BTC' THEN 'INTERNAL_CRYPTO' WHEN 'USDT' THEN 'INTERNAL_CRYPTO' ELSE 'INTERNAL_FIAT' END, COUNT(*)
        FROM internal_accounts GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`;
      expect(db.prepare(counts).raw().all()).toEqual(db.prepare(recount).raw().all());
      const snapshot = (await api.get('/_sandbox/snapshot')).body;
      const into = new Api(target);
      expect((await into.post('/_sandbox/snapshot', snapshot)).status).toBe(200);
      expect(target.context.db.prepare(counts).raw().all()).toEqual(db.prepare(counts).raw().all());
      expect(await everyPage(into, '/customers/internal-accounts', 5)).toEqual(all);
      expect((await everyPage(into, '/customers/internal-accounts?type=INTERNAL_CRYPTO', 50)).totalCount).toBe(owned.filter((a) => a.type === 'INTERNAL_CRYPTO').length);
    } finally {
      await sandbox.close();
      await target.close();
    }
  });
});
