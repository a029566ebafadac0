import { describe, expect, it } from 'vitest';
import { Api, individual, useSandbox } from '../helpers/sandbox.js';

// Transaction lists are joined from each row's stored wire JSON: every write path
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

describe('lists from stored wire JSON', () => {
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
});
