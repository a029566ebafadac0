import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { areas, startSandbox, type RunningSandbox } from '../../src/index.js';
import { createCustomer } from '../../src/resources/customers/service.js';
import { resetPlatformData } from '../../src/control/reset.js';
import { exportSnapshot, importSnapshot } from '../../src/control/snapshot.js';
import { internalAccountRepo } from '../../src/resources/internal-accounts/service.js';
import { platformService } from '../../src/tenancy/index.js';
import { customerRepo } from '../../src/resources/customers/service.js';
import { webhookDelivery } from '../../src/events/index.js';
import { Api, individual, usdPayee } from '../helpers/sandbox.js';

// Counts written by their writer, a transaction's deltas summed by bucket just before it commits
// (DeferredCounts), not by an insert trigger a row: internal accounts (internal-accounts-perf-004),
// customers (customers-perf-006), events (outbox-perf-004) and transactions (transactions-perf-001). The counts must equal the rows at
// every commit, whatever fails or is deleted in between, and a list read before the commit must
// count what it sees.

const ACCOUNT_TYPE = "CASE currency WHEN 'USDB' THEN 'EMBEDDED_WALLET' WHEN 'USDC' THEN 'INTERNAL_CRYPTO' WHEN 'BTC' THEN 'INTERNAL_CRYPTO' WHEN 'USDT' THEN 'INTERNAL_CRYPTO' ELSE 'INTERNAL_FIAT' END";
/** Each maintained count as kept, and as its rows count it. */
const TABLES = [
  {
    counts: 'SELECT platform, platform_owned, currency, type, n FROM internal_account_counts WHERE n <> 0 ORDER BY 1, 2, 3, 4',
    rows: `SELECT platform, customer_id IS NULL, currency, ${ACCOUNT_TYPE}, COUNT(*) FROM internal_accounts GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
  },
  {
    counts: 'SELECT platform_id, customer_type, is_deleted, n FROM customer_counts WHERE n <> 0 ORDER BY 1, 2, 3',
    rows: 'SELECT platform_id, customer_type, is_deleted, COUNT(*) FROM customers GROUP BY 1, 2, 3 ORDER BY 1, 2, 3',
  },
  {
    counts: 'SELECT platform_id, type, delivery_state, n FROM event_counts WHERE n <> 0 ORDER BY 1, 2, 3',
    rows: 'SELECT platform_id, type, delivery_state, COUNT(*) FROM events GROUP BY 1, 2, 3 ORDER BY 1, 2, 3',
  },
  {
    counts: 'SELECT platform_id, type, status, n FROM transaction_counts WHERE n <> 0 ORDER BY 1, 2, 3',
    rows: 'SELECT platform_id, type, status, COUNT(*) FROM transactions GROUP BY 1, 2, 3 ORDER BY 1, 2, 3',
  },
];

const counted = (sandbox: RunningSandbox) => TABLES.map(({ counts }) => sandbox.context.db.prepare(counts).raw().all());
const recounted = (sandbox: RunningSandbox) => TABLES.map(({ rows }) => sandbox.context.db.prepare(rows).raw().all());
/** The internal accounts' rows by bucket (platform, platform-owned, currency, type, n). */
const accountRows = (sandbox: RunningSandbox) => recounted(sandbox)[0] as [number, number, string, string, number][];

async function fileSandbox(run: (sandbox: RunningSandbox) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'service-sandbox-counts-'));
  const sandbox = await startSandbox({ db: join(dir, 'counts.db') });
  try {
    await run(sandbox);
  } finally {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('counts written once a commit: internal accounts, customers, events', () => {
  it('one group commit: the counts are the rows after creates, a failed savepoint, a create that fails as a whole and a platform reset, all in one transaction', async () => {
    await fileSandbox(async (sandbox) => {
      const ctx = sandbox.context;
      const platform = platformService(ctx).list()[0]!;
      const before = recounted(sandbox);
      const create = (currencies?: string[]) => createCustomer(ctx, platform, individual(currencies ?? []) as never);
      // The first opens the group; the others are savepoints in it.
      ctx.tx(() => create(['USD', 'EUR']));
      ctx.tx(() => create());
      expect(ctx.committed()).toBeDefined();
      // A savepoint that fails after its accounts were written: its rows and its deltas go.
      expect(() =>
        ctx.tx(() => {
          create(['MXN', 'BTC']);
          throw new Error('fails after the accounts');
        }),
      ).toThrow('fails after the accounts');
      // A failure caught inside a transaction that goes on: only the inner savepoint's deltas go.
      ctx.tx(() => {
        create(['GBP']);
        try {
          ctx.tx(() => {
            create(['USDC']);
            throw new Error('inner');
          });
        } catch {
          // the outer goes on
        }
      });
      // Read before the commit (the deltas still held): the counts and the merged page see every row.
      const repo = internalAccountRepo(ctx);
      const owned = ctx.db.prepare('SELECT COUNT(*) FROM internal_accounts WHERE customer_id IS NOT NULL').pluck();
      const rowsOf = (type?: string) =>
        ctx.db.prepare(`SELECT COUNT(*) FROM internal_accounts WHERE customer_id IS NOT NULL ${type ? "AND currency IN ('USDC', 'BTC', 'USDT')" : ''}`).pluck().get() as number;
      expect(repo.count({ platformId: platform.id, customerOwned: true })).toBe(owned.get());
      expect(repo.count({ platformId: platform.id, customerOwned: true, type: 'INTERNAL_CRYPTO' })).toBe(rowsOf('INTERNAL_CRYPTO'));
      expect(repo.count({ platformId: platform.id, customerOwned: true, currency: 'GBP' })).toBe(2);
      expect(repo.page({ platformId: platform.id, customerOwned: true }, { afterKey: undefined, take: 1000 }).length).toBe(owned.get());
      const rows = (sql: string) => ctx.db.prepare(sql).pluck().get(platform.id) as number;
      const customers = customerRepo(ctx);
      expect(customers.count({ platformId: platform.id, includeDeleted: true })).toBe(rows('SELECT COUNT(*) FROM customers WHERE platform_id = ?'));
      expect(customers.count({ platformId: platform.id, customerType: 'INDIVIDUAL', includeDeleted: false })).toBe(rows("SELECT COUNT(*) FROM customers WHERE platform_id = ? AND customer_type = 'INDIVIDUAL' AND is_deleted = 0"));
      const events = webhookDelivery(ctx).repo;
      expect(events.count({ platformId: platform.id })).toBe(rows('SELECT COUNT(*) FROM events WHERE platform_id = ?'));
      expect(events.count({ platformId: platform.id, type: 'CUSTOMER.KYC_APPROVED' })).toBe(rows("SELECT COUNT(*) FROM events WHERE platform_id = ? AND type = 'CUSTOMER.KYC_APPROVED'"));
      expect(events.count({ platformId: platform.id, type: 'CUSTOMER.KYC_APPROVED' })).toBeGreaterThan(0);
      ctx.commitNow();
      expect(counted(sandbox)).toEqual(recounted(sandbox));
      expect(ctx.db.prepare("SELECT COUNT(*) FROM internal_accounts WHERE currency IN ('MXN', 'BTC', 'USDC') AND customer_id IS NOT NULL").pluck().get()).toBe(
        accountRows(sandbox).filter((row) => row[1] === 0 && ['MXN', 'BTC', 'USDC'].includes(row[2])).reduce((sum, row) => sum + row[4], 0),
      );

      // Creates and then a reset of the platform in the same group: the deleted accounts count 0.
      ctx.tx(() => create(['USD']));
      ctx.tx(() => create());
      ctx.tx(() => resetPlatformData(ctx, areas, platform));
      ctx.tx(() => create(['EUR']));
      ctx.commitNow();
      expect(counted(sandbox)).toEqual(recounted(sandbox));
      expect(counted(sandbox)).not.toEqual(before);

      // A snapshot import replacing the platform's rows, after creates in the same group (their
      // deltas still held): the counts are the imported rows.
      const snapshot = exportSnapshot(ctx, areas, platform);
      ctx.tx(() => create(['USD', 'MXN']));
      ctx.tx(() => create());
      importSnapshot(ctx, areas, platformService(ctx).list()[0]!, snapshot);
      ctx.commitNow();
      expect(counted(sandbox)).toEqual(recounted(sandbox));
      expect(accountRows(sandbox).some((row) => row[2] === 'MXN' && row[1] === 0)).toBe(false);

      // A group whose first transaction fails is rolled back whole, deltas too.
      expect(() =>
        ctx.tx(() => {
          create(['USD']);
          throw new Error('first fails');
        }),
      ).toThrow('first fails');
      ctx.commitNow();
      expect(counted(sandbox)).toEqual(recounted(sandbox));
    });
  });

  it('under concurrent creates, every list answer counts what it lists, and the counts are the rows after each commit', async () => {
    await fileSandbox(async (sandbox) => {
      const api = new Api(sandbox);
      const lists: Promise<{ status: number; body: { data: unknown[]; totalCount: number } }>[] = [];
      const creates: Promise<{ status: number }>[] = [];
      for (let i = 0; i < 12; i += 1) {
        creates.push(api.post('/customers', individual(i % 2 ? ['USD', 'EUR', 'USDC'] : [])));
        lists.push(
          api.get('/customers/internal-accounts?limit=100'),
          api.get('/customers/internal-accounts?type=INTERNAL_CRYPTO&limit=100'),
          api.get('/customers?limit=100'),
          api.get('/_sandbox/webhooks/deliveries?limit=100'),
          api.get('/_sandbox/webhooks/deliveries?type=CUSTOMER.KYC_APPROVED&status=NO_ENDPOINT&limit=100'),
        );
      }
      for (const res of await Promise.all(creates)) expect(res.status).toBe(201);
      for (const res of await Promise.all(lists)) {
        expect(res.status).toBe(200);
        expect(res.body.totalCount).toBe(res.body.data.length);
      }
      expect(counted(sandbox)).toEqual(recounted(sandbox));
      const all = (await api.get('/customers/internal-accounts?limit=100')).body;
      expect(all.totalCount).toBe(all.data.length);
      expect(all.totalCount).toBe(6 * 3 + 6 * 11);
      const listed = (await api.get('/customers?limit=100')).body;
      expect(listed.totalCount).toBe(12);
      const delivered = (await api.get('/_sandbox/webhooks/deliveries?type=CUSTOMER.KYC_APPROVED&limit=100')).body;
      expect(delivered.totalCount).toBe(12);
      expect(delivered.data.length).toBe(12);
    });
  });

  it('creates refused in a group they joined (a platformCustomerId, a UMA address taken) write nothing into it: the group commits the others whole', async () => {
    await fileSandbox(async (sandbox) => {
      const ctx = sandbox.context;
      const platform = platformService(ctx).list()[0]!;
      const before = recounted(sandbox);
      const customerCount = () => ctx.db.prepare('SELECT COUNT(*) FROM customers WHERE platform_id = ?').pluck().get(platform.id) as number;
      const existing = customerCount();
      const create = (currencies: string[], extra: Record<string, unknown>) => createCustomer(ctx, platform, individual(currencies, extra) as never);
      // The first opens the group; the others join it without a savepoint (checksFirst), so a
      // refused one must throw before its first write, or the whole group is rolled back.
      create(['USD'], { platformCustomerId: 'shared-1' });
      create([], { umaAddress: '$shared@sandbox.example' });
      expect(() => create(['EUR'], { platformCustomerId: 'shared-1' })).toThrow(/platformCustomerId shared-1 already exists/);
      expect(() => create(['EUR'], { umaAddress: '$shared@sandbox.example' })).toThrow(/UMA address \$shared@sandbox.example is already taken/);
      create(['MXN', 'BTC'], { platformCustomerId: 'shared-2' });
      const committed = ctx.committed();
      expect(committed).toBeDefined();
      expect(counted(sandbox)).toEqual(before); // held until the commit
      await committed;
      expect(customerCount()).toBe(existing + 3);
      expect(counted(sandbox)).toEqual(recounted(sandbox));
      const customerAccounts = () => accountRows(sandbox).filter((row) => row[1] === 0).reduce((sum, row) => sum + row[4], 0);
      expect(customerAccounts()).toBe(1 + 11 + 2);
    });
  });

  it('a fixture load (a transaction of its own) that fails after making customers: their accounts and counts roll back together', async () => {
    await fileSandbox(async (sandbox) => {
      const api = new Api(sandbox);
      expect((await api.post('/customers', individual(['USD']))).status).toBe(201);
      const before = recounted(sandbox);
      const customer = (id: string) => ({ ref: id, customerType: 'INDIVIDUAL', platformCustomerId: id, fullName: 'Fixture Person', birthDate: '1990-01-15', nationality: 'US' });
      const failed = await api.post('/_sandbox/fixtures', { platforms: [{ customers: [customer('fx-1'), customer('fx-2'), { ...customer('fx-3'), birthDate: 'yesterday' }] }] });
      expect(failed.status).toBe(400);
      expect(recounted(sandbox)).toEqual(before);
      expect(counted(sandbox)).toEqual(before);
      const loaded = await api.post('/_sandbox/fixtures', { platforms: [{ customers: [customer('fx-4'), customer('fx-5')] }] });
      expect(loaded.status).toBe(200);
      expect(counted(sandbox)).toEqual(recounted(sandbox));
      expect(recounted(sandbox)).not.toEqual(before);
    });
  });

  it('transactions: each list answer counts what it lists under concurrent payouts, status changes are counted, an import counts the rows it restores', async () => {
    await fileSandbox(async (sandbox) => {
      const api = new Api(sandbox);
      const customer = (await api.post('/customers', individual(['USD']))).body;
      const usd = (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`)).body.data[0].id as string;
      expect((await api.post(`/sandbox/internal-accounts/${encodeURIComponent(usd)}/fund`, { amount: 1_000_000 })).status).toBe(200);
      const payee = await api.post('/customers/external-accounts', usdPayee(customer.id));
      expect(payee.status).toBe(201);
      const payout = async () => {
        const quote = await api.post('/quotes', { source: { sourceType: 'ACCOUNT', accountId: usd }, destination: { destinationType: 'ACCOUNT', accountId: payee.body.id }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1_00 });
        expect(quote.status, JSON.stringify(quote.body)).toBe(201);
        return api.post(`/quotes/${encodeURIComponent(quote.body.id)}/execute`);
      };
      const lists: Promise<{ status: number; body: { data: unknown[]; totalCount: number } }>[] = [];
      const payouts: Promise<{ status: number }>[] = [];
      for (let i = 0; i < 8; i += 1) {
        payouts.push(payout());
        lists.push(api.get('/transactions?limit=100'), api.get('/transactions?type=OUTGOING&limit=100'), api.get('/transactions?type=OUTGOING&status=PENDING&limit=100'));
      }
      for (const res of await Promise.all(payouts)) expect(res.status).toBe(200);
      for (const res of await Promise.all(lists)) {
        expect(res.status).toBe(200);
        expect(res.body.totalCount).toBe(res.body.data.length);
      }
      expect(counted(sandbox)).toEqual(recounted(sandbox));
      // The payouts move on in time (their status changes are counted by the update trigger).
      expect((await api.post('/_sandbox/clock/advance', { seconds: 3600 })).status).toBe(200);
      expect(counted(sandbox)).toEqual(recounted(sandbox));
      const outgoing = (await api.get('/transactions?type=OUTGOING&limit=100')).body;
      expect(outgoing.totalCount).toBe(8);
      // An import of the snapshot after more payouts: the counts are the restored rows.
      const snapshot = (await api.get('/_sandbox/snapshot')).body;
      const [, imported] = await Promise.all([payout(), api.post('/_sandbox/snapshot', snapshot), payout()]);
      expect(imported.status, JSON.stringify(imported.body)).toBe(200);
      expect(counted(sandbox)).toEqual(recounted(sandbox));
      const after = (await api.get('/transactions?limit=100')).body;
      expect(after.totalCount).toBe(after.data.length);
    });
  });

  it('a snapshot import in the group of the creates it replaces: the counts are the imported rows', async () => {
    await fileSandbox(async (sandbox) => {
      const api = new Api(sandbox);
      for (const currencies of [['USD'], [], ['EUR', 'BTC']]) expect((await api.post('/customers', individual(currencies))).status).toBe(201);
      const snapshot = (await api.get('/_sandbox/snapshot')).body;
      // Creates and the import in flight together: some share the import's group.
      const results = await Promise.all([
        api.post('/customers', individual(['MXN'])),
        api.post('/customers', individual([])),
        api.post('/_sandbox/snapshot', snapshot),
        api.post('/customers', individual(['GBP'])),
      ]);
      expect(results.map((res) => res.status)).toEqual([201, 201, 200, 201]);
      expect(counted(sandbox)).toEqual(recounted(sandbox));
    });
  });
});
