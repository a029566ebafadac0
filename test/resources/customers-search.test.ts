import { describe, expect, it } from 'vitest';
import { assertFitsSchema } from '../helpers/contract.js';
import { unique, useSandbox } from '../helpers/sandbox.js';

/**
 * GET /_sandbox/search/customers: the terminal UI's `/` over customers. Prefixes of names,
 * emails, platform customer ids and UMA addresses in any case, an exact id, both orders, cursors,
 * deleted and other platforms' customers never shown, bad input as an envelope.
 */
const s = useSandbox();

async function customer(fullName: string, extra: Record<string, unknown> = {}) {
  const res = await s.api.post('/customers', { customerType: 'INDIVIDUAL', fullName, birthDate: '1990-01-15', nationality: 'US', ...extra });
  expect(res.status).toBe(201);
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
