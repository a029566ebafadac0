import { describe, expect, it } from 'vitest';
import { auditLedger } from '../../src/resources/ledger/index.js';
import { platformService } from '../../src/tenancy/index.js';
import { getReceiverLookup, resolveUmaAddress } from '../../src/resources/uma/index.js';
import { assertFitsWebhook } from '../helpers/contract.js';
import { individual, unique, useSandbox, type Api } from '../helpers/sandbox.js';

const s = useSandbox();

const person = { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Smith', countryOfResidence: 'US', address: { line1: '1 Main Street', postalCode: '94105', country: 'US' } };
const consent = { acceptedAt: '2025-10-20T10:00:00Z', ipAddress: '203.0.113.7', termsVersion: '2025-10-13', acceptanceMethod: 'CHECKBOX' };

async function newCustomer(api: Api, extra: Record<string, unknown> = {}) {
  const res = await api.post('/customers', individual(['USD', 'EUR'], extra));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; umaAddress: string; platformCustomerId: string };
}

async function accountIn(api: Api, customerId: string, currency: string) {
  const res = await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&limit=100`);
  const account = res.body.data.find((a: { balance: { currency: { code: string } } }) => a.balance.currency.code === currency);
  return { id: account.id as string, balance: account.balance.amount as number, total: account.totalBalance.amount as number };
}

async function setup(platform: { regulated?: boolean } = {}) {
  const api = await s.api.newPlatform(platform);
  const platformId = platformService(s.sandbox.context).byClientId(api.clientId)!.id;
  const sender = await newCustomer(api, { umaAddress: `$${unique('sender').toLowerCase()}@sandbox.uma.money` });
  return { api, platformId, sender };
}

const lookup = (api: Api, address: string, query: string) => api.get(`/receiver/uma/${encodeURIComponent(address)}?${query}`);

function eventsOf(platformId: string, resourceId: string) {
  return s.sandbox.context.outbox.list(platformId, 0, 10_000).filter((e) => e.resourceId === resourceId);
}

describe('GET /receiver/uma/{address}', () => {
  it('resolves every sandbox test address with its currency, limits, an estimated rate and a stored lookup', async () => {
    const { api, sender } = await setup();
    const expected: Record<string, string> = {
      '$success.usd@sandbox.uma.money': 'USD',
      '$success.eur@sandbox.uma.money': 'EUR',
      '$success.mxn@sandbox.uma.money': 'MXN',
      '$pending.long.usd@sandbox.uma.money': 'USD',
      '$fail.compliance.usd@sandbox.uma.money': 'USD',
    };
    const ids = new Set<string>();
    for (const [address, currency] of Object.entries(expected)) {
      const res = await lookup(api, address, `customerId=${encodeURIComponent(sender.id)}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.receiverUmaAddress).toBe(address);
      expect(res.body.lookupId).toMatch(/^Lookup:/);
      ids.add(res.body.lookupId);
      expect(res.body.supportedCurrencies).toHaveLength(1);
      const preference = res.body.supportedCurrencies[0];
      expect(preference.currency).toMatchObject({ code: currency, decimals: 2 });
      expect(preference.min).toBeGreaterThan(0);
      expect(preference.max).toBeGreaterThan(preference.min);
      // The sender pays from USD: USD is 1:1, EUR below 1, MXN well above 1.
      if (currency === 'USD') expect(preference.estimatedExchangeRate).toBe(1);
      if (currency === 'EUR') expect(preference.estimatedExchangeRate).toBeGreaterThan(0.85);
      if (currency === 'EUR') expect(preference.estimatedExchangeRate).toBeLessThan(0.97);
      if (currency === 'MXN') expect(preference.estimatedExchangeRate).toBeGreaterThan(15);
      expect(res.body.requiredPayerDataFields.map((f: { name: string }) => f.name)).toContain('FULL_NAME');
    }
    expect(ids.size).toBe(5);
  });

  it('compares addresses case-insensitively and accepts the sender by UMA address', async () => {
    const { api, sender } = await setup();
    const res = await lookup(api, '$SUCCESS.EUR@Sandbox.UMA.Money', `senderUmaAddress=${encodeURIComponent(sender.umaAddress.toUpperCase())}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.receiverUmaAddress).toBe('$success.eur@sandbox.uma.money');
    // The path may also come unencoded.
    const raw = await api.get(`/receiver/uma/$success.usd@sandbox.uma.money?customerId=${encodeURIComponent(sender.id)}`);
    expect(raw.status).toBe(200);
    expect(raw.body.supportedCurrencies[0].currency.code).toBe('USD');
  });

  it("resolves the platform's own customers: internal-account currencies, or only the default UMA deposit account's", async () => {
    const { api, sender } = await setup();
    const receiver = await newCustomer(api, { umaAddress: `$${unique('bob').toLowerCase()}@sandbox.uma.money`, currencies: ['USD', 'EUR', 'MXN'] });
    const res = await lookup(api, receiver.umaAddress, `customerId=${encodeURIComponent(sender.id)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const codes = res.body.supportedCurrencies.map((p: { currency: { code: string } }) => p.currency.code).sort();
    expect(codes).toEqual(['EUR', 'MXN', 'USD']);
    const mxn = res.body.supportedCurrencies.find((p: { currency: { code: string } }) => p.currency.code === 'MXN');
    expect(mxn).toMatchObject({ min: 2_000, max: 200_000_000 }); // the platform's MXN limits (GET /config)
    const fields = res.body.requiredPayerDataFields.map((f: { name: string }) => f.name);
    expect(fields).toEqual(expect.arrayContaining(['FULL_NAME', 'BIRTH_DATE', 'NATIONALITY']));

    const external = await api.post('/customers/external-accounts', {
      customerId: receiver.id,
      currency: 'USD',
      defaultUmaDepositAccount: true,
      accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '4400123456', routingNumber: '021000021', bankName: 'Chase Bank', beneficiary: person },
    });
    expect(external.status, JSON.stringify(external.body)).toBe(201);
    const after = await lookup(api, receiver.umaAddress, `customerId=${encodeURIComponent(sender.id)}`);
    expect(after.body.supportedCurrencies.map((p: { currency: { code: string } }) => p.currency.code)).toEqual(['USD']);
  });

  it('answers 404 UMA_NOT_FOUND for well-formed unknown addresses, including another platform\'s customer', async () => {
    const { api, sender } = await setup();
    const q = `customerId=${encodeURIComponent(sender.id)}`;
    for (const address of ['$nobody@sandbox.uma.money', '$success.gbp@sandbox.uma.money', '$alice@vasp.example']) {
      const res = await lookup(api, address, q);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('UMA_NOT_FOUND');
    }
    const other = await setup();
    const res = await lookup(api, other.sender.umaAddress, q);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('UMA_NOT_FOUND');
  });

  it('answers 400 INVALID_UMA_ADDRESS for malformed addresses', async () => {
    const { api, sender } = await setup();
    const q = `customerId=${encodeURIComponent(sender.id)}`;
    const malformed = ['alice@vasp.example', '$@vasp.example', '$al ice@vasp.example', '$alice@localhost', '$alice', '$ali$ce@vasp.example', '$alice@-vasp.example', `$${'a'.repeat(64)}@vasp.example`];
    for (const address of malformed) {
      const res = await lookup(api, address, q);
      expect(res.status, address).toBe(400);
      expect(res.body.code).toBe('INVALID_UMA_ADDRESS');
    }
    // 63 characters after the $ is the longest user part (UMAD-01: 64 with the $).
    expect((await lookup(api, `$${'a'.repeat(63)}@vasp.example`, q)).body.code).toBe('UMA_NOT_FOUND');
    expect((await lookup(api, '$success.usd@sandbox.uma.money', 'senderUmaAddress=not-an-address')).body.code).toBe('INVALID_UMA_ADDRESS');
  });

  it('needs a known sender and refuses paying oneself', async () => {
    const { api, sender } = await setup();
    const none = await lookup(api, '$success.usd@sandbox.uma.money', '');
    expect(none.status).toBe(400);
    expect(none.body.code).toBe('INVALID_INPUT');
    expect(none.body.details.errors.map((e: { field: string }) => e.field)).toEqual(['customerId', 'senderUmaAddress']);
    const unknown = await lookup(api, '$success.usd@sandbox.uma.money', 'customerId=Customer:nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('USER_NOT_FOUND');
    const stranger = await lookup(api, '$success.usd@sandbox.uma.money', 'senderUmaAddress=%24stranger%40vasp.example');
    expect(stranger.status).toBe(404);
    const self = await lookup(api, sender.umaAddress, `customerId=${encodeURIComponent(sender.id)}`);
    expect(self.status).toBe(400);
    expect(self.body.code).toBe('SELF_PAYMENT');
    const other = await newCustomer(api);
    const mismatch = await lookup(api, '$success.usd@sandbox.uma.money', `customerId=${encodeURIComponent(other.id)}&senderUmaAddress=${encodeURIComponent(sender.umaAddress)}`);
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.details.errors[0].field).toBe('senderUmaAddress');
  });
});

describe('what quotes use: resolveUmaAddress and getReceiverLookup', () => {
  it('gives behaviour, currencies with limits and the receiving account; lookups are kept per platform', async () => {
    const { api, platformId, sender } = await setup();
    const ctx = s.sandbox.context;
    const platform = platformService(ctx).byClientId(api.clientId)!;
    expect(resolveUmaAddress(ctx, platform, '$pending.long.usd@sandbox.uma.money')).toMatchObject({
      kind: 'SANDBOX_TEST_ADDRESS',
      behaviour: 'PENDING_LONG',
      pendingSeconds: 4 * 3600,
      currencies: [{ code: 'USD', min: 1, max: 10_000_000 }],
    });
    expect(resolveUmaAddress(ctx, platform, '$fail.compliance.usd@sandbox.uma.money')).toMatchObject({ behaviour: 'FAILS_COMPLIANCE', failureReason: 'COMPLIANCE_REJECTED' });
    const usd = await accountIn(api, sender.id, 'USD');
    const own = resolveUmaAddress(ctx, platform, sender.umaAddress);
    expect(own).toMatchObject({ kind: 'PLATFORM_CUSTOMER', behaviour: 'SUCCEEDS', customer: { id: sender.id } });
    expect(own.currencies.find((c) => c.code === 'USD')).toEqual({ code: 'USD', min: 100, max: 10_000_000, internalAccountId: usd.id });

    const res = await lookup(api, '$success.eur@sandbox.uma.money', `customerId=${encodeURIComponent(sender.id)}`);
    const stored = getReceiverLookup(ctx, platformId, res.body.lookupId);
    expect(stored).toMatchObject({ kind: 'UMA_ADDRESS', receiver: '$success.eur@sandbox.uma.money', senderCustomerId: sender.id, response: res.body });
    const other = await setup();
    expect(() => getReceiverLookup(ctx, other.platformId, res.body.lookupId)).toThrow(expect.objectContaining({ status: 404, code: 'LOOKUP_REQUEST_NOT_FOUND' }));
  });
});

describe('GET /receiver/external-account/{accountId}', () => {
  it("answers the account's currency with the platform's limits and an estimated rate; 404 for unknown and foreign ids", async () => {
    const { api, sender } = await setup();
    const payee = await newCustomer(api);
    const external = await api.post('/customers/external-accounts', {
      customerId: payee.id,
      currency: 'EUR',
      accountInfo: { accountType: 'EUR_ACCOUNT', iban: 'DE89370400440532013000', beneficiary: { ...person, address: { line1: 'Hauptstrasse 1', postalCode: '10115', country: 'DE' } } },
    });
    expect(external.status, JSON.stringify(external.body)).toBe(201);
    const res = await api.get(`/receiver/external-account/${external.body.id}?customerId=${encodeURIComponent(sender.id)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.accountId).toBe(external.body.id);
    expect(res.body.lookupId).toMatch(/^Lookup:/);
    expect(res.body.supportedCurrencies).toHaveLength(1);
    expect(res.body.supportedCurrencies[0]).toMatchObject({ currency: { code: 'EUR' }, min: 100, max: 10_000_000 });
    expect(res.body.supportedCurrencies[0].estimatedExchangeRate).toBeLessThan(1);
    expect(res.body.requiredPayerDataFields.map((f: { name: string }) => f.name)).toEqual(['FULL_NAME', 'BIRTH_DATE', 'NATIONALITY']);

    const missing = await api.get(`/receiver/external-account/ExternalAccount:nope?customerId=${encodeURIComponent(sender.id)}`);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('REFERENCE_NOT_FOUND');
    const other = await setup();
    const foreign = await other.api.get(`/receiver/external-account/${external.body.id}?customerId=${encodeURIComponent(other.sender.id)}`);
    expect(foreign.status).toBe(404);
    expect((await api.get(`/receiver/external-account/${external.body.id}`)).status).toBe(400);
  });
});

describe('POST /sandbox/uma/receive', () => {
  it('$success.usd credits the internal account at once and fires INCOMING_PAYMENT.COMPLETED', async () => {
    const { api, platformId } = await setup();
    const customer = await newCustomer(api, { umaAddress: `$${unique('rx').toLowerCase()}@sandbox.uma.money` });
    const res = await api.post('/sandbox/uma/receive', {
      senderUmaAddress: '$success.usd@sandbox.uma.money',
      receiverUmaAddress: customer.umaAddress,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 12_345,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const usd = await accountIn(api, customer.id, 'USD');
    expect(res.body).toMatchObject({
      type: 'INCOMING',
      status: 'COMPLETED',
      direction: 'CREDIT',
      customerId: customer.id,
      platformCustomerId: customer.platformCustomerId,
      source: { sourceType: 'UMA_ADDRESS', umaAddress: '$success.usd@sandbox.uma.money', currency: 'USD' },
      destination: { destinationType: 'ACCOUNT', accountId: usd.id, currency: 'USD' },
      receivedAmount: { amount: 12_345, currency: { code: 'USD' } },
      sentAmount: { amount: 12_345, currency: { code: 'USD' } },
      exchangeRate: 1,
      counterpartyInformation: { FULL_NAME: 'Alex Success' },
    });
    expect(res.body.settledAt).toBeDefined();
    expect(usd).toMatchObject({ balance: 12_345, total: 12_345 });
    expect((await api.get(`/transactions/${res.body.id}`)).body).toEqual(res.body);
    const events = eventsOf(platformId, res.body.id);
    expect(events.map((e) => e.type)).toEqual(['INCOMING_PAYMENT.COMPLETED']);
    assertFitsWebhook('incoming-payment', { id: events[0]!.id, type: events[0]!.type, timestamp: events[0]!.createdAt, data: events[0]!.data });
    expect(auditLedger(s.sandbox.context, platformId)).toEqual([]);
  });

  it('$success.mxn paying USD records the MXN sent at the rate, rounded up', async () => {
    const { api } = await setup();
    const customer = await newCustomer(api);
    const res = await api.post('/sandbox/uma/receive', {
      senderUmaAddress: '$success.mxn@sandbox.uma.money',
      customerId: customer.id,
      receivingCurrencyCode: 'usd',
      receivingCurrencyAmount: 10_000,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.sentAmount.currency.code).toBe('MXN');
    const rate = res.body.exchangeRate as number;
    expect(rate).toBeGreaterThan(0.04);
    expect(rate).toBeLessThan(0.07);
    expect(res.body.sentAmount.amount).toBe(Math.ceil(10_000 / rate));
    expect((await accountIn(api, customer.id, 'USD')).balance).toBe(10_000);
  });

  it('$pending.long.usd stays PENDING (incoming, not spendable) for hours of sandbox time, then completes', async () => {
    const { api, platformId } = await setup();
    const customer = await newCustomer(api);
    const res = await api.post('/sandbox/uma/receive', {
      senderUmaAddress: '$pending.long.usd@sandbox.uma.money',
      customerId: customer.id,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 5_000,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('PENDING');
    expect(res.body.settledAt).toBeUndefined();
    expect(await accountIn(api, customer.id, 'USD')).toMatchObject({ balance: 0, total: 5_000 });
    await api.advance(3 * 3600);
    expect((await api.get(`/transactions/${res.body.id}`)).body.status).toBe('PENDING');
    await api.advance(3600 + 60);
    const done = await api.get(`/transactions/${res.body.id}`);
    expect(done.body.status).toBe('COMPLETED');
    expect(done.body.settledAt).toBeDefined();
    expect(await accountIn(api, customer.id, 'USD')).toMatchObject({ balance: 5_000, total: 5_000 });
    const events = eventsOf(platformId, res.body.id);
    expect(events.map((e) => e.type)).toEqual(['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.COMPLETED']);
    for (const e of events) assertFitsWebhook('incoming-payment', { id: e.id, type: e.type, timestamp: e.createdAt, data: e.data });
    expect(auditLedger(s.sandbox.context, platformId)).toEqual([]);
  });

  it('$fail.compliance.usd fails with COMPLIANCE_REJECTED and credits nothing', async () => {
    const { api, platformId } = await setup();
    const customer = await newCustomer(api);
    const res = await api.post('/sandbox/uma/receive', {
      senderUmaAddress: '$fail.compliance.usd@sandbox.uma.money',
      customerId: customer.id,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 5_000,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: 'FAILED', failureReason: 'COMPLIANCE_REJECTED' });
    expect(await accountIn(api, customer.id, 'USD')).toMatchObject({ balance: 0, total: 0 });
    expect(eventsOf(platformId, res.body.id).map((e) => e.type)).toEqual(['INCOMING_PAYMENT.FAILED']);
  });

  it("goes to the customer's default UMA deposit account when one is set, leaving internal balances alone", async () => {
    const { api } = await setup();
    const customer = await newCustomer(api);
    const external = await api.post('/customers/external-accounts', {
      customerId: customer.id,
      currency: 'USD',
      defaultUmaDepositAccount: true,
      accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '5500123456', routingNumber: '021000021', bankName: 'Chase Bank', beneficiary: person },
    });
    expect(external.status).toBe(201);
    const res = await api.post('/sandbox/uma/receive', {
      senderUmaAddress: '$success.usd@sandbox.uma.money',
      customerId: customer.id,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 7_500,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: 'COMPLETED', destination: { destinationType: 'ACCOUNT', accountId: external.body.id, currency: 'USD' } });
    expect(res.body.description).toContain('default UMA deposit account');
    expect(await accountIn(api, customer.id, 'USD')).toMatchObject({ balance: 0, total: 0 });
    // The deposit account receives USD only.
    const eur = await api.post('/sandbox/uma/receive', { senderUmaAddress: '$success.eur@sandbox.uma.money', customerId: customer.id, receivingCurrencyCode: 'EUR', receivingCurrencyAmount: 7_500 });
    expect(eur.status).toBe(400);
    expect(eur.body.code).toBe('INVALID_CURRENCY');
  });

  it('refuses unknown senders and receivers, bad currencies and amounts, and customers not ready; nothing is written', async () => {
    const { api, platformId } = await setup();
    const customer = await newCustomer(api);
    const base = { senderUmaAddress: '$success.usd@sandbox.uma.money', customerId: customer.id, receivingCurrencyCode: 'USD', receivingCurrencyAmount: 1_000 };
    const cases: [Record<string, unknown>, number, string][] = [
      [{ ...base, senderUmaAddress: '$someone@vasp.example' }, 404, 'UMA_NOT_FOUND'],
      [{ ...base, senderUmaAddress: 'success.usd@sandbox.uma.money' }, 400, 'INVALID_UMA_ADDRESS'],
      [{ ...base, customerId: undefined }, 400, 'INVALID_INPUT'],
      [{ ...base, customerId: 'Customer:nope' }, 404, 'USER_NOT_FOUND'],
      [{ ...base, customerId: undefined, receiverUmaAddress: '$ghost@sandbox.uma.money' }, 404, 'UMA_NOT_FOUND'],
      [{ ...base, receivingCurrencyCode: 'GBP' }, 400, 'INVALID_CURRENCY'],
      [{ ...base, receivingCurrencyCode: 'XYZ' }, 400, 'INVALID_CURRENCY'],
      [{ ...base, receivingCurrencyAmount: 99 }, 400, 'AMOUNT_OUT_OF_RANGE'],
      [{ ...base, receivingCurrencyAmount: 10_000_001 }, 400, 'TRANSACTION_SIZE_LIMIT_EXCEEDED'],
      [{ ...base, receivingCurrencyAmount: 0 }, 400, 'INVALID_INPUT'],
      [{ ...base, receivingCurrencyAmount: 10.5 }, 400, 'INVALID_INPUT'],
    ];
    for (const [body, status, code] of cases) {
      const res = await api.post('/sandbox/uma/receive', body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.code).toBe(code);
    }
    const other = await newCustomer(api);
    const mismatch = await api.post('/sandbox/uma/receive', { ...base, receiverUmaAddress: other.umaAddress });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.details.errors[0].field).toBe('receiverUmaAddress');
    expect(await accountIn(api, customer.id, 'USD')).toMatchObject({ balance: 0, total: 0 });
    expect(s.sandbox.context.outbox.list(platformId, 0, 10_000).filter((e) => e.type.startsWith('INCOMING_PAYMENT'))).toEqual([]);
    expect((await api.get(`/transactions?customerId=${encodeURIComponent(customer.id)}`)).body.data).toEqual([]);

    // Unregulated platform: a customer still PENDING KYC (fullName suffix 001) cannot receive.
    const unregulated = await s.api.newPlatform({ regulated: false });
    const pending = await newCustomer(unregulated, { fullName: 'Pending Person001', endUserTermsConsent: consent });
    const blocked = await unregulated.post('/sandbox/uma/receive', { ...base, customerId: pending.id });
    expect(blocked.status).toBe(403);
    expect(blocked.body.code).toBe('USER_NOT_READY');
  });
});

describe('GET /uma-providers', () => {
  const lei = (code: string) => BigInt([...code].map((ch) => parseInt(ch, 36)).join('')) % 97n === 1n;

  it('lists providers by name (desc by default), with well-formed LEIs and currencies in the Currency shape', async () => {
    const res = await s.api.get('/uma-providers?limit=100');
    expect(res.status).toBe(200);
    const names = res.body.data.map((p: { name: string }) => p.name);
    expect(names).toEqual([...names].sort((a, b) => b.localeCompare(a, 'en')));
    expect(res.body.totalCount).toBe(names.length);
    expect(res.body.hasMore).toBe(false);
    for (const p of res.body.data) {
      expect(lei(p.lei), p.lei).toBe(true);
      expect(p.supportedCurrencies[0]).toHaveProperty('decimals');
    }
    expect(names).toContain('Sandbox UMA Test VASP');
    const asc = await s.api.get('/uma-providers?limit=100&sortOrder=asc');
    expect(asc.body.data.map((p: { name: string }) => p.name)).toEqual([...names].reverse());
  });

  it('filters by country, currency and allow-list standing', async () => {
    const mx = await s.api.get('/uma-providers?countryCode=mx');
    expect(mx.body.data.length).toBeGreaterThan(0);
    for (const p of mx.body.data) expect(p.supportedRegions).toContain('MX');
    const usdc = await s.api.get('/uma-providers?currencyCode=USDC&limit=100');
    for (const p of usdc.body.data) expect(p.supportedCurrencies.map((c: { code: string }) => c.code)).toContain('USDC');
    const all = await s.api.get('/uma-providers?limit=100');
    const allowed = await s.api.get('/uma-providers?limit=100&hasBlockedProviders=false');
    expect(all.body.data.some((p: { allowListStatus: boolean }) => !p.allowListStatus)).toBe(true);
    expect(allowed.body.data.every((p: { allowListStatus: boolean }) => p.allowListStatus)).toBe(true);
    expect(allowed.body.totalCount).toBeLessThan(all.body.totalCount);
    expect((await s.api.get('/uma-providers?countryCode=ZZ')).body).toMatchObject({ data: [], hasMore: false, totalCount: 0 });
  });

  it('pages with a cursor and rejects bad parameters', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await s.api.get(`/uma-providers?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(3);
      seen.push(...res.body.data.map((p: { name: string }) => p.name));
      cursor = res.body.nextCursor;
      expect(Boolean(cursor)).toBe(res.body.hasMore);
    } while (cursor);
    const all = await s.api.get('/uma-providers?limit=100');
    expect(seen).toEqual(all.body.data.map((p: { name: string }) => p.name));
    // The contract lists no 400: a schema-invalid value is ignored (its default applies) with a
    // warning naming it; schema-valid ones that match nothing are an empty page.
    const defaults = await s.api.get('/uma-providers');
    for (const q of ['limit=0', 'limit=101', 'hasBlockedProviders=maybe', 'sortOrder=up']) {
      const res = await s.api.get(`/uma-providers?${q}`);
      expect(res.status, q).toBe(200);
      expect(res.body, q).toEqual(defaults.body);
      expect(res.headers.get('Service-Sandbox-Warning'), q).toContain(`Query parameter ${q.split('=')[0]} was ignored`);
    }
    for (const q of ['cursor=garbage', 'countryCode=USA']) {
      const res = await s.api.get(`/uma-providers?${q}`);
      expect(res.status, q).toBe(200);
      expect(res.body).toMatchObject({ data: [], hasMore: false });
    }
  });
});
