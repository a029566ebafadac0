import { describe, expect, it } from 'vitest';
import { auditLedger } from '../../src/resources/ledger/index.js';
import { executeQuote } from '../../src/resources/quotes/index.js';
import { platformService } from '../../src/tenancy/index.js';
import { assertFitsWebhook } from '../helpers/contract.js';
import { Api, unique, useSandbox, valueOrCode, withFileSandbox } from '../helpers/sandbox.js';

const s = useSandbox();

const person = { beneficiaryType: 'INDIVIDUAL', fullName: 'Maria Garcia', countryOfResidence: 'MX', address: { line1: 'Av. Reforma 1', postalCode: '06600', country: 'MX' } };

async function setup(platformApi?: Api) {
  const api = platformApi ?? (await s.api.newPlatform());
  const customer = await api.post('/customers', {
    customerType: 'INDIVIDUAL',
    platformCustomerId: unique('payer'),
    fullName: 'Jane Smith',
    birthDate: '1990-01-15',
    nationality: 'US',
    currencies: ['USD', 'EUR', 'MXN'],
  });
  expect(customer.status).toBe(201);
  const accounts = (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.body.id)}`)).body.data;
  const byCode = (code: string) => accounts.find((a: { balance: { currency: { code: string } } }) => a.balance.currency.code === code);
  const platformId = platformService(api.sandbox.context).byClientId(api.clientId)!.id;
  return { api, customer: customer.body, usd: byCode('USD'), eur: byCode('EUR'), platformId };
}

/** A CLABE ending in `suffix` (the contract's pattern has no check digit). */
async function clabeAccount(api: Api, customerId: string, suffix: string): Promise<string> {
  const clabe = `0021800001${String(Math.floor(Math.random() * 1e5)).padStart(5, '0')}${suffix}`;
  const res = await api.post('/customers/external-accounts', { customerId, currency: 'MXN', accountInfo: { accountType: 'MXN_ACCOUNT', clabeNumber: clabe, beneficiary: person } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

async function balanceOf(api: Api, customerId: string, accountId: string) {
  const res = await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&limit=100`);
  const account = res.body.data.find((a: { id: string }) => a.id === accountId);
  return { balance: account.balance.amount as number, total: account.totalBalance.amount as number };
}

const quoteTo = (source: string, destination: string, amount: number, side = 'SENDING') => ({
  source: { sourceType: 'ACCOUNT', accountId: source },
  destination: { destinationType: 'ACCOUNT', accountId: destination },
  lockedCurrencySide: side,
  lockedCurrencyAmount: amount,
});

const events = (platformId: string, resourceId: string) =>
  s.sandbox.context.outbox.list(platformId, 0, 10_000).filter((e) => e.resourceId === resourceId);

describe('quotes: pricing', () => {
  it('SENDING lock: the locked amount leaves, fees come out of it, the converted amount rounds down', async () => {
    const { api, usd, customer } = await setup();
    const dest = await clabeAccount(api, customer.id, '123');
    const res = await api.post('/quotes', quoteTo(usd.id, dest, 100_00));
    expect(res.status).toBe(201);
    const q = res.body;
    expect(q).toMatchObject({ status: 'PROCESSING', totalSendingAmount: 100_00, sendingCurrency: { code: 'USD', decimals: 2 }, receivingCurrency: { code: 'MXN', decimals: 2 } });
    expect(q.transactionId).toMatch(/^Transaction:/);
    // Service 10 cents + 30 bps, platform fee config 25 cents + 50 bps (the defaults); principal P solves P + fees(P) = total.
    const principal = Math.floor(((100_00 - 35) * 10_000) / 10_080);
    expect(q.feesIncluded).toBe(100_00 - principal);
    expect(q.platformFeesIncluded).toBe(25 + Math.ceil((principal * 50) / 10_000));
    const rateScaled = BigInt(Math.round(q.exchangeRate * 1e12));
    expect(BigInt(q.totalReceivingAmount)).toBe((BigInt(principal) * rateScaled) / 1_000_000_000_000n);
    expect(q.exchangeRate).toBeGreaterThan(15);
    expect(q.exchangeRate).toBeLessThan(19);
    const expiresIn = Date.parse(q.expiresAt) - Date.parse(q.createdAt);
    expect(expiresIn).toBeGreaterThanOrEqual(60_000);
    expect(expiresIn).toBeLessThanOrEqual(15 * 60_000);
    expect((await api.get(`/quotes/${q.id}`)).body).toEqual(q);
  });

  it('RECEIVING lock: the receiver gets exactly the locked amount, the sending amount rounds up', async () => {
    const { api, usd, customer } = await setup();
    const dest = await clabeAccount(api, customer.id, '124');
    const q = (await api.post('/quotes', quoteTo(usd.id, dest, 5_000_00, 'RECEIVING'))).body;
    expect(q.totalReceivingAmount).toBe(5_000_00);
    const rateScaled = BigInt(Math.round(q.exchangeRate * 1e12));
    const scaled = 5_000_00n * 1_000_000_000_000n;
    const principal = Number((scaled + rateScaled - 1n) / rateScaled);
    expect(q.totalSendingAmount).toBe(principal + 35 + Math.ceil((principal * 80) / 10_000));
    expect(q.feesIncluded).toBe(q.totalSendingAmount - principal);
  });

  it('platformFeeOverride replaces the platform fee; a fee currency other than the sending one is refused', async () => {
    const { api, usd, customer } = await setup();
    const dest = await clabeAccount(api, customer.id, '125');
    const q = (await api.post('/quotes', { ...quoteTo(usd.id, dest, 100_00), platformFeeOverride: { platformFixedFee: { amount: 0, currency: 'USD' }, platformVariableFeeBps: 0 } })).body;
    expect(q.platformFeesIncluded).toBe(0);
    const bad = await api.post('/quotes', { ...quoteTo(usd.id, dest, 100_00), platformFeeOverride: { platformFixedFee: { amount: 5, currency: 'EUR' }, platformVariableFeeBps: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body.details.errors[0].field).toBe('platformFeeOverride.platformFixedFee.currency');
  });

  it('rejects bad requests with field errors, amounts outside limits, and unknown accounts', async () => {
    const { api, usd, customer } = await setup();
    const dest = await clabeAccount(api, customer.id, '126');
    const missing = await api.post('/quotes', { source: { sourceType: 'ACCOUNT' }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SIDEWAYS' });
    expect(missing.status).toBe(400);
    expect(missing.body.details.errors.map((e: { field: string }) => e.field)).toEqual(expect.arrayContaining(['source.accountId', 'lockedCurrencySide', 'lockedCurrencyAmount']));
    expect((await api.post('/quotes', quoteTo(usd.id, dest, 50))).body.code).toBe('AMOUNT_OUT_OF_RANGE');
    expect((await api.post('/quotes', quoteTo(usd.id, dest, 10_000_001))).body.code).toBe('TRANSACTION_SIZE_LIMIT_EXCEEDED');
    const unknown = await api.post('/quotes', quoteTo('InternalAccount:nope', dest, 100_00));
    expect(unknown.status).toBe(400);
    expect(unknown.body.details.errors[0].field).toBe('source.accountId');
  });

  it('checks the sender against the receiving currency’s required counterparty fields', async () => {
    const { api, usd, customer } = await setup();
    const brl = await api.post('/customers/external-accounts', {
      customerId: customer.id,
      currency: 'BRL',
      accountInfo: { accountType: 'BRL_ACCOUNT', pixKey: `pay.${Date.now()}@pix.com.br`, pixKeyType: 'EMAIL', taxId: '12345678901', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Joao Silva', countryOfResidence: 'BR' } },
    });
    expect(brl.status, JSON.stringify(brl.body)).toBe(201);
    const refused = await api.post('/quotes', quoteTo(usd.id, brl.body.id, 100_00));
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'MISSING_MANDATORY_USER_INFO', details: { missingFields: ['TAX_ID'] } });
    const ok = await api.post('/quotes', { ...quoteTo(usd.id, brl.body.id, 100_00), senderCustomerInfo: { TAX_ID: '123-45-6789' } });
    expect(ok.status).toBe(201);
  });
});

describe('quotes: execution', () => {
  it('the payout flow end to end: fund, quote, execute, PROCESSING with the amount held, COMPLETED on the clock', async () => {
    const { api, usd, customer, platformId } = await setup();
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 1_000_00 });
    const dest = await clabeAccount(api, customer.id, '321');
    const quote = (await api.post('/quotes', quoteTo(usd.id, dest, 250_00))).body;
    const executed = await api.post(`/quotes/${quote.id}/execute`);
    expect(executed.status).toBe(200);
    expect(executed.body).toMatchObject({ id: quote.id, status: 'PROCESSING', transactionId: quote.transactionId });
    expect(await balanceOf(api, customer.id, usd.id)).toEqual({ balance: 750_00, total: 1_000_00 });
    const tx = (await api.get(`/transactions/${quote.transactionId}`)).body;
    expect(tx).toMatchObject({ status: 'PROCESSING', type: 'OUTGOING', quoteId: quote.id, sentAmount: { amount: 250_00 }, receivedAmount: { amount: quote.totalReceivingAmount }, fees: quote.feesIncluded });
    await api.advance(5);
    expect((await api.get(`/transactions/${quote.transactionId}`)).body.status).toBe('COMPLETED');
    expect((await api.get(`/quotes/${quote.id}`)).body.status).toBe('COMPLETED');
    expect(await balanceOf(api, customer.id, usd.id)).toEqual({ balance: 750_00, total: 750_00 });
    const sent = events(platformId, quote.transactionId);
    expect(sent.map((e) => e.type)).toEqual(['OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.COMPLETED']);
    for (const e of sent) assertFitsWebhook('outgoing-payment', { id: e.id, type: e.type, timestamp: e.createdAt, data: e.data });
    expect(auditLedger(s.sandbox.context, platformId)).toEqual([]);
  });

  it('suffix 002: execution fails and nothing moves', async () => {
    const { api, usd, customer } = await setup();
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 500_00 });
    const quote = (await api.post('/quotes', quoteTo(usd.id, await clabeAccount(api, customer.id, '002'), 100_00))).body;
    const res = await api.post(`/quotes/${quote.id}/execute`);
    expect(res.body.status).toBe('FAILED');
    expect((await api.get(`/transactions/${quote.transactionId}`)).body).toMatchObject({ status: 'FAILED', failureReason: 'QUOTE_EXECUTION_FAILED' });
    expect(await balanceOf(api, customer.id, usd.id)).toEqual({ balance: 500_00, total: 500_00 });
  });

  it('suffix 003: a long payment completes after about 6 minutes', async () => {
    const { api, usd, customer } = await setup();
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 500_00 });
    const quote = (await api.post('/quotes', quoteTo(usd.id, await clabeAccount(api, customer.id, '003'), 100_00))).body;
    await api.post(`/quotes/${quote.id}/execute`);
    await api.advance(359);
    expect((await api.get(`/transactions/${quote.transactionId}`)).body.status).toBe('PROCESSING');
    await api.advance(1);
    expect((await api.get(`/transactions/${quote.transactionId}`)).body.status).toBe('COMPLETED');
    expect(await balanceOf(api, customer.id, usd.id)).toEqual({ balance: 400_00, total: 400_00 });
  });

  it.each([
    ['004', 'COUNTERPARTY_POST_TX_FAILED', 'COMPLETED', 'TRANSACTION_FAILED', 500_00],
    ['006', 'QUOTE_EXECUTION_FAILED', 'COMPLETED', 'USER_CANCELLATION', 500_00],
    ['007', 'COUNTERPARTY_POST_TX_FAILED', 'FAILED', 'TRANSACTION_FAILED', 400_00],
  ])('suffix %s: fails with %s, refund %s (%s)', async (suffix, failureReason, refundStatus, refundReason, finalBalance) => {
    const { api, usd, customer, platformId } = await setup();
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 500_00 });
    const quote = (await api.post('/quotes', quoteTo(usd.id, await clabeAccount(api, customer.id, suffix), 100_00))).body;
    await api.post(`/quotes/${quote.id}/execute`);
    await api.advance(5);
    const tx = (await api.get(`/transactions/${quote.transactionId}`)).body;
    expect(tx).toMatchObject({ status: 'FAILED', failureReason, refund: { status: refundStatus, reason: refundReason } });
    expect((await api.get(`/quotes/${quote.id}`)).body.status).toBe('FAILED');
    expect(await balanceOf(api, customer.id, usd.id)).toEqual({ balance: finalBalance, total: finalBalance });
    expect(events(platformId, quote.transactionId).map((e) => e.type)).toEqual(['OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.FAILED', `OUTGOING_PAYMENT.REFUND_${refundStatus}`]);
    expect(auditLedger(s.sandbox.context, platformId)).toEqual([]);
  });

  it('suffix 005: completes, then the receiving bank returns it and the money comes back', async () => {
    const { api, usd, customer } = await setup();
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 500_00 });
    const quote = (await api.post('/quotes', quoteTo(usd.id, await clabeAccount(api, customer.id, '005'), 100_00))).body;
    await api.post(`/quotes/${quote.id}/execute`);
    await api.advance(5);
    expect((await api.get(`/transactions/${quote.transactionId}`)).body.status).toBe('COMPLETED');
    expect(await balanceOf(api, customer.id, usd.id)).toEqual({ balance: 400_00, total: 400_00 });
    await api.advance(60);
    expect((await api.get(`/transactions/${quote.transactionId}`)).body).toMatchObject({ status: 'FAILED', failureReason: 'PAYOUT_RETURNED', refund: { status: 'COMPLETED' } });
    expect(await balanceOf(api, customer.id, usd.id)).toEqual({ balance: 500_00, total: 500_00 });
  });

  it('to another customer’s internal account: settles at once and the receiver gets an incoming transaction', async () => {
    const { api, usd, customer, platformId } = await setup();
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 300_00 });
    const other = await api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: unique('payee'), fullName: 'Hans Muller', currencies: ['EUR'] });
    const eur = (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(other.body.id)}`)).body.data[0];
    const quote = (await api.post('/quotes', { ...quoteTo(usd.id, eur.id, 100_00), immediatelyExecute: true })).body;
    expect(quote.status).toBe('COMPLETED');
    expect(await balanceOf(api, customer.id, usd.id)).toEqual({ balance: 200_00, total: 200_00 });
    expect(await balanceOf(api, other.body.id, eur.id)).toEqual({ balance: quote.totalReceivingAmount, total: quote.totalReceivingAmount });
    const incoming = (await api.get(`/transactions?customerId=${encodeURIComponent(other.body.id)}`)).body.data;
    expect(incoming).toHaveLength(1);
    expect(incoming[0]).toMatchObject({ type: 'INCOMING', status: 'COMPLETED', quoteId: quote.id, receivedAmount: { amount: quote.totalReceivingAmount, currency: { code: 'EUR' } } });
    expect(auditLedger(s.sandbox.context, platformId)).toEqual([]);
  });

  it('executing twice, after expiry, or without funds gives the contract’s error and writes nothing', async () => {
    const { api, usd, customer } = await setup();
    const dest = await clabeAccount(api, customer.id, '432');
    const poor = (await api.post('/quotes', quoteTo(usd.id, dest, 100_00))).body;
    const noFunds = await api.post(`/quotes/${poor.id}/execute`);
    expect(noFunds.status).toBe(400);
    expect(noFunds.body.code).toBe('INVALID_AMOUNT');
    expect((await api.get(`/transactions/${poor.transactionId}`)).status).toBe(404);
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 500_00 });
    expect((await api.post(`/quotes/${poor.id}/execute`)).status).toBe(200);
    const twice = await api.post(`/quotes/${poor.id}/execute`);
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe('CONFLICT');

    const stale = (await api.post('/quotes', quoteTo(usd.id, dest, 100_00))).body;
    await api.advance((Date.parse(stale.expiresAt) - Date.parse(stale.createdAt)) / 1000);
    expect((await api.get(`/quotes/${stale.id}`)).body.status).toBe('EXPIRED');
    const before = await balanceOf(api, customer.id, usd.id);
    const expired = await api.post(`/quotes/${stale.id}/execute`);
    expect(expired.status).toBe(409);
    expect(expired.body.details.reason).toBe('QUOTE_EXPIRED');
    expect(await balanceOf(api, customer.id, usd.id)).toEqual(before);
    expect((await api.get(`/transactions/${stale.transactionId}`)).status).toBe(404);
    expect((await api.post('/quotes/Quote:nope/execute')).status).toBe(404);
  });

  it('50 concurrent executes of one quote give exactly one transaction; with one Idempotency-Key all get the same answer', async () => {
    const { api, usd, customer } = await setup();
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 1_000_00 });
    const dest = await clabeAccount(api, customer.id, '543');
    const quote = (await api.post('/quotes', quoteTo(usd.id, dest, 100_00))).body;
    const results = await Promise.all(Array.from({ length: 50 }, () => api.post(`/quotes/${quote.id}/execute`)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(49);
    expect(await balanceOf(api, customer.id, usd.id)).toEqual({ balance: 900_00 - (100_00 - 100_00), total: 1_000_00 });

    const second = (await api.post('/quotes', quoteTo(usd.id, dest, 100_00))).body;
    const key = { headers: { 'Idempotency-Key': unique('exec') } };
    const same = await Promise.all(Array.from({ length: 50 }, () => api.post(`/quotes/${second.id}/execute`, undefined, key)));
    expect(new Set(same.map((r) => r.status))).toEqual(new Set([200]));
    expect(new Set(same.map((r) => JSON.stringify(r.body))).size).toBe(1);
    const list = await api.get(`/transactions?customerId=${encodeURIComponent(customer.id)}&type=OUTGOING`);
    expect(list.body.totalCount).toBe(2);
  });

  it('two quotes racing for one balance never overdraw it', async () => {
    const { api, usd, customer, platformId } = await setup();
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 150_00 });
    const dest = await clabeAccount(api, customer.id, '654');
    const a = (await api.post('/quotes', quoteTo(usd.id, dest, 100_00))).body;
    const b = (await api.post('/quotes', quoteTo(usd.id, dest, 100_00))).body;
    const [ra, rb] = await Promise.all([api.post(`/quotes/${a.id}/execute`), api.post(`/quotes/${b.id}/execute`)]);
    expect([ra.status, rb.status].sort()).toEqual([200, 400]);
    expect(await balanceOf(api, customer.id, usd.id)).toEqual({ balance: 50_00, total: 150_00 });
    expect(auditLedger(s.sandbox.context, platformId)).toEqual([]);
  });
});

// A file database commits the writes of one turn together, and an execution joins that group
// without a savepoint of its own (`checksFirst`): a refused one must not have written before
// refusing, and must leave the others of its group standing.
describe('quotes: executions in one commit group (file database)', () => {
  it('executed, short of funds, failing at execution, executed twice and unknown, in one turn', async () => {
    await withFileSandbox(async (sandbox, errors) => {
      const { api, usd, customer, platformId } = await setup(new Api(sandbox));
      await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 250_00 });
      const payee = await clabeAccount(api, customer.id, '123');
      const failing = await clabeAccount(api, customer.id, '002');
      const quotes = [];
      for (let i = 0; i < 5; i++) quotes.push((await api.post('/quotes', quoteTo(usd.id, payee, 100_00))).body);
      const fails = (await api.post('/quotes', quoteTo(usd.id, failing, 100_00))).body;
      const platform = platformService(sandbox.context).byClientId(api.clientId)!;
      // One turn: every execution after the first joins the group the first opened.
      const outcomes = [...quotes.map((q) => q.id), fails.id, quotes[0].id, 'Quote:00000000-0000-7000-8000-000000000000'].map((id) =>
        valueOrCode(() => executeQuote(sandbox.context, platform, id).status as string),
      );
      await sandbox.context.committed();
      expect(outcomes).toEqual(['PROCESSING', 'PROCESSING', 'INVALID_AMOUNT', 'INVALID_AMOUNT', 'INVALID_AMOUNT', 'FAILED', 'CONFLICT', 'QUOTE_NOT_FOUND']);
      expect(errors, 'no commit group was rolled back').toEqual([]);
      expect(await balanceOf(api, customer.id, usd.id)).toEqual({ balance: 50_00, total: 250_00 });
      expect(auditLedger(sandbox.context, platformId)).toEqual([]);
      for (const refused of quotes.slice(2)) {
        expect((await api.get(`/transactions/${refused.transactionId}`)).status).toBe(404);
        expect((await api.get(`/quotes/${refused.id}`)).body.status).toBe('PROCESSING');
      }
      expect((await api.get(`/transactions/${fails.transactionId}`)).body).toMatchObject({ status: 'FAILED', failureReason: 'QUOTE_EXECUTION_FAILED' });
    });
  });
});

describe('real-time funding', () => {
  it('carries payment instructions, cannot be executed, and is paid with POST /sandbox/send', async () => {
    const { api, customer } = await setup();
    const dest = await clabeAccount(api, customer.id, '765');
    const quote = (await api.post('/quotes', { source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId: customer.id }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 100_00 })).body;
    expect(quote.paymentInstructions.length).toBeGreaterThan(0);
    expect((await api.post(`/quotes/${quote.id}/execute`)).status).toBe(400);
    expect((await api.post('/sandbox/send', { quoteId: quote.id, currencyCode: 'EUR' })).status).toBe(400);
    const paid = await api.post('/sandbox/send', { quoteId: quote.id, currencyCode: 'USD' });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ id: quote.transactionId, status: 'PROCESSING', source: { sourceType: 'REALTIME_FUNDING' } });
    await api.advance(5);
    expect((await api.get(`/transactions/${quote.transactionId}`)).body.status).toBe('COMPLETED');
    expect((await api.post('/sandbox/send', { quoteId: quote.id, currencyCode: 'USD' })).status).toBe(400);

    const short = (await api.post('/quotes', { source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId: customer.id }, destination: { destinationType: 'ACCOUNT', accountId: dest }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 100_00 })).body;
    const mismatch = await api.post('/sandbox/send', { quoteId: short.id, currencyCode: 'USD', currencyAmount: 99_00 });
    expect(mismatch.body).toMatchObject({ status: 'FAILED', failureReason: 'FUNDING_AMOUNT_MISMATCH' });
  });
});

describe('transaction actions', () => {
  it('cancel releases a payment that has not settled; settled ones are 409; confirm records the receipt time', async () => {
    const { api, usd, customer } = await setup();
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 500_00 });
    const quote = (await api.post('/quotes', quoteTo(usd.id, await clabeAccount(api, customer.id, '003'), 100_00))).body;
    await api.post(`/quotes/${quote.id}/execute`);
    const cancelled = await api.post(`/transactions/${quote.transactionId}/cancel`, { reason: 'customer asked' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'FAILED', refund: { status: 'COMPLETED', reason: 'USER_CANCELLATION' } });
    expect(await balanceOf(api, customer.id, usd.id)).toEqual({ balance: 500_00, total: 500_00 });
    await api.advance(400);
    expect((await api.get(`/transactions/${quote.transactionId}`)).body.status).toBe('FAILED');
    const again = await api.post(`/transactions/${quote.transactionId}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('TRANSACTION_NOT_CANCELLABLE');

    const confirmed = await api.post(`/transactions/${quote.transactionId}/confirm`, { receiptDeliveryConfirmedAt: '2026-01-02T03:04:05Z' });
    expect(confirmed.body.receiptDeliveryConfirmedAt).toBe('2026-01-02T03:04:05.000Z');
    const now = await api.post(`/transactions/${quote.transactionId}/confirm`);
    expect(Date.parse(now.body.receiptDeliveryConfirmedAt)).toBeGreaterThan(Date.parse('2026-01-02T03:04:05Z'));
    expect((await api.post('/transactions/Transaction:nope/cancel')).status).toBe(404);
  });

  it('approve and reject need a payment pending platform approval', async () => {
    const { api, usd } = await setup();
    const funded = await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 100 });
    expect(funded.status).toBe(200);
    const tx = (await api.get('/transactions')).body.data[0];
    for (const action of ['approve', 'reject']) {
      const res = await api.post(`/transactions/${tx.id}/${action}`);
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');
      expect((await api.post(`/transactions/Transaction:nope/${action}`)).status).toBe(404);
    }
  });
});

describe('exchange rates', () => {
  it('lists corridors with platform fees, filters, and holds a rate for the 5-minute window', async () => {
    const { api } = await setup();
    const all = await api.get('/exchange-rates');
    expect(all.status).toBe(200);
    expect(all.body.data.length).toBeGreaterThan(10);
    const usdMxn = await api.get('/exchange-rates?sourceCurrency=USD&destinationCurrency=MXN&destinationCurrency=EUR&sendingAmount=100000');
    expect(usdMxn.body.data.map((r: { destinationCurrency: { code: string } }) => r.destinationCurrency.code).sort()).toEqual(['EUR', 'MXN']);
    const mxn = usdMxn.body.data.find((r: { destinationCurrency: { code: string } }) => r.destinationCurrency.code === 'MXN');
    expect(mxn).toMatchObject({ sendingAmount: 100000, destinationPaymentRail: 'SPEI', fees: { fixed: 35 } });
    expect(mxn.fees.total).toBeGreaterThan(35);
    expect(mxn.receivingAmount).toBeGreaterThan(0);
    const again = await api.get('/exchange-rates?sourceCurrency=USD&destinationCurrency=MXN');
    expect(again.body.data[0].updatedAt).toBe(mxn.updatedAt);
    expect((await api.get('/exchange-rates?sendingAmount=-1')).status).toBe(400);
  });
});

describe('quotes to UMA addresses', () => {
  const umaQuote = (source: string, umaAddress: string, lookupId: string | undefined, currency?: string) => ({
    ...(lookupId ? { lookupId } : {}),
    source: { sourceType: 'ACCOUNT', accountId: source },
    destination: { destinationType: 'UMA_ADDRESS', umaAddress, ...(currency ? { currency } : {}) },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 100_00,
  });
  const lookup = async (api: Api, address: string, customerId: string) => {
    const res = await api.get(`/receiver/uma/${encodeURIComponent(address)}?customerId=${encodeURIComponent(customerId)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.lookupId as string;
  };

  it.each([
    ['$success.mxn@sandbox.uma.money', 5, 'COMPLETED', undefined],
    ['$pending.long.usd@sandbox.uma.money', 4 * 3600, 'COMPLETED', undefined],
    ['$fail.compliance.usd@sandbox.uma.money', 0, 'FAILED', 'COMPLIANCE_REJECTED'],
  ])('%s behaves as sandbox-rules.md says', async (address, seconds, finalStatus, failureReason) => {
    const { api, usd, customer } = await setup();
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 500_00 });
    const quote = await api.post('/quotes', umaQuote(usd.id, address, await lookup(api, address, customer.id)));
    expect(quote.status, JSON.stringify(quote.body)).toBe(201);
    const executed = await api.post(`/quotes/${quote.body.id}/execute`);
    expect(executed.status).toBe(200);
    if (seconds > 60) {
      await api.advance(seconds - 60);
      expect((await api.get(`/transactions/${quote.body.transactionId}`)).body.status).toBe('PROCESSING');
      await api.advance(60);
    } else if (seconds > 0) {
      await api.advance(seconds);
    }
    const tx = (await api.get(`/transactions/${quote.body.transactionId}`)).body;
    expect(tx).toMatchObject({ status: finalStatus, destination: { destinationType: 'UMA_ADDRESS', umaAddress: address } });
    if (failureReason) expect(tx.failureReason).toBe(failureReason);
  });

  it('the failing counterparties answer their UMA error at the lookup or at the quote; nothing is written', async () => {
    const { api, usd, customer } = await setup();
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 500_00 });
    const atLookup: Record<string, string> = {
      lookup: 'LOOKUP_REQUEST_FAILED',
      'lnurlp.parse': 'PARSE_LNURLP_RESPONSE_ERROR',
      'cert.invalid': 'CERT_CHAIN_INVALID',
      'cert.expired': 'CERT_CHAIN_EXPIRED',
      pubkey: 'INVALID_PUBKEY_FORMAT',
      params: 'MISSING_REQUIRED_UMA_PARAMETERS',
      receiver: 'INVALID_RECEIVER',
      nonce: 'INVALID_NONCE',
      timestamp: 'INVALID_TIMESTAMP',
    };
    for (const [what, code] of Object.entries(atLookup)) {
      // Either domain of the test VASP, as the other test addresses.
      const address = `$fail.${what}.usd@${what === 'nonce' ? 'sandbox.grid.uma.money' : 'sandbox.uma.money'}`;
      const res = await api.get(`/receiver/uma/${encodeURIComponent(address)}?customerId=${encodeURIComponent(customer.id)}`);
      expect([res.status, res.body.code], address).toEqual([400, code]);
      expect(res.headers.get('x-should-retry')).toBe('false');
      const quote = await api.post('/quotes', umaQuote(usd.id, address, undefined));
      expect([quote.status, quote.body.code], address).toEqual([400, code]);
    }
    const atPayRequest: Record<string, string> = { payreq: 'INVALID_PAYREQ_RESPONSE', 'payreq.parse': 'PARSE_PAYREQ_RESPONSE_ERROR', sender: 'SENDER_NOT_ACCEPTED', quote: 'QUOTE_REQUEST_FAILED' };
    const transactions = (await api.get('/transactions')).body.totalCount;
    for (const [what, code] of Object.entries(atPayRequest)) {
      const address = `$fail.${what}.usd@sandbox.uma.money`;
      const quote = await api.post('/quotes', umaQuote(usd.id, address, await lookup(api, address, customer.id)));
      expect([quote.status, quote.body.code], address).toEqual([400, code]);
      // API.md: QUOTE_REQUEST_FAILED is retryable; the others are not.
      expect(quote.headers.get('x-should-retry')).toBe(code === 'QUOTE_REQUEST_FAILED' ? 'true' : 'false');
    }
    expect((await api.get('/transactions')).body.totalCount).toBe(transactions);
    expect((await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`)).body.data.find((a: { id: string }) => a.id === usd.id).balance.amount).toBe(500_00);
    // They send nothing.
    const receive = await api.post('/sandbox/uma/receive', { senderUmaAddress: '$fail.sender.usd@sandbox.uma.money', receiverUmaAddress: customer.umaAddress, receivingCurrencyCode: 'USD', receivingCurrencyAmount: 100 });
    expect([receive.status, receive.body.code]).toEqual([404, 'UMA_NOT_FOUND']);
  });

  it('needs the lookupId of that address, and pays the platform’s own customer into its internal account', async () => {
    const { api, usd, customer } = await setup();
    await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 500_00 });
    const missing = await api.post('/quotes', umaQuote(usd.id, '$success.usd@sandbox.uma.money', undefined));
    expect(missing.status).toBe(400);
    expect(missing.body.details.errors[0].field).toBe('lookupId');
    const otherLookup = await lookup(api, '$success.eur@sandbox.uma.money', customer.id);
    const mismatch = await api.post('/quotes', umaQuote(usd.id, '$success.usd@sandbox.uma.money', otherLookup));
    expect(mismatch.status).toBe(400);

    const payee = await api.post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: unique('payee'), fullName: 'Ana Lopez', currencies: ['MXN'] });
    const address = payee.body.umaAddress as string;
    const quote = await api.post('/quotes', { ...umaQuote(usd.id, address, await lookup(api, address, customer.id)), immediatelyExecute: true });
    expect(quote.status, JSON.stringify(quote.body)).toBe(201);
    expect(quote.body.status).toBe('COMPLETED');
    const received = (await api.get(`/transactions?customerId=${encodeURIComponent(payee.body.id)}`)).body.data;
    expect(received[0]).toMatchObject({ type: 'INCOMING', status: 'COMPLETED', receivedAmount: { amount: quote.body.totalReceivingAmount, currency: { code: 'MXN' } } });
    const malformed = await api.post('/quotes', umaQuote(usd.id, 'not-an-address', 'x'));
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('INVALID_UMA_ADDRESS');
  });
});
