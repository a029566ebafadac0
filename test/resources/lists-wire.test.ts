import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/index.js';
import { Api, euIndividual, individual, unique, useSandbox } from '../helpers/sandbox.js';

// Customer and transaction lists are joined from each row's stored wire JSON: every write path
// must leave a list item equal to what `GET /{id}` answers, and the page text must be exactly what
// JSON.stringify of the page gives.
const s = useSandbox();

/** The raw text and content type of a GET (the test client parses bodies). */
async function raw(api: Api, path: string): Promise<{ text: string; contentType: string | null }> {
  const res = await fetch(`${api.sandbox.baseUrl}${path}`, { headers: { Authorization: `Basic ${Buffer.from(`${api.clientId}:${api.clientSecret}`).toString('base64')}` } });
  expect(res.status, path).toBe(200);
  return { text: await res.text(), contentType: res.headers.get('content-type') };
}

/** Every item of a list page equals its own GET, and the page text is canonical JSON. */
async function expectListMatchesGets(api: Api, list: string, item: (id: string) => string): Promise<{ id: string }[]> {
  const { text, contentType } = await raw(api, list);
  expect(contentType).toBe('application/json');
  expect(text).toBe(JSON.stringify(JSON.parse(text)));
  const page = (await api.get(list)).body as { data: { id: string }[] };
  for (const entry of page.data) expect(entry, entry.id).toEqual((await api.get(item(entry.id))).body);
  return page.data;
}

const customerGet = (id: string) => `/customers/${encodeURIComponent(id)}`;

describe('lists from stored wire JSON', () => {
  it('customers: every write shows in the list as GET /customers/{id} shows it', async () => {
    const api = await s.api.newPlatform({ regulated: false });
    const consent = { acceptedAt: '2025-10-20T10:00:00Z', ipAddress: '203.0.113.7', termsVersion: '2025-10-13', acceptanceMethod: 'CHECKBOX' };
    const plain = (await api.post('/customers', individual(['USD']))).body;
    const eu = (
      await api.post('/customers', euIndividual())
    ).body;
    const business = (
      await api.post('/customers', {
        customerType: 'BUSINESS',
        platformCustomerId: unique('biz'),
        businessInfo: { legalName: 'Acme Corporation', country: 'US', taxId: '47-1234567', incorporatedOn: '2018-03-14' },
      })
    ).body;
    const doomed = (await api.post('/customers', individual(['USD']))).body;
    await api.advance(5);

    expect((await api.patch(customerGet(plain.id), { customerType: 'INDIVIDUAL', fullName: 'Jane Q. Smith', endUserTermsConsent: consent, umaAddress: `$${unique('jane')}@example.com` })).status).toBe(200);
    expect((await api.patch(customerGet(business.id), { customerType: 'BUSINESS', businessInfo: { legalName: 'Acme Holdings' } })).status).toBe(200);
    expect((await api.post(`${customerGet(eu.id)}/verify-email`)).status).toBe(204);
    expect((await api.post(`${customerGet(eu.id)}/verify-email/confirm`, { code: '123456' })).status).toBe(200);
    expect((await api.post(`${customerGet(eu.id)}/verify-phone`)).status).toBe(204);
    expect((await api.delete(customerGet(doomed.id))).status).toBe(200);
    // A KYC decision (setCustomerStatus) on a customer the trigger creates.
    expect((await api.post('/_sandbox/webhooks/trigger', { type: 'CUSTOMER.KYC_APPROVED' })).status).toBe(201);

    const listed = await expectListMatchesGets(api, '/customers?isIncludingDeleted=true&limit=100', customerGet);
    expect(listed.length).toBe(5);
    const byId = new Map(listed.map((c) => [c.id, c as Record<string, any>]));
    expect(byId.get(plain.id)).toMatchObject({ fullName: 'Jane Q. Smith', endUserTermsConsent: consent });
    expect(byId.get(business.id)!.businessInfo.legalName).toBe('Acme Holdings');
    expect(byId.get(eu.id)!.contactVerification).toEqual({ email: 'VERIFIED', phone: 'PENDING' });
    expect(byId.get(doomed.id)!.isDeleted).toBe(true);
    expect([...byId.values()].filter((c) => c.kycStatus === 'APPROVED').length).toBeGreaterThan(0);
    // Filtered and paged lists come from the same text.
    await expectListMatchesGets(api, `/customers?platformCustomerId=${encodeURIComponent(plain.platformCustomerId)}`, customerGet);
    const first = (await api.get('/customers?limit=1')).body;
    expect(first.hasMore).toBe(true);
    await expectListMatchesGets(api, `/customers?limit=2&cursor=${encodeURIComponent(first.nextCursor)}`, customerGet);
  });

  it('transactions: the list items are the transactions as GET /transactions/{id} shows them', async () => {
    const api = await s.api.newPlatform();
    const customer = (await api.post('/customers', individual(['USD']))).body;
    const accounts = (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`)).body.data as { id: string }[];
    for (const amount of [100, 250, 999]) expect((await api.post(`/sandbox/internal-accounts/${accounts[0]!.id}/fund`, { amount })).status).toBe(200);
    const transactionGet = (id: string) => `/transactions/${encodeURIComponent(id)}`;
    expect((await expectListMatchesGets(api, '/transactions', transactionGet)).length).toBe(3);
    const first = (await api.get('/transactions?limit=2&sortOrder=asc')).body;
    expect(first.hasMore).toBe(true);
    await expectListMatchesGets(api, `/transactions?limit=2&sortOrder=asc&cursor=${encodeURIComponent(first.nextCursor)}`, transactionGet);
    await expectListMatchesGets(api, `/transactions?accountIdentifier=${encodeURIComponent(accounts[0]!.id)}`, transactionGet);
  });

  it('a repeated list query string gives the same answer as the first; an invalid one is refused every time', async () => {
    const api = await s.api.newPlatform();
    for (let i = 0; i < 3; i += 1) expect((await api.post('/customers', individual(['USD']))).status).toBe(201);
    const first = await api.get('/customers?limit=2');
    const again = await api.get('/customers?limit=2');
    expect(again.body).toEqual(first.body);
    expect(first.body.data.length).toBe(2);
    // Each list remembers its own schema's values: the same string on /transactions has its defaults (sortOrder desc).
    const transactions = await api.get('/transactions?limit=2');
    expect(transactions.status).toBe(200);
    expect(transactions.body.totalCount).toBe(0);
    for (let i = 0; i < 2; i += 1) {
      for (const path of ['/customers?limit=0', '/transactions?limit=0', '/customers?customerType=NOPE']) {
        const refused = await api.get(path);
        expect(refused.status, path).toBe(400);
        expect(refused.body.code, path).toBe('INVALID_INPUT');
      }
    }
    // A new customer shows on the same query string: the page is read afresh.
    const created = (await api.post('/customers', individual(['USD']))).body;
    expect((await api.get('/customers?limit=2')).body.totalCount).toBe(4);
    expect((await api.get('/customers?limit=10')).body.data.map((c: { id: string }) => c.id)).toContain(created.id);
  });

  it('customers written before the wire column get theirs from the migration; a snapshot import computes them from the restored rows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lists-wire-'));
    const file = join(dir, 'sandbox.db');
    try {
      let sandbox = await startSandbox({ db: file });
      let api = new Api(sandbox);
      for (const extra of [{}, { region: 'DE', email: 'a@example.de' }, { fullName: 'Jane Doe001' }]) {
        expect((await api.post('/customers', individual(['USD'], extra))).status).toBe(201);
      }
      const before = (await raw(api, '/customers?isIncludingDeleted=true')).text;
      const snapshot = (await api.get('/_sandbox/snapshot')).body;
      await sandbox.close();

      // The database as it was before the migration: no wire column, the migration not applied.
      const db = new Database(file);
      db.exec("ALTER TABLE customers DROP COLUMN wire; DELETE FROM schema_migrations WHERE id = 'customers-lists-002';");
      db.close();
      sandbox = await startSandbox({ db: file });
      api = new Api(sandbox);
      try {
        expect((await raw(api, '/customers?isIncludingDeleted=true')).text).toBe(before);
        const nulls = sandbox.context.db.prepare('SELECT COUNT(*) FROM customers WHERE wire IS NULL').pluck().get();
        expect(nulls).toBe(0);
      } finally {
        await sandbox.close();
      }

      // Snapshots carry rows without the derived wire JSON; an import computes it from the rows as
      // restored, so a snapshot edited by hand (as bench/tui.mjs clones rows) lists what it holds.
      const customers = snapshot.tables.customers as { columns: string[]; rows: unknown[][] };
      expect(customers.columns).not.toContain('wire');
      const col = (name: string) => customers.columns.indexOf(name);
      const edited = customers.rows[0]!;
      edited[col('platform_customer_id')] = 'edited-by-hand';
      edited[col('profile')] = String(edited[col('profile')]).replace('Jane Smith', 'Edited Person');
      // A stale wire column in a hand-made snapshot is ignored.
      customers.columns.push('wire');
      for (const row of customers.rows) row.push('{"stale":true}');
      const fresh = await startSandbox();
      try {
        const target = new Api(fresh);
        expect((await target.post('/_sandbox/snapshot', snapshot)).status).toBe(200);
        const listed = await expectListMatchesGets(target, '/customers?isIncludingDeleted=true', customerGet);
        expect(listed.length).toBe(3);
        expect(listed.find((c) => c.id === edited[col('id')])).toMatchObject({ platformCustomerId: 'edited-by-hand', fullName: 'Edited Person' });
        expect(fresh.context.db.prepare('SELECT COUNT(*) FROM customers WHERE wire IS NULL').pluck().get()).toBe(0);
      } finally {
        await fresh.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
