import { describe, expect, it } from 'vitest';
import { assertFitsSchema } from '../helpers/contract.js';
import { unique, usdPayee, useSandbox } from '../helpers/sandbox.js';

/**
 * GET /_sandbox/search/customers: the terminal UI's `/` over customers. Prefixes of names,
 * emails, platform customer ids and UMA addresses in any case, an exact id, both orders, cursors,
 * deleted and other platforms' customers never shown, bad input as an envelope.
 */
const s = useSandbox();

async function customer(fullName: string, extra: Record<string, unknown> = {}) {
  const res = await s.api.post('/customers', { customerType: 'INDIVIDUAL', fullName, birthDate: '1990-01-15', nationality: 'US', ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; platformCustomerId: string; umaAddress: string };
}
const search = (query: string) => s.api.get(`/_sandbox/search/customers?${query}`);

describe('customer search', () => {
  it('finds by name prefix, email, platform customer id and UMA address, in any case; each row is the customer as GET answers it', async () => {
    const tag = unique('srch').replace(/[^a-z0-9]/gi, '').toLowerCase();
    const ada = await customer(`Zq${tag} Ada Lovelace`, { email: `ada.${tag}@example.com`, platformCustomerId: `pc-${tag}-ada` });
    const bob = await customer(`Zq${tag} Bob Builder`);
    const byName = await search(`q=${encodeURIComponent(`zq${tag}`)}`);
    expect(byName.status).toBe(200);
    expect(byName.body.data.map((c: { id: string }) => c.id)).toEqual([ada.id, bob.id]);
    expect(byName.body.totalCount).toBe(2);
    for (const row of byName.body.data) {
      const { matchedOn, ...wire } = row;
      expect(matchedOn).toEqual(['name']);
      assertFitsSchema('Customer', wire);
      expect(wire).toEqual((await s.api.get(`/customers/${encodeURIComponent(row.id)}`)).body);
    }
    expect((await search(`q=${encodeURIComponent(`ZQ${tag} BOB`)}`)).body.data.map((c: { id: string }) => c.id)).toEqual([bob.id]);
    expect((await search(`q=${encodeURIComponent(`ADA.${tag}@`)}`)).body.data).toMatchObject([{ id: ada.id, matchedOn: ['email'] }]);
    expect((await search(`q=pc-${tag}`)).body.data).toMatchObject([{ id: ada.id, matchedOn: ['platformCustomerId'] }]);
    expect((await search(`q=${encodeURIComponent(bob.umaAddress.toUpperCase())}`)).body.data).toMatchObject([{ id: bob.id, matchedOn: ['umaAddress'] }]);
    expect((await search(`q=${encodeURIComponent(ada.id)}`)).body.data).toMatchObject([{ id: ada.id, matchedOn: ['id'] }]);
    expect((await search(`q=nobody-${tag}`)).body).toMatchObject({ data: [], hasMore: false, totalCount: 0 });

    // A rename moves the keys; a deletion removes them.
    expect((await s.api.patch(`/customers/${encodeURIComponent(bob.id)}`, { customerType: 'INDIVIDUAL', fullName: `Zr${tag} Robert` })).status).toBe(200);
    expect((await search(`q=zr${tag}`)).body.data.map((c: { id: string }) => c.id)).toEqual([bob.id]);
    expect((await search(`q=zq${tag}`)).body.data.map((c: { id: string }) => c.id)).toEqual([ada.id]);
    expect((await s.api.delete(`/customers/${encodeURIComponent(ada.id)}`)).status).toBe(200);
    expect((await search(`q=zq${tag}`)).body.data).toEqual([]);
    expect((await search(`q=${encodeURIComponent(ada.id)}`)).body.data).toEqual([]);
  });

  it('pages both ways with cursors; without q lists every customer, oldest or newest first', async () => {
    const tag = unique('page').replace(/[^a-z0-9]/gi, '').toLowerCase();
    const made = [];
    for (let i = 0; i < 5; i += 1) made.push(await customer(`Zp${tag} ${i}`));
    const walk = async (order: string) => {
      const ids: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await search(`q=zp${tag}&order=${order}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.status).toBe(200);
        ids.push(...page.body.data.map((c: { id: string }) => c.id));
        cursor = page.body.nextCursor;
        expect(page.body.hasMore).toBe(cursor !== undefined);
      } while (cursor);
      return ids;
    };
    expect(await walk('asc')).toEqual(made.map((c) => c.id));
    expect(await walk('desc')).toEqual(made.map((c) => c.id).reverse());
    const newest = await search('order=desc&limit=1');
    expect(newest.body.data[0].id).toBe(made.at(-1)!.id);
    const oldest = await search('order=asc&limit=1');
    expect(oldest.body.data[0].id <= made[0]!.id).toBe(true);
    const next = await search(`order=desc&limit=1&cursor=${newest.body.nextCursor}`);
    expect(next.body.data[0].id).toBe(made.at(-2)!.id);
  });

  it('pages one key at a time through equal keys of several kinds, in (key, kind, id) order both ways', async () => {
    const tag = unique('eqk').replace(/[^a-z0-9]/gi, '').toLowerCase();
    // Three customers whose name and platform customer id are one key, and whose emails are one other, in other letter
    // cases; a fourth whose name is a key between the two.
    const same = `zk${tag} same`;
    const cases = [same, same.toUpperCase(), `Zk${same.slice(2)}`];
    const made: { id: string }[] = [];
    for (const text of cases) made.push(await customer(text, { email: `${text.split(' ')[0]}@example.com`, platformCustomerId: text }));
    const later = await customer(`${same}z`);
    const ids = (kind: string) => made.map((c) => `${kind}:${c.id}`);
    const expected = [...ids('name'), ...ids('platformCustomerId'), `name:${later.id}`, ...ids('email')];
    const walk = async (dir: string, limit: number) => {
      const seen: string[] = [];
      let cursor: string | undefined;
      let total: number | undefined;
      do {
        const page = await search(`q=zk${tag}&order=${dir}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.status, JSON.stringify(page.body)).toBe(200);
        total ??= page.body.totalCount;
        for (const row of page.body.data) for (const kind of row.matchedOn) seen.push(`${kind}:${row.id}`);
        cursor = page.body.nextCursor;
      } while (cursor);
      return { seen, total };
    };
    for (const limit of [1, 2, 4]) {
      const asc = await walk('asc', limit);
      // A page names one customer once with every kind it matched on that page: compare as sets per walk.
      expect(asc.seen.sort(), `asc ${limit}`).toEqual([...expected].sort());
      expect((await walk('desc', limit)).seen.sort(), `desc ${limit}`).toEqual([...expected].sort());
      expect(asc.total).toBe(4);
    }
    const one = await walk('asc', 1);
    expect(one.seen).toEqual(expected);
    expect((await walk('desc', 1)).seen).toEqual([...expected].reverse());
  });

  it('keys follow a KYC decision (unchanged), a reset (gone) and a snapshot import (back)', async () => {
    const api = await s.api.newPlatform();
    const made = (await api.post('/customers', { customerType: 'INDIVIDUAL', fullName: 'Snap Shot 001', birthDate: '1990-01-15', nationality: 'US' })).body;
    expect((await api.post(`/_sandbox/customers/${encodeURIComponent(made.id)}/kyc-decision`, { decision: 'APPROVED' })).status).toBe(200);
    const found = await api.get('/_sandbox/search/customers?q=snap%20shot');
    expect(found.body.data).toMatchObject([{ id: made.id, kycStatus: 'APPROVED', matchedOn: ['name'] }]);
    const snapshot = (await api.get('/_sandbox/snapshot')).body;
    expect(Object.keys(snapshot.tables)).not.toContain('customer_search');
    expect((await api.post('/_sandbox/reset')).status).toBe(200);
    expect((await api.get('/_sandbox/search/customers?q=snap')).body.data).toEqual([]);
    expect((await api.post('/_sandbox/snapshot', snapshot)).status).toBe(200);
    expect((await api.get('/_sandbox/search/customers?q=snap')).body.data).toMatchObject([{ id: made.id, kycStatus: 'APPROVED' }]);
  });

  it("never shows another platform's customers; bad input is a 400 envelope naming the field", async () => {
    const tag = unique('iso').replace(/[^a-z0-9]/gi, '').toLowerCase();
    const mine = await customer(`Zi${tag} Mine`);
    const other = s.api.as(`other-${tag}`, `secret-${tag}-secret`);
    expect((await s.api.post('/_sandbox/platforms', { clientId: `other-${tag}`, clientSecret: `secret-${tag}-secret`, regulated: false })).status).toBe(201);
    expect((await other.get(`/_sandbox/search/customers?q=zi${tag}`)).body.data).toEqual([]);
    expect((await other.get(`/_sandbox/search/customers?q=${encodeURIComponent(mine.id)}`)).body.data).toEqual([]);
    for (const [query, field] of [['limit=0', 'limit'], ['limit=abc', 'limit'], ['order=up', 'order'], [`q=${'x'.repeat(201)}`, 'q'], ['q=a&cursor=nope', 'cursor']] as const) {
      const res = await search(query);
      expect(res.status, query).toBe(400);
      expect(res.body.details.errors[0].field).toBe(field);
    }
  });
});

describe('GET /_sandbox/quotes (the UI lists quotes; the contract has no list)', () => {
  it('lists the platform quotes both ways with cursors, each as GET /quotes/{id} answers it; bad input is an envelope', async () => {
    const api = await s.api.newPlatform();
    const customer = (await api.post('/customers', { customerType: 'INDIVIDUAL', fullName: 'Quote Maker', birthDate: '1990-01-15', nationality: 'US', currencies: ['USD'] })).body;
    const usd = (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`)).body.data[0].id;
    expect((await api.post(`/sandbox/internal-accounts/${encodeURIComponent(usd)}/fund`, { amount: 100_000 })).status).toBe(200);
    const payee = await api.post('/customers/external-accounts', usdPayee(customer.id));
    expect(payee.status).toBe(201);
    const made: string[] = [];
    for (const amount of [1000, 2000, 3000]) {
      const quote = await api.post('/quotes', { source: { sourceType: 'ACCOUNT', accountId: usd }, destination: { destinationType: 'ACCOUNT', accountId: payee.body.id }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: amount });
      expect(quote.status, JSON.stringify(quote.body)).toBe(201);
      made.push(quote.body.id);
    }
    const newest = await api.get('/_sandbox/quotes?order=desc&limit=2');
    expect(newest.status).toBe(200);
    expect(newest.body.data.map((q: { id: string }) => q.id)).toEqual([made[2], made[1]]);
    expect(newest.body).toMatchObject({ hasMore: true, totalCount: 3 });
    for (const quote of newest.body.data) expect(quote).toEqual((await api.get(`/quotes/${encodeURIComponent(quote.id)}`)).body);
    const rest = await api.get(`/_sandbox/quotes?order=desc&limit=2&cursor=${encodeURIComponent(newest.body.nextCursor)}`);
    expect(rest.body.data.map((q: { id: string }) => q.id)).toEqual([made[0]]);
    expect(rest.body.hasMore).toBe(false);
    expect((await api.get('/_sandbox/quotes')).body.data.map((q: { id: string }) => q.id)).toEqual(made);
    // Another platform sees none of them.
    expect((await s.api.get('/_sandbox/quotes?limit=100')).body.data.map((q: { id: string }) => q.id)).not.toContain(made[0]);
    for (const [query, field] of [['limit=101', 'limit'], ['order=sideways', 'order'], ['cursor=not-an-id', 'cursor']] as const) {
      const res = await api.get(`/_sandbox/quotes?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.details.errors[0].field).toBe(field);
    }
  });
});
