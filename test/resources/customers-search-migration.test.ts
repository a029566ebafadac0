import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/index.js';
import { customerSearchMigrations } from '../../src/resources/customers/search.js';
import { Api } from '../helpers/sandbox.js';

// customers-perf-002 turned the search keys of customers-search-001 (text platform and customer
// ids, a kind name, an index by customer) into compact rows; customers-perf-004 replaces those rows
// and their triggers with expression indexes of customers. A database in the first shape answers
// the same searches after both migrations, and its keys keep following renames and deletions.
describe('customer search: migration to indexes of customers', () => {
  it('an older database answers the same searches, pages and counts, and keeps its keys current', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'search-migration-'));
    const file = join(dir, 'sandbox.db');
    try {
      let sandbox = await startSandbox({ db: file });
      let api = new Api(sandbox);
      const ids: string[] = [];
      for (const [name, email] of [['Mig Ada', 'mig.ada@example.com'], ['Mig Bob', 'bob@example.com'], ['Mig Cy', 'mig.cy@example.com'], ['Other Person', undefined]] as const) {
        const res = await api.post('/customers', { customerType: 'INDIVIDUAL', fullName: name, birthDate: '1990-01-15', nationality: 'US', platformCustomerId: `mig-${ids.length}`, ...(email ? { email } : {}) });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        ids.push(res.body.id);
      }
      expect((await api.delete(`/customers/${encodeURIComponent(ids[2]!)}`)).status).toBe(200);
      const queries = ['q=mig', 'q=MIG%20A', 'q=bob', 'q=mig&limit=1', 'q=mig&order=desc&limit=2', 'q=other', 'q=%24', 'q='];
      const answers = async () => {
        const out: unknown[] = [];
        for (const query of queries) {
          const page = await api.get(`/_sandbox/search/customers?${query}`);
          expect(page.status, query).toBe(200);
          const walk = [page.body.data, page.body.totalCount];
          for (let cursor = page.body.nextCursor, n = 0; cursor && n < 10; n += 1) {
            const next = await api.get(`/_sandbox/search/customers?${query}&cursor=${cursor}`);
            walk.push(next.body.data);
            cursor = next.body.nextCursor;
          }
          out.push(walk);
        }
        return out;
      };
      const before = await answers();
      expect((before[0] as unknown[][])[1]).toBe(3); // Ada, Bob and Other Person (platform customer ids mig-…); Cy is deleted
      await sandbox.close();

      // The database as customers-search-001 left it.
      const db = new Database(file);
      db.exec(`DROP INDEX customers_search_name; DROP INDEX customers_search_email; DROP INDEX customers_list_pcid; DROP INDEX customers_list_uma;
        CREATE INDEX customers_list_pcid ON customers (substr(platform_id, -8), platform_customer_id, id);
        CREATE INDEX customers_list_uma ON customers (substr(platform_id, -8), uma_address, id);`);
      for (const migration of customerSearchMigrations) db.exec(migration.sql);
      db.exec(`DELETE FROM schema_migrations WHERE id IN ('customers-perf-002', 'customers-perf-004');`);
      expect(db.prepare("SELECT COUNT(*) FROM pragma_table_info('customer_search') WHERE name = 'customer_id'").pluck().get()).toBe(1);
      db.close();

      sandbox = await startSandbox({ db: file });
      api = new Api(sandbox);
      try {
        expect(await answers()).toEqual(before);
        expect((await api.patch(`/customers/${encodeURIComponent(ids[1]!)}`, { customerType: 'INDIVIDUAL', fullName: 'Renamed Bob' })).status).toBe(200);
        expect((await api.get('/_sandbox/search/customers?q=mig%20b')).body.data).toEqual([]);
        expect((await api.get('/_sandbox/search/customers?q=renamed')).body.data.map((c: { id: string }) => c.id)).toEqual([ids[1]]);
        expect((await api.delete(`/customers/${encodeURIComponent(ids[0]!)}`)).status).toBe(200);
        expect((await api.get('/_sandbox/search/customers?q=mig')).body.data.map((c: { id: string }) => c.id)).toEqual([ids[1], ids[3]]);
      } finally {
        await sandbox.close();
      }
      // The key rows and their triggers are gone; the keys are indexes of customers.
      const after = new Database(file, { readonly: true });
      const names = after.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'customer_search%' OR name LIKE 'customers_search_%' ORDER BY name").pluck().all();
      expect(names).toEqual(['customers_search_email', 'customers_search_name']);
      after.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
