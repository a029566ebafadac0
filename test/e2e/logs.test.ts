import { describe, expect, it } from 'vitest';
import { loggedPath } from '../../src/server/app.js';
import { readSse } from '../../src/client/sse.js';
import { run, spawnCli, until } from '../helpers/cli.js';
import { individual, useSandbox, type Api } from '../helpers/sandbox.js';

/** The request log a platform reads back: `GET /_sandbox/logs`, its stream, and `service-sandbox logs`. */

const s = useSandbox();

interface Entry {
  method: string;
  path: string;
  status: number;
  durationMs: number;
  requestId: string;
  errorCode?: string;
  errorField?: string;
  time: string;
  sandboxTime: string;
}

/** A fresh platform with a known mix of requests: 201, 200, 400 (with a field), 404s, under /customers and /quotes. */
async function traffic(): Promise<{ api: Api; customerId: string; tokenSecret: string }> {
  const api = await s.api.newPlatform();
  const customer = await api.post('/customers', individual(['USD']));
  expect(customer.status).toBe(201);
  await api.get(`/customers/${customer.body.id}`);
  expect((await api.post('/customers', { customerType: 'INDIVIDUAL', fullName: 7 })).status).toBe(400);
  expect((await api.get('/quotes/Quote:00000000-0000-7000-8000-000000000000')).status).toBe(404);
  expect((await api.post('/quotes/Quote:00000000-0000-7000-8000-000000000000/execute', {})).status).toBe(404);
  expect((await api.get('/customers/external-accounts?limit=1')).status).toBe(200);
  const token = await api.post('/tokens', { name: 'ci', permissions: ['VIEW'] });
  expect(token.status).toBe(201);
  return { api, customerId: customer.body.id, tokenSecret: token.body.clientSecret };
}

const logs = async (api: Api, query = '') => {
  const res = await api.get<{ data: Entry[]; capacity: number }>(`/_sandbox/logs${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
};

describe('GET /_sandbox/logs', () => {
  it('lists the platform\'s requests, oldest first, with method, path, status, duration, request id and error code, and no secret', async () => {
    const { api, customerId, tokenSecret } = await traffic();
    const all = await logs(api);
    expect(all.map((e) => `${e.method} ${e.path.replace(/^\/2025-10-13/, '')} ${e.status}`)).toEqual([
      'POST /customers 201',
      `GET /customers/${customerId} 200`,
      'POST /customers 400',
      'GET /quotes/Quote:00000000-0000-7000-8000-000000000000 404',
      'POST /quotes/Quote:00000000-0000-7000-8000-000000000000/execute 404',
      'GET /customers/external-accounts 200',
      'POST /tokens 201',
    ]);
    expect(all[2]).toMatchObject({ errorCode: 'INVALID_INPUT', errorField: expect.any(String) });
    expect(all[3]).toMatchObject({ errorCode: expect.stringMatching(/NOT_FOUND/) });
    expect(all[0]!.errorCode).toBeUndefined();
    for (const entry of all) {
      expect(entry.requestId).toMatch(/^Request:/);
      expect(entry.durationMs).toBeGreaterThanOrEqual(0);
      expect(Date.parse(entry.time)).not.toBeNaN();
      expect(Date.parse(entry.sandboxTime)).not.toBeNaN();
    }
    // The answer's request id is the one of the response header.
    const read = await api.get('/config');
    expect((await logs(api)).at(-1)!.requestId).toBe(read.headers.get('X-Request-Id'));
    // Nothing of the credentials, the token's secret, a query string or a body.
    const text = JSON.stringify(await logs(api));
    for (const secret of [tokenSecret, api.clientSecret, 'limit=1', 'Jane Smith']) expect(text).not.toContain(secret);
  });

  it('filters by status class or code, by path prefix at a segment boundary, by method, and keeps the latest `limit`', async () => {
    const { api } = await traffic();
    const paths = (entries: Entry[]) => entries.map((e) => `${e.status} ${e.path.replace(/^\/2025-10-13/, '')}`);
    expect(paths(await logs(api, '?status=4xx'))).toEqual([
      '400 /customers',
      '404 /quotes/Quote:00000000-0000-7000-8000-000000000000',
      '404 /quotes/Quote:00000000-0000-7000-8000-000000000000/execute',
    ]);
    expect((await logs(api, '?status=400')).map((e) => e.status)).toEqual([400]);
    expect((await logs(api, '?status=201,4XX')).map((e) => e.status)).toEqual([201, 400, 404, 404, 201]);
    expect((await logs(api, '?status=5xx'))).toEqual([]);
    expect((await logs(api, '?path=/quotes')).map((e) => e.status)).toEqual([404, 404]);
    expect((await logs(api, '?path=/quotes&method=post')).map((e) => e.path)).toEqual(['/2025-10-13/quotes/Quote:00000000-0000-7000-8000-000000000000/execute']);
    // /customers covers /customers/{id} and /customers/external-accounts; /custom covers nothing.
    expect((await logs(api, '?path=/customers/')).length).toBe(4);
    expect(await logs(api, '?path=/custom')).toEqual([]);
    expect((await logs(api, '?status=4xx&path=/customers')).map((e) => e.status)).toEqual([400]);
    expect((await logs(api, '?limit=2')).map((e) => e.path)).toEqual(['/2025-10-13/customers/external-accounts', '/2025-10-13/tokens']);
    // Control-plane requests are logged too, under their own path.
    await api.get('/_sandbox/clock');
    expect((await logs(api, '?path=/_sandbox')).map((e) => e.path)).toEqual(['/_sandbox/clock']);
  });

  it('keeps platforms apart, leaves out requests of no platform and its own reads, and says what is wrong with a filter', async () => {
    const { api } = await traffic();
    const other = await s.api.newPlatform();
    await other.get('/config');
    expect((await logs(other)).map((e) => e.path)).toEqual(['/2025-10-13/config']);
    const before = (await logs(api)).length;
    expect((await api.get('/config', { auth: { clientId: api.clientId, clientSecret: 'wrong-secret' } })).status).toBe(401);
    await api.get('/_sandbox/logs?status=2xx');
    expect((await logs(api)).length).toBe(before);
    for (const [query, field] of [['?status=4yy', 'status'], ['?status=600', 'status'], ['?path=quotes', 'path'], ['?limit=5000', 'limit'], ['?method=GE T', 'method']] as const) {
      const res = await api.get(`/_sandbox/logs${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.details.errors[0].field).toBe(field);
    }
  });

  it('a ring of the latest 1000 per platform', async () => {
    const api = await s.api.newPlatform();
    expect((await api.get('/customers/Customer:00000000-0000-7000-8000-000000000002')).status).toBe(404);
    for (let i = 0; i < 999; i += 9) await Promise.all(Array.from({ length: 9 }, () => api.get('/config')));
    expect((await logs(api, '?status=404')).length).toBe(1);
    await api.get('/config');
    // The 1001st request pushed the first one out.
    expect(await logs(api, '?status=404')).toEqual([]);
    expect(await logs(api, '?limit=1000')).toHaveLength(1000);
    expect(await logs(api, '?limit=0')).toEqual([]);
  });

  it('masks one-time credentials in paths, as the request log does', () => {
    expect(loggedPath('/2025-10-13/agents/device-codes/ABCD-1234')).toBe('/2025-10-13/agents/device-codes/[redacted]');
    expect(loggedPath('/hosted/kyc/tok_123')).toBe('/hosted/kyc/[redacted]');
    expect(loggedPath('/hosted/kyc/session/sess_1/approve')).toBe('/hosted/kyc/session/[redacted]/approve');
    expect(loggedPath('/hosted/sca-reset/ScaReset:1/secret-token')).toBe('/hosted/sca-reset/ScaReset:1/[redacted]');
    expect(loggedPath('/hosted/ownership/ExternalAccount:1/secret-token')).toBe('/hosted/ownership/ExternalAccount:1/[redacted]');
    expect(loggedPath('/2025-10-13/customers/Customer:1')).toBe('/2025-10-13/customers/Customer:1');
  });
});

describe('GET /_sandbox/logs/stream', () => {
  it('sends the backlog, then each new request that passes the filters', async () => {
    const { api } = await traffic();
    const abort = new AbortController();
    const response = await fetch(`${s.sandbox.origin}/_sandbox/logs/stream?status=4xx&backlog=1`, {
      headers: { Authorization: `Basic ${Buffer.from(`${api.clientId}:${api.clientSecret}`).toString('base64')}` },
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    const seen: { event: string; entry?: Entry }[] = [];
    const reading = readSse(response, ({ event, data }) => {
      seen.push(event === 'request' ? { event, entry: JSON.parse(data) as Entry } : { event });
    });
    await until(() => seen.length >= 2, 5000, 'the backlog');
    await api.get('/config');
    await api.get('/customers/Customer:00000000-0000-7000-8000-000000000001');
    await until(() => seen.length >= 3, 5000, 'a new 404');
    abort.abort();
    await reading;
    expect(seen.map((m) => (m.entry ? `${m.entry.status} ${m.entry.path}` : m.event))).toEqual([
      'ready',
      '404 /2025-10-13/quotes/Quote:00000000-0000-7000-8000-000000000000/execute',
      '404 /2025-10-13/customers/Customer:00000000-0000-7000-8000-000000000001',
    ]);
  });
});

describe('service-sandbox logs', () => {
  const flags = (api: Api) => ['--url', s.sandbox.origin, '--client-id', api.clientId, '--client-secret', api.clientSecret];

  it('prints the filtered log as lines or JSON', async () => {
    const { api } = await traffic();
    const lines = await run(['logs', '--status', '4xx', '--path', '/quotes', ...flags(api)]);
    expect(lines.status, lines.stderr).toBe(0);
    const printed = lines.stdout.trim().split('\n');
    expect(printed).toHaveLength(2);
    expect(printed[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} GET {4}\/2025-10-13\/quotes\/Quote:\S+ 404 \S*NOT_FOUND \d+\.\dms Request:\S+$/);
    expect(printed[1]).toMatch(/ POST {3}\/2025-10-13\/quotes\/Quote:\S+\/execute 404 /);
    const json = await run(['logs', '--json', '--status', '400', ...flags(api)]);
    const entries = json.stdout.trim().split('\n').map((l) => JSON.parse(l) as Entry);
    expect(entries.map((e) => [e.status, e.errorCode])).toEqual([[400, 'INVALID_INPUT']]);
    const bad = await run(['logs', '--status', 'bad', ...flags(api)]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^service-sandbox: 400 status bad is not a status filter/);
  });

  it('--follow prints new requests as they are answered', async () => {
    const { api } = await traffic();
    const { child, output } = spawnCli(['logs', '--follow', '--limit', '0', '--status', '404', ...flags(api)]);
    await until(() => output.stdout.includes('following the requests'), 10_000, 'the follow banner');
    await api.get('/config');
    await api.get('/cards/Card:00000000-0000-7000-8000-000000000009');
    await until(() => output.stdout.includes('Card:00000000-0000-7000-8000-000000000009'), 10_000, 'the 404 line');
    child.kill('SIGTERM');
    expect(output.stdout).not.toContain('/config');
  });
});
