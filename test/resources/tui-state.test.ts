import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/index.js';
import { parseFixtureText } from '../../src/core/fixture-text.js';
import { Api, unique, useSandbox } from '../helpers/sandbox.js';

const s = useSandbox();
const demo = readFileSync(new URL('../../fixtures/demo.json', import.meta.url), 'utf8');

const person = (name: string) => ({ beneficiaryType: 'INDIVIDUAL', fullName: name, countryOfResidence: 'US', phoneNumber: '+14155551234', address: { line1: '1 Main Street', postalCode: '94105', country: 'US' } });
const usdBank = (ref: string, accountNumber: string) => ({
  ref,
  currency: 'USD',
  accountInfo: { accountType: 'USD_ACCOUNT', accountNumber, routingNumber: '021000021', bankAccountType: 'CHECKING', beneficiary: person('Ann Lee') },
});

/** A small fixture for one platform: a funded customer with a bank account and an executed quote (a pending payout job). */
const smallFixture = () => ({
  platforms: [
    {
      balances: { USD: 500000 },
      customers: [
        {
          ref: 'ann',
          customerType: 'INDIVIDUAL',
          platformCustomerId: unique('ann'),
          fullName: 'Ann Lee',
          birthDate: '1990-01-15',
          nationality: 'US',
          currencies: ['USD', 'EUR'],
          balances: { USD: 100000 },
          externalAccounts: [usdBank('ann-bank', '11112222003')],
        },
        { ref: 'bob', customerType: 'INDIVIDUAL', platformCustomerId: unique('bob'), fullName: 'Bob Stone001', birthDate: '1980-02-02', nationality: 'US', currencies: ['USD'], kyc: 'HOLD' },
      ],
      quotes: [
        {
          ref: 'payout',
          source: { sourceType: 'ACCOUNT', accountId: '{{ann.USD}}' },
          destination: { destinationType: 'ACCOUNT', accountId: '{{ann-bank}}' },
          lockedCurrencySide: 'SENDING',
          lockedCurrencyAmount: 2500,
          execute: true,
        },
      ],
    },
  ],
});

const load = (api: Api, fixture: unknown, file = 'test.json') => api.post(`/_sandbox/fixtures?file=${file}`, fixture);

describe('fixtures', () => {
  it('fixtures/demo.json loads: both platforms, customers in every KYC state, funded accounts, external accounts, a webhook endpoint', async () => {
    const api = await s.api.newPlatform();
    const res = await load(api, JSON.parse(demo), 'demo.json');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ platforms: 2, customers: 8, externalAccounts: 3, quotes: 1 });
    const customers = (await api.get('/customers')).body.data as { platformCustomerId: string; kycStatus?: string; kybStatus?: string; contactVerification?: Record<string, string> }[];
    expect(customers.map((c) => c.platformCustomerId)).toEqual(['demo-jane', 'demo-marco', 'demo-held', 'demo-acme']);
    expect(customers.find((c) => c.platformCustomerId === 'demo-held')!.kycStatus).toBe('HOLD');
    expect(JSON.stringify(customers.find((c) => c.platformCustomerId === 'demo-marco')!.contactVerification)).not.toContain('PENDING');
    expect((await api.get('/config')).body.webhookEndpoint).toBe('http://127.0.0.1:4000/webhooks');
    const platformUsd = ((await api.get('/platform/internal-accounts')).body.data as { balance: { amount: number; currency: { code: string } } }[]).find((a) => a.balance.currency.code === 'USD');
    expect(platformUsd!.balance.amount).toBe(10000000);
    const unregulated = api.as('demo-unregulated', 'demo-unregulated-secret');
    const states = ((await unregulated.get('/customers')).body.data as { kycStatus: string }[]).map((c) => c.kycStatus).sort();
    expect(states.length).toBe(4);
    expect(new Set(states).size).toBeGreaterThanOrEqual(3);
  });

  it('references resolve ({{ref}}, {{ref.CUR}}): the executed quote pays from the customer account to its bank account', async () => {
    const api = await s.api.newPlatform();
    expect((await load(api, smallFixture())).status).toBe(200);
    const transactions = (await api.get('/transactions')).body.data as { type: string; status: string }[];
    expect(transactions.some((t) => t.type === 'OUTGOING' && t.status === 'PROCESSING')).toBe(true);
    const bob = ((await api.get('/customers')).body.data as { fullName: string; kycStatus: string }[]).find((c) => c.fullName === 'Bob Stone001');
    expect(bob!.kycStatus).toBe('HOLD');
  });

  it('a broken entry is a 400 naming the file, the entry and the field, and nothing of the load is kept', async () => {
    const api = await s.api.newPlatform();
    const clientId = unique('fx-platform');
    const fixture = smallFixture();
    fixture.platforms.push({
      clientId,
      clientSecret: 'fx-platform-secret',
      customers: [{ ref: 'bad', customerType: 'INDIVIDUAL', fullName: 'Broken Birthdate', birthDate: '1990-13-45', nationality: 'US' }],
    } as never);
    const res = await load(api, fixture, 'broken.json');
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('broken.json');
    expect(res.body.details).toMatchObject({ file: 'broken.json', entry: 'platforms[1].customers[0] (bad)', field: 'birthDate' });
    expect((await api.get('/customers')).body.data).toEqual([]);
    expect((await api.get('/transactions')).body.data).toEqual([]);
    expect((await api.as(clientId, 'fx-platform-secret').get('/config', { unchecked: true })).status).toBe(401);
  });

  it('an unknown reference and an unknown key are named too', async () => {
    const api = await s.api.newPlatform();
    const unknownRef = await load(api, { platforms: [{ quotes: [{ source: { sourceType: 'ACCOUNT', accountId: '{{nobody.USD}}' } }] }] });
    expect(unknownRef.status).toBe(400);
    expect(unknownRef.body.details).toMatchObject({ entry: 'platforms[0].quotes[0]', field: 'source.accountId' });
    const unknownKey = await load(api, { platforms: [{ customer: [] }] });
    expect(unknownKey.body.details).toMatchObject({ entry: 'platforms[0]', field: 'customer' });
    expect((await load(api, { nothing: true })).body.details).toMatchObject({ field: 'platforms' });
  });

  it('YAML fixtures parse to the same document', () => {
    const yaml = 'platforms:\n  - balances: { USD: 100 }\n    customers:\n      - ref: a\n        customerType: INDIVIDUAL\n';
    expect(parseFixtureText('f.yaml', yaml)).toEqual({ platforms: [{ balances: { USD: 100 }, customers: [{ ref: 'a', customerType: 'INDIVIDUAL' }] }] });
    expect(() => parseFixtureText('f.json', '{')).toThrow(/f\.json: the file: not valid JSON/);
  });
});

describe('snapshots', () => {
  it('export then import into a fresh sandbox reproduces every GET byte for byte, the clock and pending jobs included', async () => {
    const api = await s.api.newPlatform();
    expect((await load(api, smallFixture())).status).toBe(200);
    await api.advance(2);
    const snapshot = await api.get('/_sandbox/snapshot');
    expect(snapshot.status).toBe(200);
    expect(snapshot.body.format).toBe('service-sandbox-snapshot');
    expect(snapshot.body.tables.customers.rows.length).toBe(2);
    expect(snapshot.body.tables.jobs.rows.length).toBeGreaterThan(0);

    const fresh = await startSandbox();
    try {
      const target = new Api(fresh);
      const imported = await target.post('/_sandbox/snapshot', snapshot.body);
      expect(imported.status).toBe(200);
      expect(imported.body.platformId).toBe(snapshot.body.platformId);
      const customers = (await api.get('/customers')).body.data as { id: string }[];
      const transactions = (await api.get('/transactions')).body.data as { id: string; quoteId?: string }[];
      const paths = [
        '/config',
        '/customers',
        '/customers/internal-accounts?limit=100',
        '/platform/internal-accounts',
        '/customers/external-accounts',
        '/platform/external-accounts',
        '/transactions',
        ...customers.map((c) => `/customers/${c.id}`),
        ...transactions.map((t) => `/transactions/${t.id}`),
        ...transactions.filter((t) => t.quoteId).map((t) => `/quotes/${t.quoteId}`),
        '/_sandbox/webhooks/deliveries?limit=100',
        '/_sandbox/jobs?limit=100',
      ];
      for (const path of paths) {
        const [a, b] = await Promise.all([api.get(path, { unchecked: true }), target.get(path, { unchecked: true })]);
        expect(b.status, path).toBe(a.status);
        // Pending jobs keep how far ahead of the clock they were (real time passed between export and
        // import): their due times match within a second or two, not to the millisecond; all else is
        // byte for byte.
        const dueTimes = (body: unknown) => [...JSON.stringify(body).matchAll(/"dueAt":"([^"]+)"/g)].map((m) => Date.parse(m[1]!));
        const norm = (body: unknown) =>
          JSON.stringify(body)
            .replace(/"dueInSeconds":[\d.]+/g, '"dueInSeconds":"(compared apart)"')
            .replace(/"dueAt":"([^"]+)"/g, '"dueAt":"(compared apart)"');
        expect(norm(b.body), path).toBe(norm(a.body));
        const [dueA, dueB] = [dueTimes(a.body), dueTimes(b.body)];
        expect(dueB.length, path).toBe(dueA.length);
        dueA.forEach((at, i) => expect(Math.abs(dueB[i]! - at), `${path} dueAt #${i}`).toBeLessThan(2000));
        const inSeconds = (body: unknown) => [...JSON.stringify(body).matchAll(/"dueInSeconds":([\d.]+)/g)].map((m) => Number(m[1]));
        const [inA, inB] = [inSeconds(a.body), inSeconds(b.body)];
        expect(inB.length, path).toBe(inA.length);
        inA.forEach((n, i) => expect(Math.abs(inB[i]! - n), `${path} dueInSeconds #${i}`).toBeLessThan(2));
      }
      const [clockA, clockB] = await Promise.all([api.get('/_sandbox/clock'), target.get('/_sandbox/clock')]);
      expect(clockB.body.offsetSeconds).toBeCloseTo(clockA.body.offsetSeconds, 0);
      expect(Math.abs(Date.parse(clockB.body.now) - Date.parse(clockA.body.now))).toBeLessThan(2000);
      // The pending payout runs in both after the same sandbox time.
      await Promise.all([api.advance(600), target.advance(600)]);
      const after = async (x: Api) => ((await x.get('/transactions')).body.data as { status: string }[]).map((t) => t.status);
      expect(await after(target)).toEqual(await after(api));
      expect(await after(target)).toContain('COMPLETED');
    } finally {
      await fresh.close();
    }
  });

  it('importing replaces the platform data; rows that still exist under another platform are a 409 and nothing changes', async () => {
    const source = await s.api.newPlatform();
    expect((await load(source, smallFixture())).status).toBe(200);
    const snapshot = (await source.get('/_sandbox/snapshot')).body;
    const target = await s.api.newPlatform();
    await target.post('/customers', { customerType: 'INDIVIDUAL', fullName: 'Kept Person', birthDate: '1990-01-01', nationality: 'US' });
    const collision = await target.post('/_sandbox/snapshot', snapshot);
    expect(collision.status).toBe(409);
    expect(((await target.get('/customers')).body.data as { fullName: string }[]).map((c) => c.fullName)).toEqual(['Kept Person']);
    // Once the source platform is reset, the snapshot moves to the caller (its id stays the caller's).
    await source.post('/_sandbox/reset');
    const imported = await target.post('/_sandbox/snapshot', snapshot);
    expect(imported.status).toBe(200);
    expect(imported.body.platformId).not.toBe(snapshot.platformId);
    const names = ((await target.get('/customers')).body.data as { fullName: string }[]).map((c) => c.fullName);
    expect(names).toEqual(['Ann Lee', 'Bob Stone001']);
    const platformTransactions = ((await target.get('/transactions')).body.data as { customerId?: string }[]).filter((t) => t.customerId?.startsWith('Platform:'));
    for (const t of platformTransactions) expect(t.customerId).toBe(imported.body.platformId);
  });

  it('a file that is not a snapshot is a 400', async () => {
    const api = await s.api.newPlatform();
    expect((await api.post('/_sandbox/snapshot', { hello: 1 })).status).toBe(400);
    const wrongTable = await api.post('/_sandbox/snapshot', { ...(await api.get('/_sandbox/snapshot')).body, tables: { nope: { columns: ['platform_id'], rows: [] } } });
    expect(wrongTable.status).toBe(400);
    expect(wrongTable.body.message).toContain('nope');
  });
});

describe('change stream and jobs', () => {
  it('GET /_sandbox/changes sends a change within 200 ms of a write by any client', async () => {
    const api = await s.api.newPlatform();
    const controller = new AbortController();
    const response = await fetch(`${s.sandbox.origin}/_sandbox/changes`, {
      headers: { Authorization: `Basic ${Buffer.from(`${api.clientId}:${api.clientSecret}`).toString('base64')}` },
      signal: controller.signal,
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const until = async (pattern: RegExp) => {
      while (!pattern.test(text)) text += decoder.decode((await reader.read()).value, { stream: true });
    };
    await until(/event: ready/);
    const started = performance.now();
    await api.post('/customers', { customerType: 'INDIVIDUAL', fullName: 'Live Change', birthDate: '1990-01-01', nationality: 'US' });
    await until(/"kind":"request","platformId":"[^"]+","method":"POST","path":"\/2025-10-13\/customers"/);
    expect(performance.now() - started).toBeLessThan(200);
    await api.advance(1);
    await until(/"kind":"clock"/);
    // Another platform's writes are not sent.
    const other = await s.api.newPlatform();
    await other.post('/customers', { customerType: 'INDIVIDUAL', fullName: 'Someone Else', birthDate: '1990-01-01', nationality: 'US' });
    await api.post('/_sandbox/reset');
    await until(/\/_sandbox\/reset/);
    expect(text).not.toContain(other.clientId);
    controller.abort();
  });

  it('GET /_sandbox/jobs lists the platform jobs by due time with cursor pagination', async () => {
    const api = await s.api.newPlatform();
    await api.patch('/config', { webhookEndpoint: 'http://127.0.0.1:9/refused' });
    for (let i = 0; i < 3; i += 1) await api.post('/customers', { customerType: 'INDIVIDUAL', fullName: `Retry Person${i}`, birthDate: '1990-01-01', nationality: 'US' });
    expect((await load(api, smallFixture())).status).toBe(200);
    const first = await api.get('/_sandbox/jobs?limit=1');
    expect(first.body.data.length).toBe(1);
    expect(first.body.totalCount).toBeGreaterThan(1);
    const second = await api.get(`/_sandbox/jobs?limit=100&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    const all = [...first.body.data, ...second.body.data] as { dueAt: string; kind: string }[];
    expect(all.length).toBe(first.body.totalCount);
    expect([...all].sort((a, b) => a.dueAt.localeCompare(b.dueAt))).toEqual(all);
    expect(all.map((j) => j.kind)).toContain('payout.step');
    expect((await api.get('/_sandbox/jobs?cursor=zzz')).status).toBe(400);
  });
});
