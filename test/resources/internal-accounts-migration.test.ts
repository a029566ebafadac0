import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/index.js';
import { internalAccountMigrations } from '../../src/resources/internal-accounts/repo.js';
import { Api, individual } from '../helpers/sandbox.js';

// internal-accounts-perf-001 turns the table of the earlier migrations (text keys, six indexes,
// stored type) into compact rows. A database in the earlier shape, with customers, accounts of
// several currencies, balances, a closed account and the platform's own accounts, answers the
// same after the migration: every account, page by page, counts and balances.
const LEGACY = internalAccountMigrations.filter((m) => m.id === 'internal-accounts-001' || m.id === 'internal-accounts-lists-001');
const PERF_001 = internalAccountMigrations.find((m) => m.id === 'internal-accounts-perf-001')!;
// internal-accounts-perf-002 (ids as their UUID's bytes, a creation time the id says as NULL):
// the same database from either earlier shape, the text rows of the first or those of perf-001.
const uuidText = (prefix: string, bytes: Buffer | null) => {
  if (bytes === null) return null;
  const h = bytes.toString('hex');
  return `${prefix}${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

async function text(api: Api, path: string): Promise<string> {
  const auth = `Basic ${Buffer.from(`${api.clientId}:${api.clientSecret}`).toString('base64')}`;
  const res = await fetch(`${api.sandbox.baseUrl}${path}`, { headers: { Authorization: auth } });
  expect(res.status, path).toBe(200);
  return res.text();
}

describe('internal accounts: migration to compact rows', () => {
  it.each(['internal-accounts-lists-001', 'internal-accounts-perf-001'])('a database as %s left it reads back the same accounts, pages, counts and balances', async (shape) => {
    expect(LEGACY).toHaveLength(2);
    const dir = mkdtempSync(join(tmpdir(), 'ia-migration-'));
    const file = join(dir, 'sandbox.db');
    try {
      let sandbox = await startSandbox({ db: file });
      let api = new Api(sandbox);
      const customers: string[] = [];
      for (const currencies of [[], ['USD'], ['EUR', 'USDC', 'USDB'], []]) {
        const res = await api.post('/customers', individual(currencies));
        expect(res.status).toBe(201);
        customers.push(res.body.id);
      }
      const usd = (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customers[1]!)}`)).body.data[0];
      expect((await api.post(`/sandbox/internal-accounts/${encodeURIComponent(usd.id)}/fund`, { amount: 12_345 })).status).toBe(200);
      expect((await api.request('DELETE', `/customers/${encodeURIComponent(customers[3]!)}`)).status).toBeLessThan(300);
      expect((await api.get('/platform/internal-accounts')).status).toBe(200);
      const paths = [
        '/customers/internal-accounts?limit=7',
        '/customers/internal-accounts?currency=USD',
        '/customers/internal-accounts?type=INTERNAL_CRYPTO',
        '/customers/internal-accounts?type=EMBEDDED_WALLET',
        ...customers.map((id) => `/customers/internal-accounts?customerId=${encodeURIComponent(id)}`),
        '/platform/internal-accounts',
      ];
      const pages = async () => {
        const out: string[] = [];
        for (const path of paths) out.push(await text(api, path));
        // Every page of the whole list, through the cursors.
        for (let cursor: string | undefined, n = 0; n < 20; n += 1) {
          const page = JSON.parse(await text(api, `/customers/internal-accounts?limit=7${cursor ? `&cursor=${cursor}` : ''}`));
          out.push(JSON.stringify(page));
          if (!page.hasMore) break;
          cursor = page.nextCursor;
        }
        return out;
      };
      const before = await pages();
      await sandbox.close();

      // The database as the earlier migrations left it: their table, indexes and count triggers, the rows in it.
      const db = new Database(file);
      db.exec(`DROP TRIGGER IF EXISTS internal_account_counts_insert; DROP TRIGGER internal_account_counts_delete; DROP TRIGGER internal_account_counts_update;
        DROP TABLE internal_account_counts;
        ALTER TABLE internal_accounts RENAME TO compact;`);
      for (const migration of LEGACY) db.exec(migration.sql);
      const rows = db.prepare('SELECT c.*, p.id AS platform_id FROM compact c JOIN platforms p ON p.rowid = c.platform ORDER BY rid DESC').all() as { id: Buffer; customer_id: Buffer | null; created_at: string | null; updated_at: string | null }[];
      expect(rows.some((row) => row.created_at === null)).toBe(true);
      const insert = db.prepare(`INSERT INTO internal_accounts (id, platform_id, customer_id, type, currency, status, created_at, updated_at)
        VALUES (@id, @platform_id, @customer_id,
          CASE @currency WHEN 'USDB' THEN 'EMBEDDED_WALLET' WHEN 'USDC' THEN 'INTERNAL_CRYPTO' WHEN 'BTC' THEN 'INTERNAL_CRYPTO' WHEN 'USDT' THEN 'INTERNAL_CRYPTO' ELSE 'INTERNAL_FIAT' END,
          @currency, COALESCE(@status, 'ACTIVE'), @created_at, COALESCE(@updated_at, @created_at))`);
      for (const row of rows) {
        const created = row.created_at ?? new Date(parseInt(row.id.toString('hex').slice(0, 12), 16)).toISOString();
        insert.run({ ...row, id: uuidText('InternalAccount:', row.id), customer_id: uuidText('Customer:', row.customer_id), created_at: created });
      }
      db.exec(`DROP TABLE compact;
        DELETE FROM schema_migrations WHERE id IN ('internal-accounts-perf-001', 'internal-accounts-perf-002', 'internal-accounts-perf-003', 'internal-accounts-perf-004');`);
      expect(db.prepare("SELECT COUNT(*) FROM pragma_table_info('internal_accounts') WHERE name = 'type'").pluck().get()).toBe(1);
      expect(db.prepare("SELECT COUNT(*) FROM internal_accounts WHERE status = 'CLOSED'").pluck().get()).toBeGreaterThan(0);
      if (shape === 'internal-accounts-perf-001') {
        db.exec(PERF_001.sql);
        db.exec(`INSERT INTO schema_migrations (id, applied_at) VALUES ('internal-accounts-perf-001', '2026-01-01T00:00:00.000Z')`);
        expect(db.prepare("SELECT typeof(id) FROM internal_accounts LIMIT 1").pluck().get()).toBe('text');
      }
      db.close();

      sandbox = await startSandbox({ db: file });
      api = new Api(sandbox);
      try {
        expect(await pages()).toEqual(before);
        const after = (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customers[1]!)}`)).body.data[0];
        expect(after.balance.amount).toBe(12_345);
        // And it keeps working: a new customer's accounts list after the old ones.
        const next = await api.post('/customers', individual(['USD']));
        const all = (await api.get('/customers/internal-accounts?limit=100')).body;
        expect(all.data.at(-1).customerId).toBe(next.body.id);
      } finally {
        await sandbox.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('internal accounts: a snapshot an earlier sandbox took', () => {
  it('holds the ids as text; imported, the accounts read back the same and are stored compact', async () => {
    const source = await startSandbox();
    const target = await startSandbox();
    try {
      const api = new Api(source);
      const customer = (await api.post('/customers', individual(['USD', 'EUR', 'USDC']))).body;
      const accounts = (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`)).body;
      expect(accounts.data).toHaveLength(3);
      expect((await api.post(`/sandbox/internal-accounts/${encodeURIComponent(accounts.data[0].id)}/fund`, { amount: 500 })).status).toBe(200);
      const before = (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`)).body;
      const snapshot = (await api.get('/_sandbox/snapshot')).body;
      // The rows as the earlier shape held them: text ids, every creation time written out, the platform id.
      const table = snapshot.tables.internal_accounts as { columns: string[]; rows: unknown[][] };
      expect(table.columns).not.toContain('platform');
      table.columns.push('platform_id');
      for (const row of table.rows) row.push(snapshot.platformId);
      const at = (name: string) => table.columns.indexOf(name);
      const bytes = (value: unknown) => (value === null ? null : Buffer.from((value as { $base64: string }).$base64, 'base64'));
      for (const row of table.rows) {
        const id = bytes(row[at('id')])!;
        row[at('created_at')] ??= new Date(parseInt(id.toString('hex').slice(0, 12), 16)).toISOString();
        row[at('id')] = uuidText('InternalAccount:', id);
        row[at('customer_id')] = uuidText('Customer:', bytes(row[at('customer_id')]));
      }
      expect(table.rows.map((row) => row[at('id')])).toContain(before.data[0].id);
      const into = new Api(target);
      expect((await into.post('/_sandbox/snapshot', snapshot)).status).toBe(200);
      expect((await into.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`)).body).toEqual(before);
      // Compact: ids as bytes, and a creation time kept only where it is not the id's own (the
      // clock's millisecond can turn between an id and its row's creation time).
      const stored = target.context.db.prepare('SELECT id, created_at FROM internal_accounts').all() as { id: unknown; created_at: string | null }[];
      expect(stored.length).toBeGreaterThanOrEqual(3);
      for (const row of stored) {
        expect(Buffer.isBuffer(row.id)).toBe(true);
        if (row.created_at !== null) expect(row.created_at).not.toBe(new Date(parseInt((row.id as Buffer).toString('hex').slice(0, 12), 16)).toISOString());
      }
    } finally {
      await source.close();
      await target.close();
    }
  });
});
