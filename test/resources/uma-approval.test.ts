import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLedger } from '../../src/resources/ledger/index.js';
import { platformService } from '../../src/tenancy/index.js';
import { assertFitsWebhook } from '../helpers/contract.js';
import { individual, useSandbox, type Api } from '../helpers/sandbox.js';
import { eventually } from '../events/helpers.js';
import { Receiver, type Answer } from '../events/receiver.js';

// The contract's incoming-payment webhook as an approval mechanism: an incoming UMA payment
// waits PENDING for the platform's answer to INCOMING_PAYMENT.PENDING.
const s = useSandbox();

let receiver: Receiver;
/** Per-platform answers: the receiver serves every test platform, keyed by path. */
const answers = new Map<string, Answer>();
beforeAll(async () => {
  receiver = await Receiver.start();
});
afterAll(async () => {
  await receiver.close();
});

async function setup(answer: Answer) {
  const api = await s.api.newPlatform();
  const platformId = platformService(s.sandbox.context).byClientId(api.clientId)!.id;
  const tag = platformId.slice(-8);
  answers.set(tag, answer);
  // one receiver serves every test platform: the payment's customer names whose answer applies
  receiver.answer = (n, received) => {
    const own = answers.get(tagOfBody(received.body)) ?? (() => ({ status: 200 }));
    return own(n, received);
  };
  const patched = await api.patch('/config', { webhookEndpoint: `${receiver.url}/${tag}` });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  const customer = (await api.post('/customers', individual(['USD']))).body as { id: string; umaAddress: string };
  return { api, platformId, customer, tag };
}

/** Which platform a delivered body belongs to: the customer id maps to a platform tag. */
const customerTags = new Map<string, string>();
function tagOfBody(body: any): string {
  return customerTags.get(body?.data?.customerId) ?? '';
}

async function usdAccount(api: Api, customerId: string) {
  const res = await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&limit=100`);
  const account = res.body.data.find((a: { balance: { currency: { code: string } } }) => a.balance.currency.code === 'USD');
  return { balance: account.balance.amount as number, total: account.totalBalance.amount as number };
}

const receive = (api: Api, customerId: string, sender = '$success.usd@sandbox.uma.money') =>
  api.post('/sandbox/uma/receive', { senderUmaAddress: sender, customerId, receivingCurrencyCode: 'USD', receivingCurrencyAmount: 2_500 });

function eventsOf(platformId: string, resourceId: string) {
  const events = s.sandbox.context.outbox.list(platformId, 0, 10_000).filter((e) => e.resourceId === resourceId);
  for (const e of events) assertFitsWebhook('incoming-payment', { id: e.id, type: e.type, timestamp: e.createdAt, data: e.data });
  return events.map((e) => e.type);
}

/** Deliveries the receiver got for a transaction, in order. */
const deliveredFor = (transactionId: string) => receiver.received.filter((r) => r.body?.data?.id === transactionId);

async function statusBecomes(api: Api, transactionId: string, status: string) {
  return eventually(async () => {
    const res = await api.get(`/transactions/${transactionId}`);
    if (res.body.status !== status) throw new Error(`${transactionId} is ${res.body.status}, not ${status}`);
    return res.body;
  });
}

async function pendingPayment(answer: Answer, sender?: string) {
  const ctx = await setup(answer);
  customerTags.set(ctx.customer.id, ctx.tag);
  const res = await receive(ctx.api, ctx.customer.id, sender);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.status).toBe('PENDING');
  expect(await usdAccount(ctx.api, ctx.customer.id)).toEqual({ balance: 0, total: 0 });
  await eventually(() => expect(deliveredFor(res.body.id).length).toBeGreaterThan(0));
  const first = deliveredFor(res.body.id)[0]!;
  expect(first.body).toMatchObject({ type: 'INCOMING_PAYMENT.PENDING', data: { id: res.body.id, status: 'PENDING' } });
  assertFitsWebhook('incoming-payment', first.body);
  return { ...ctx, transaction: res.body as { id: string } };
}

describe('incoming UMA payments the platform approves', () => {
  it('a 200 to INCOMING_PAYMENT.PENDING approves: credited, COMPLETED', async () => {
    const { api, platformId, customer, transaction } = await pendingPayment(() => ({ status: 200, body: '{}' }));
    const done = await statusBecomes(api, transaction.id, 'COMPLETED');
    expect(done.settledAt).toBeDefined();
    expect(await usdAccount(api, customer.id)).toEqual({ balance: 2_500, total: 2_500 });
    expect(eventsOf(platformId, transaction.id)).toEqual(['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.COMPLETED']);
    expect(auditLedger(s.sandbox.context, platformId)).toEqual([]);
    // decided: approve and reject are conflicts now
    const again = await api.post(`/transactions/${transaction.id}/approve`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');
  });

  it('a 403 rejects: REJECTED, nothing credited, the answer counts as delivered', async () => {
    const { api, platformId, customer, transaction } = await pendingPayment(() => ({ status: 403, body: '{"code":"RESTRICTED"}' }));
    await statusBecomes(api, transaction.id, 'REJECTED');
    expect(await usdAccount(api, customer.id)).toEqual({ balance: 0, total: 0 });
    expect(eventsOf(platformId, transaction.id)).toEqual(['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.FAILED']);
    const pendingEvent = s.sandbox.context.outbox.list(platformId, 0, 10_000).find((e) => e.resourceId === transaction.id)!;
    await eventually(async () => expect((await api.get(`/_sandbox/webhooks/deliveries/${encodeURIComponent(pendingEvent.id)}`)).body.status).toBe('DELIVERED'));
    expect((await api.post(`/transactions/${transaction.id}/reject`)).status).toBe(409);
  });

  it('a 422 asks for payee data the sender cannot give: FAILED with MISSING_MANDATORY_PAYEE_DATA', async () => {
    const { api, transaction } = await pendingPayment(() => ({ status: 422, body: '{}' }));
    const failed = await statusBecomes(api, transaction.id, 'FAILED');
    expect(failed.failureReason).toBe('MISSING_MANDATORY_PAYEE_DATA');
  });

  it('a 202 then POST /transactions/{id}/approve within 5 s approves', async () => {
    const { api, platformId, customer, transaction } = await pendingPayment(() => ({ status: 202 }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await api.get(`/transactions/${transaction.id}`)).body.status).toBe('PENDING');
    await api.advance(3);
    const approved = await api.post(`/transactions/${transaction.id}/approve`, { receiverCustomerInfo: { NATIONALITY: 'US' } });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body).toMatchObject({ id: transaction.id, status: 'COMPLETED', type: 'INCOMING' });
    expect(await usdAccount(api, customer.id)).toEqual({ balance: 2_500, total: 2_500 });
    await api.advance(10);
    expect((await api.get(`/transactions/${transaction.id}`)).body.status).toBe('COMPLETED');
    expect(eventsOf(platformId, transaction.id)).toEqual(['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.COMPLETED']);
    expect(auditLedger(s.sandbox.context, platformId)).toEqual([]);
  });

  it('a 202 then POST /transactions/{id}/reject rejects', async () => {
    const { api, customer, transaction } = await pendingPayment(() => ({ status: 202 }));
    const rejected = await api.post(`/transactions/${transaction.id}/reject`, { reason: 'RESTRICTED_JURISDICTION' });
    expect(rejected.status).toBe(200);
    expect(rejected.body.status).toBe('REJECTED');
    expect(await usdAccount(api, customer.id)).toEqual({ balance: 0, total: 0 });
  });

  it('a 202 followed by nothing is cancelled after 5 s on the sandbox clock', async () => {
    const { api, platformId, customer, transaction } = await pendingPayment(() => ({ status: 202 }));
    await api.advance(4);
    expect((await api.get(`/transactions/${transaction.id}`)).body.status).toBe('PENDING');
    await api.advance(2);
    const cancelled = (await api.get(`/transactions/${transaction.id}`)).body;
    expect(cancelled).toMatchObject({ status: 'FAILED', failureReason: 'PAYMENT_APPROVAL_TIMED_OUT' });
    expect(await usdAccount(api, customer.id)).toEqual({ balance: 0, total: 0 });
    expect(eventsOf(platformId, transaction.id)).toEqual(['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.FAILED']);
    const late = await api.post(`/transactions/${transaction.id}/approve`);
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');
  });

  it('an approved long-pending payment stays arriving, then settles', async () => {
    const { api, customer, transaction } = await pendingPayment(() => ({ status: 200 }), '$pending.long.usd@sandbox.uma.money');
    await eventually(async () => expect(await usdAccount(api, customer.id)).toEqual({ balance: 0, total: 2_500 }));
    expect((await api.get(`/transactions/${transaction.id}`)).body.status).toBe('PENDING');
    await api.advance(5 * 3600);
    expect((await api.get(`/transactions/${transaction.id}`)).body.status).toBe('COMPLETED');
    expect(await usdAccount(api, customer.id)).toEqual({ balance: 2_500, total: 2_500 });
  });

  it('approve/reject: 404 for an unknown or foreign id, 409 for a transaction not pending approval, 400 for a bad body', async () => {
    const { api, customer, transaction } = await pendingPayment(() => ({ status: 202 }));
    expect((await api.post('/transactions/Transaction:nope/approve')).status).toBe(404);
    const other = await s.api.newPlatform();
    expect((await other.post(`/transactions/${transaction.id}/approve`)).status).toBe(404);
    expect((await api.post(`/transactions/${transaction.id}/reject`, { reason: 42 })).status).toBe(400);
    // a payment of a platform without a webhook endpoint proceeds (nobody to ask) and is not pending approval
    const plain = await s.api.newPlatform();
    const plainCustomer = (await plain.post('/customers', individual(['USD']))).body.id;
    const done = await receive(plain, plainCustomer);
    expect(done.body.status).toBe('COMPLETED');
    expect((await plain.post(`/transactions/${done.body.id}/approve`)).status).toBe(409);
    expect((await plain.post(`/transactions/${done.body.id}/reject`)).status).toBe(409);
    expect(customer.id).toBeDefined();
  });
});
