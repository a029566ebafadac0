import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/index.js';
import { Api, everyPage, individual, queryPlan, recordPrepared, unique } from '../helpers/sandbox.js';

// customers-perf-005: one index of (platform, customer type, deletion, id) serves the customer
// lists with no filter, with isIncludingDeleted and with a customerType, as the ranges they stand
// for merged in id order; the empty search of the control plane reads the live ranges the same
// way. Checked against what was created and deleted, page by page both ways, with exact counts,
// and again in a sandbox that imported the first one's snapshot (whose rows get their wire JSON
// written again range by range).

const business = () => ({
  customerType: 'BUSINESS',
  platformCustomerId: unique('biz'),
  businessInfo: { legalName: 'Acme Corporation', country: 'US', taxId: '47-1234567', incorporatedOn: '2018-03-14', registrationNumber: '5523041' },
});

/** Every id of a control-plane search, page by page in one order. */
async function searchAll(api: Api, order: 'asc' | 'desc', limit: number): Promise<{ ids: string[]; totalCount: number }> {
  const ids: string[] = [];
  let cursor: string | undefined;
  let totalCount = -1;
  for (let page = 0; page < 100; page += 1) {
    const res = await api.get(`/_sandbox/search/customers?q=&order=${order}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    if (page === 0) totalCount = res.body.totalCount;
    ids.push(...res.body.data.map((row: { id: string }) => row.id));
    if (!res.body.nextCursor) return { ids, totalCount };
    cursor = res.body.nextCursor;
  }
  throw new Error('too many pages');
}

describe('customers: lists over the kind index', () => {
  it('pages every customer, the live ones, each type and each type with the deleted ones, in id order with exact counts; the merged SQL reads index ranges only; the same after a snapshot import', async () => {
    const sandbox = await startSandbox();
    const target = await startSandbox();
    try {
      const api = new Api(sandbox);
      const db = sandbox.context.db;
      const recording = recordPrepared(db, (sql) => sql.includes('customers_list_kind') && sql.includes(' UNION ALL '));

      // Types interleaved, some of each deleted, so every merge takes turns between its ranges.
      const made: { id: string; type: string; deleted: boolean }[] = [];
      for (let i = 0; i < 14; i += 1) {
        const res = await api.post('/customers', i % 3 === 1 ? business() : individual(['USD']));
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        made.push({ id: res.body.id, type: res.body.customerType, deleted: false });
      }
      for (const i of [2, 4, 9, 12]) {
        expect((await api.delete(`/customers/${encodeURIComponent(made[i]!.id)}`)).status).toBe(200);
        made[i]!.deleted = true;
      }
      const ids = (keep: (c: (typeof made)[number]) => boolean) => made.filter(keep).map((c) => c.id).sort();
      expect(made.map((c) => c.id)).toEqual(ids(() => true)); // creation order is id order
      const cases: [string, string[]][] = [
        ['', ids((c) => !c.deleted)],
        ['isIncludingDeleted=true', ids(() => true)],
        ['customerType=BUSINESS', ids((c) => c.type === 'BUSINESS' && !c.deleted)],
        ['customerType=INDIVIDUAL&isIncludingDeleted=true', ids((c) => c.type === 'INDIVIDUAL')],
        [`createdAfter=2000-01-01T00:00:00Z`, ids((c) => !c.deleted)],
        [`createdAfter=2000-01-01T00:00:00Z&isIncludingDeleted=true`, ids(() => true)],
        [`currency=EUR&isIncludingDeleted=true`, ids((c) => c.type === 'BUSINESS')],
      ];
      const lists = new Map<string, { ids: string[]; totalCount: number }>();
      for (const [query, expected] of cases) {
        expect(expected.length, query).toBeGreaterThan(2);
        const list = await everyPage(api, `/customers?${query}`, 3);
        expect(list.ids, query).toEqual(expected);
        expect(list.totalCount, query).toBe(expected.length);
        lists.set(query, list);
      }
      const live = ids((c) => !c.deleted);
      const asc = await searchAll(api, 'asc', 4);
      expect(asc).toEqual({ ids: live, totalCount: live.length });
      expect((await searchAll(api, 'desc', 4)).ids).toEqual([...live].reverse());

      recording.stop();
      expect(recording.seen.size).toBeGreaterThan(3);
      for (const sql of recording.seen) {
        const plan = queryPlan(db, sql);
        const tables = plan.filter((detail) => /^(SCAN|SEARCH) (?!json_each|\(subquery)/.test(detail));
        expect(tables.length, sql).toBeGreaterThan(1);
        for (const detail of tables) expect(detail, `${sql}\n${plan.join('\n')}`).toMatch(/^SEARCH customers USING INDEX customers_list_kind \(<expr>=\? AND customer_type=\? AND is_deleted=\?/);
        if (!sql.startsWith('SELECT COUNT(*)') && !sql.startsWith('SELECT count(*)')) expect(plan, sql).toContain('MERGE (UNION ALL)');
        expect(plan.filter((detail) => detail.includes('TEMP B-TREE')), sql).toEqual([]);
      }

      const snapshot = (await api.get('/_sandbox/snapshot')).body;
      const into = new Api(target);
      expect((await into.post('/_sandbox/snapshot', snapshot)).status).toBe(200);
      for (const [query] of cases) {
        const list = await everyPage(into, `/customers?${query}`, 4);
        expect(list, query).toEqual(lists.get(query));
      }
      // Each restored row has its wire JSON again: a list page is what GET answers for each.
      const page = (await into.get('/customers?isIncludingDeleted=true&limit=50')).body.data as { id: string }[];
      for (const row of page) expect(row).toEqual((await into.get(`/customers/${encodeURIComponent(row.id)}`)).body);
      expect(await searchAll(into, 'asc', 5)).toEqual(asc);
    } finally {
      await sandbox.close();
      await target.close();
    }
  });
});
