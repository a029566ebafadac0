import { describe, expect, it } from 'vitest';
import { auditLedger } from '../../src/resources/ledger/index.js';
import { fundInternalAccount, transferOut } from '../../src/resources/transfers/index.js';
import { platformService } from '../../src/tenancy/index.js';
import { assertFitsWebhook } from '../helpers/contract.js';
import { Api, individual, unique, useSandbox, valueOrCode, withFileSandbox, withLastChanged } from '../helpers/sandbox.js';

const s = useSandbox();

const person = { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Smith', countryOfResidence: 'US', address: { line1: '1 Main Street', postalCode: '94105', country: 'US' } };

/** A fresh platform with one approved customer, its USD internal account, and helpers. */
async function setup(customerExtra: Record<string, unknown> = {}, platform: { regulated?: boolean } = {}) {
  const api = await s.api.newPlatform(platform);
  const customer = await api.post('/customers', individual(['USD', 'EUR'], customerExtra));
  expect(customer.status).toBe(201);
  const accounts = await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.body.id)}`);
  const usd = accounts.body.data.find((a: { balance: { currency: { code: string } } }) => a.balance.currency.code === 'USD');
  const platformId = platformService(s.sandbox.context).byClientId(api.clientId)!.id;
  return { api, customer: customer.body, usd, platformId };
}

async function externalUsd(api: Api, customerId: string, accountNumber: string): Promise<string> {
  const res = await api.post('/customers/external-accounts', {
    customerId,
    currency: 'USD',
    accountInfo: { accountType: 'USD_ACCOUNT', accountNumber, routingNumber: '021000021', bankName: 'Chase Bank', beneficiary: person },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

async function balances(api: Api, accountId: string, customerId: string) {
  const res = await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&limit=100`);
  const account = res.body.data.find((a: { id: string }) => a.id === accountId);
  return { balance: account.balance.amount as number, total: account.totalBalance.amount as number };
}

function eventsOf(platformId: string, resourceId?: string) {
  return s.sandbox.context.outbox.list(platformId, 0, 10_000).filter((e) => resourceId === undefined || e.resourceId === resourceId);
}

describe('sandbox funding', () => {
  it('credits at once, records an INCOMING_PAYMENT and answers the InternalAccount', async () => {
    const { api, usd, platformId, customer } = await setup();
    const res = await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 250_00 });
    expect(res.status).toBe(200);
    expect(res.body.balance.amount).toBe(250_00);
    expect(res.body.totalBalance.amount).toBe(250_00);
    const list = await api.get(`/transactions?customerId=${encodeURIComponent(customer.id)}`);
    expect(list.body.data).toHaveLength(1);
    const tx = list.body.data[0];
    expect(tx).toMatchObject({ type: 'INCOMING', status: 'COMPLETED', receivedAmount: { amount: 250_00, currency: { code: 'USD', decimals: 2 } } });
    const events = eventsOf(platformId, tx.id);
    expect(events.map((e) => e.type)).toEqual(['INCOMING_PAYMENT.COMPLETED']);
    assertFitsWebhook('incoming-payment', { id: events[0]!.id, type: events[0]!.type, timestamp: events[0]!.createdAt, data: events[0]!.data });
    expect(auditLedger(s.sandbox.context, platformId)).toEqual([]);
  });

  it('refuses bad amounts, unknown and foreign accounts, and customers not yet approved', async () => {
    const { api, usd } = await setup();
    for (const amount of [0, -5, 1.5, '100']) {
      const res = await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount });
      expect(res.status).toBe(400);
      expect(res.body.details.errors[0].field).toBe('amount');
    }
    expect((await api.post('/sandbox/internal-accounts/InternalAccount:nope/fund', { amount: 1 })).status).toBe(404);
    const other = await s.api.newPlatform();
    expect((await other.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 1 })).status).toBe(404);

    // On an unregulated platform the fullName suffix 001 leaves KYC PENDING.
    const consent = { acceptedAt: '2025-10-20T10:00:00Z', ipAddress: '203.0.113.7', termsVersion: '2025-10-13', acceptanceMethod: 'CHECKBOX' };
    const pending = await setup({ fullName: 'Pending Person001', endUserTermsConsent: consent }, { regulated: false });
    const res = await pending.api.post(`/sandbox/internal-accounts/${pending.usd.id}/fund`, { amount: 100 });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('USER_NOT_READY');
  });
});

describe('transfer-out', () => {
  it('completes at once for an ordinary account and debits the balance', async () => {
    const { api, usd, customer, platformId } = await setup();
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 1_000_00 });
    const ext = await externalUsd(api, customer.id, '123456789000');
    const res = await api.post('/transfer-out', { source: { accountId: usd.id }, destination: { accountId: ext }, amount: 400_00 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ type: 'OUTGOING', status: 'COMPLETED', direction: 'DEBIT', sentAmount: { amount: 400_00 }, customerId: customer.id });
    expect(res.body.settledAt).toBeDefined();
    expect(await balances(api, usd.id, customer.id)).toEqual({ balance: 600_00, total: 600_00 });
    expect((await api.get(`/transactions/${res.body.id}`)).body).toEqual(res.body);
    const events = eventsOf(platformId, res.body.id);
    expect(events.map((e) => e.type)).toEqual(['OUTGOING_PAYMENT.COMPLETED']);
    assertFitsWebhook('outgoing-payment', { id: events[0]!.id, type: events[0]!.type, timestamp: events[0]!.createdAt, data: events[0]!.data });
  });

  it.each([
    ['002', 'QUOTE_EXECUTION_FAILED'],
    ['003', 'ACCOUNT_INVALID'],
    ['004', 'ACCOUNT_CANNOT_RECEIVE'],
  ])('suffix %s fails at once and moves nothing', async (suffix, reason) => {
    const { api, usd, customer } = await setup();
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 500_00 });
    const ext = await externalUsd(api, customer.id, `98765432${suffix}`);
    const res = await api.post('/transfer-out', { source: { accountId: usd.id }, destination: { accountId: ext }, amount: 100_00 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'FAILED', failureReason: reason });
    expect(await balances(api, usd.id, customer.id)).toEqual({ balance: 500_00, total: 500_00 });
  });

  it('suffix 005 holds the amount, stays PENDING about 30 s on the sandbox clock, then fails and releases it', async () => {
    const { api, usd, customer, platformId } = await setup();
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 500_00 });
    const ext = await externalUsd(api, customer.id, '555555555005');
    const res = await api.post('/transfer-out', { source: { accountId: usd.id }, destination: { accountId: ext }, amount: 200_00 });
    expect(res.body.status).toBe('PENDING');
    expect(await balances(api, usd.id, customer.id)).toEqual({ balance: 300_00, total: 500_00 });
    await api.advance(29);
    expect((await api.get(`/transactions/${res.body.id}`)).body.status).toBe('PENDING');
    await api.advance(1);
    const after = await api.get(`/transactions/${res.body.id}`);
    expect(after.body).toMatchObject({ status: 'FAILED', failureReason: 'PAYOUT_RETURNED' });
    expect(await balances(api, usd.id, customer.id)).toEqual({ balance: 500_00, total: 500_00 });
    expect(eventsOf(platformId, res.body.id).map((e) => e.type)).toEqual(['OUTGOING_PAYMENT.PENDING', 'OUTGOING_PAYMENT.FAILED']);
    expect(auditLedger(s.sandbox.context, platformId)).toEqual([]);
  });

  it('insufficient balance is a clear 400 and writes nothing', async () => {
    const { api, usd, customer, platformId } = await setup();
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 50_00 });
    const ext = await externalUsd(api, customer.id, '111122223333');
    const eventsBefore = eventsOf(platformId).length;
    const res = await api.post('/transfer-out', { source: { accountId: usd.id }, destination: { accountId: ext }, amount: 50_01 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_AMOUNT', details: { reason: 'INSUFFICIENT_FUNDS', available: 50_00, requested: 50_01 } });
    expect(await balances(api, usd.id, customer.id)).toEqual({ balance: 50_00, total: 50_00 });
    expect((await api.get(`/transactions?customerId=${encodeURIComponent(customer.id)}`)).body.totalCount).toBe(1);
    expect(eventsOf(platformId).length).toBe(eventsBefore);
  });

  it('amounts outside the currency limits: AMOUNT_OUT_OF_RANGE and TRANSACTION_SIZE_LIMIT_EXCEEDED', async () => {
    const { api, usd, customer } = await setup();
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 100_000_000_00 });
    const ext = await externalUsd(api, customer.id, '222233334444');
    const low = await api.post('/transfer-out', { source: { accountId: usd.id }, destination: { accountId: ext }, amount: 99 });
    expect(low.status).toBe(400);
    expect(low.body.code).toBe('AMOUNT_OUT_OF_RANGE');
    const high = await api.post('/transfer-out', { source: { accountId: usd.id }, destination: { accountId: ext }, amount: 10_000_001 });
    expect(high.status).toBe(400);
    expect(high.body.code).toBe('TRANSACTION_SIZE_LIMIT_EXCEEDED');
  });

  it('without an amount sends the whole available balance; Idempotency-Key replays', async () => {
    const { api, usd, customer } = await setup();
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 321_00 });
    const ext = await externalUsd(api, customer.id, '333344445555');
    const headers = { 'Idempotency-Key': unique('key') };
    const first = await api.post('/transfer-out', { source: { accountId: usd.id }, destination: { accountId: ext } }, { headers });
    expect(first.body.sentAmount.amount).toBe(321_00);
    const again = await api.post('/transfer-out', { source: { accountId: usd.id }, destination: { accountId: ext } }, { headers });
    expect(again.body).toEqual(first.body);
    expect(await balances(api, usd.id, customer.id)).toEqual({ balance: 0, total: 0 });
  });

  it('refuses a currency mismatch and another customer’s external account', async () => {
    const { api, customer } = await setup();
    const accounts = await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`);
    const eur = accounts.body.data.find((a: { balance: { currency: { code: string } } }) => a.balance.currency.code === 'EUR');
    const ext = await externalUsd(api, customer.id, '444455556666');
    const mismatch = await api.post('/transfer-out', { source: { accountId: eur.id }, destination: { accountId: ext }, amount: 100 });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.code).toBe('INVALID_CURRENCY');
    const stranger = await api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: unique('x'), fullName: 'Joe Other', currencies: ['USD'] });
    const strangerAccounts = await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(stranger.body.id)}`);
    const res = await api.post('/transfer-out', { source: { accountId: strangerAccounts.body.data[0].id }, destination: { accountId: ext }, amount: 100 });
    expect(res.status).toBe(400);
    expect(res.body.details.errors[0].field).toBe('destination.accountId');
  });

  it('50 concurrent transfer-outs against a balance that covers 20: exactly 20 succeed', async () => {
    const { api, usd, customer, platformId } = await setup();
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 20 * 10_00 + 5_00 });
    const ext = await externalUsd(api, customer.id, '777788889999');
    const results = await Promise.all(
      Array.from({ length: 50 }, () => api.post('/transfer-out', { source: { accountId: usd.id }, destination: { accountId: ext }, amount: 10_00 })),
    );
    const ok = results.filter((r) => r.status === 201);
    expect(ok).toHaveLength(20);
    for (const r of results.filter((r) => r.status !== 201)) expect(r.body.code).toBe('INVALID_AMOUNT');
    expect(await balances(api, usd.id, customer.id)).toEqual({ balance: 5_00, total: 5_00 });
    expect(auditLedger(s.sandbox.context, platformId)).toEqual([]);
    const list = await api.get(`/transactions?customerId=${encodeURIComponent(customer.id)}&type=OUTGOING&limit=100`);
    expect(list.body.totalCount).toBe(20);
  });

  // A file database commits the writes of one turn of the event loop together, and transfers and
  // funding join that group without a savepoint of their own (`checksFirst`): a refused one must
  // not have written before refusing, and must leave the others of its group standing.
  it('with a file database: transfer-outs, funding and refusals in one commit group', async () => {
    await withFileSandbox(async (sandbox, errors) => {
      const api = new Api(sandbox);
      const customer = (await api.post('/customers', individual(['USD']))).body;
      const usd = (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`)).body.data[0];
      await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 20 * 10_00 + 5_00 });
      const ext = await externalUsd(api, customer.id, '777788889999');
      const ctx = sandbox.context;
      const platform = platformService(ctx).byClientId(api.clientId)!;
      // One turn: every call after the first joins the group the first opened.
      const outcomes = Array.from({ length: 36 }, (_, i) =>
        valueOrCode(() => {
          if (i % 6 === 5) fundInternalAccount(ctx, platform, withLastChanged(usd.id), 1_00);
          else transferOut(ctx, platform, { source: { accountId: usd.id }, destination: { accountId: ext }, amount: 10_00 });
          return 'ok';
        }),
      );
      await ctx.committed();
      expect(outcomes.filter((o) => o === 'ok')).toHaveLength(20);
      expect(outcomes.filter((o) => o === 'REFERENCE_NOT_FOUND')).toHaveLength(6);
      expect(outcomes.filter((o) => o === 'INVALID_AMOUNT')).toHaveLength(10);
      expect(errors, 'no commit group was rolled back').toEqual([]);
      expect(await balances(api, usd.id, customer.id)).toEqual({ balance: 5_00, total: 5_00 });
      expect(auditLedger(ctx, platform.id)).toEqual([]);
      const list = await api.get(`/transactions?customerId=${encodeURIComponent(customer.id)}&limit=100`);
      expect(list.body.data.map((t: { type: string }) => t.type).sort()).toEqual(['INCOMING', ...Array(20).fill('OUTGOING')]);
    });
  });
});

describe('transfer-in', () => {
  it('completes at once for an ordinary account', async () => {
    const { api, usd, customer } = await setup();
    const ext = await externalUsd(api, customer.id, '121212121212');
    const res = await api.post('/transfer-in', { source: { accountId: ext }, destination: { accountId: usd.id }, amount: 75_00 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ type: 'INCOMING', status: 'COMPLETED', direction: 'CREDIT' });
    expect(await balances(api, usd.id, customer.id)).toEqual({ balance: 75_00, total: 75_00 });
  });

  it.each([
    ['002', 'FAILED'],
    ['003', 'FAILED'],
    ['004', 'REJECTED'],
  ])('suffix %s ends %s at once and credits nothing', async (suffix, status) => {
    const { api, usd, customer } = await setup();
    const ext = await externalUsd(api, customer.id, `43214321${suffix}`);
    const res = await api.post('/transfer-in', { source: { accountId: ext }, destination: { accountId: usd.id }, amount: 75_00 });
    expect(res.body.status).toBe(status);
    expect(await balances(api, usd.id, customer.id)).toEqual({ balance: 0, total: 0 });
  });

  it('suffix 005 is pending (in totalBalance only) for about 30 s, then fails', async () => {
    const { api, usd, customer, platformId } = await setup();
    const ext = await externalUsd(api, customer.id, '999988887005');
    const res = await api.post('/transfer-in', { source: { accountId: ext }, destination: { accountId: usd.id }, amount: 60_00 });
    expect(res.body.status).toBe('PENDING');
    expect(await balances(api, usd.id, customer.id)).toEqual({ balance: 0, total: 60_00 });
    await api.advance(30);
    expect((await api.get(`/transactions/${res.body.id}`)).body.status).toBe('FAILED');
    expect(await balances(api, usd.id, customer.id)).toEqual({ balance: 0, total: 0 });
    expect(eventsOf(platformId, res.body.id).map((e) => e.type)).toEqual(['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.FAILED']);
  });
});

describe('transactions', () => {
  it('lists with filters, newest first by default, with cursor pagination; another platform sees none', async () => {
    const { api, usd, customer } = await setup();
    for (let i = 0; i < 5; i += 1) await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 100 + i });
    const ext = await externalUsd(api, customer.id, '565656565656');
    await api.post('/transfer-out', { source: { accountId: usd.id }, destination: { accountId: ext }, amount: 100 });
    const all = await api.get('/transactions?limit=4');
    expect(all.body.totalCount).toBe(6);
    expect(all.body.hasMore).toBe(true);
    expect(all.body.data[0].type).toBe('OUTGOING');
    const rest = await api.get(`/transactions?limit=4&cursor=${all.body.nextCursor}`);
    expect(rest.body.data).toHaveLength(2);
    expect(rest.body.hasMore).toBe(false);
    const asc = await api.get('/transactions?sortOrder=asc&type=INCOMING');
    expect(asc.body.data.map((t: { receivedAmount: { amount: number } }) => t.receivedAmount.amount)).toEqual([100, 101, 102, 103, 104]);
    expect((await api.get(`/transactions?receiverAccountIdentifier=${encodeURIComponent(ext)}`)).body.totalCount).toBe(1);
    expect((await api.get(`/transactions?accountIdentifier=${encodeURIComponent(usd.id)}`)).body.totalCount).toBe(6);
    expect((await api.get('/transactions?status=FAILED')).body.totalCount).toBe(0);
    expect((await api.get('/transactions?status=NOPE')).status).toBe(400);
    const other = await s.api.newPlatform();
    expect((await other.get('/transactions')).body.totalCount).toBe(0);
    expect((await other.get(`/transactions/${all.body.data[0].id}`)).status).toBe(404);
  });
});

describe('platform internal accounts', () => {
  it('one per configured currency, fundable, and able to pay a platform external account', async () => {
    const api = await s.api.newPlatform();
    const list = await api.get('/platform/internal-accounts');
    expect(list.status).toBe(200);
    const config = await api.get('/config');
    expect(list.body.data.map((a: { balance: { currency: { code: string } } }) => a.balance.currency.code).sort()).toEqual(
      config.body.supportedCurrencies.map((c: { currencyCode: string }) => c.currencyCode).sort(),
    );
    for (const account of list.body.data) expect(account.customerId).toBeUndefined();
    expect((await api.get('/platform/internal-accounts')).body.data.map((a: { id: string }) => a.id)).toEqual(list.body.data.map((a: { id: string }) => a.id));
    const usdb = await api.get('/platform/internal-accounts?currency=USDB');
    expect(usdb.body.data).toHaveLength(1);
    expect(usdb.body.data[0].type).toBe('EMBEDDED_WALLET');
    expect((await api.get('/platform/internal-accounts?type=INTERNAL_CRYPTO')).body.data.length).toBeGreaterThan(0);

    const usd = (await api.get('/platform/internal-accounts?currency=USD')).body.data[0];
    const funded = await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 900_00 });
    expect(funded.body.balance.amount).toBe(900_00);
    const ext = await api.post('/platform/external-accounts', {
      currency: 'USD',
      accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '246813579000', routingNumber: '021000021', beneficiary: { beneficiaryType: 'BUSINESS', legalName: 'Acme Treasury LLC' } },
    });
    expect(ext.status, JSON.stringify(ext.body)).toBe(201);
    const out = await api.post('/transfer-out', { source: { accountId: usd.id }, destination: { accountId: ext.body.id }, amount: 100_00 });
    expect(out.status).toBe(201);
    expect(out.body.status).toBe('COMPLETED');
    expect((await api.get('/platform/internal-accounts?currency=USD')).body.data[0].balance.amount).toBe(800_00);
  });
});

describe('webhooks trigger for payment events', () => {
  it.each([
    ['INCOMING_PAYMENT.COMPLETED', 'incoming-payment'],
    ['INCOMING_PAYMENT.PENDING', 'incoming-payment'],
    ['INCOMING_PAYMENT.FAILED', 'incoming-payment'],
    ['OUTGOING_PAYMENT.COMPLETED', 'outgoing-payment'],
    ['OUTGOING_PAYMENT.PENDING', 'outgoing-payment'],
    ['OUTGOING_PAYMENT.FAILED', 'outgoing-payment'],
  ])('%s makes a real transaction through the services', async (type, webhook) => {
    const api = await s.api.newPlatform();
    const res = await api.post('/_sandbox/webhooks/trigger', { type });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    const platformId = platformService(s.sandbox.context).byClientId(api.clientId)!.id;
    const event = s.sandbox.context.outbox.list(platformId, 0, 1000).filter((e) => e.type === type).pop()!;
    assertFitsWebhook(webhook, { id: event.id, type: event.type, timestamp: event.createdAt, data: event.data });
    const tx = await api.get(`/transactions/${event.resourceId}`);
    expect(tx.body).toEqual(event.data);
    expect(auditLedger(s.sandbox.context, platformId)).toEqual([]);
  });

  it('with --resource sends the transaction as it is, and refuses a type it cannot carry', async () => {
    const { api, usd, platformId } = await setup();
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 100 });
    const tx = (await api.get('/transactions')).body.data[0];
    const ok = await api.post('/_sandbox/webhooks/trigger', { type: 'INCOMING_PAYMENT.COMPLETED', resourceId: tx.id });
    expect(ok.status).toBeLessThan(300);
    expect(eventsOf(platformId, tx.id).map((e) => e.type)).toEqual(['INCOMING_PAYMENT.COMPLETED', 'INCOMING_PAYMENT.COMPLETED']);
    const wrong = await api.post('/_sandbox/webhooks/trigger', { type: 'OUTGOING_PAYMENT.PENDING', resourceId: tx.id });
    expect(wrong.status).toBe(409);
    const refund = await api.post('/_sandbox/webhooks/trigger', { type: 'OUTGOING_PAYMENT.REFUND_FAILED' });
    expect(refund.status).toBe(400);
  });
});
