import { describe, expect, it } from 'vitest';
import { auditLedger } from '../../src/resources/ledger/index.js';
import { platformService } from '../../src/tenancy/index.js';
import { loggedPath } from '../../src/server/app.js';
import { assertFitsSchema, assertFitsWebhook } from '../helpers/contract.js';
import { unique, useSandbox, type Api, type RequestOptions } from '../helpers/sandbox.js';

const s = useSandbox();

const person = { beneficiaryType: 'INDIVIDUAL', fullName: 'Maria Garcia', countryOfResidence: 'MX', address: { line1: 'Av. Reforma 1', postalCode: '06600', country: 'MX' } };

/** Request options that send the agent's bearer token instead of platform credentials. */
const bearer = (token: string, extra: RequestOptions = {}): RequestOptions => ({ ...extra, auth: false, headers: { ...extra.headers, Authorization: `Bearer ${token}` } });

const policy = (overrides: Record<string, unknown> = {}) => ({
  permissions: ['VIEW_TRANSACTIONS', 'CREATE_TRANSFERS', 'CREATE_QUOTES', 'EXECUTE_QUOTES', 'MANAGE_EXTERNAL_ACCOUNTS'],
  defaultExecutionMode: 'AUTO',
  spendingLimits: { currency: 'USD', perTransactionLimit: 1_000_00, dailyLimit: 5_000_00, monthlyLimit: 50_000_00 },
  approvalThresholds: { currency: 'USD', amount: 200_00 },
  ...overrides,
});

async function customerWithAccounts(api: Api) {
  const customer = await api.post('/customers', {
    customerType: 'INDIVIDUAL',
    platformCustomerId: unique('agent-owner'),
    fullName: 'Jane Smith',
    birthDate: '1990-01-15',
    nationality: 'US',
    currencies: ['USD', 'MXN'],
  });
  expect(customer.status).toBe(201);
  const accounts = (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.body.id)}`)).body.data;
  const usd = accounts.find((a: { balance: { currency: { code: string } } }) => a.balance.currency.code === 'USD');
  return { customer: customer.body, usd };
}

async function clabeAccount(api: Api, customerId: string, suffix = '123'): Promise<string> {
  const clabe = `0021800001${String(Math.floor(Math.random() * 1e5)).padStart(5, '0')}${suffix}`;
  const res = await api.post('/customers/external-accounts', { customerId, currency: 'MXN', accountInfo: { accountType: 'MXN_ACCOUNT', clabeNumber: clabe, beneficiary: person } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

/** A platform, an APPROVED customer with 10,000 USD, an MXN payee, and a connected agent. */
async function setup(agentPolicy: Record<string, unknown> = policy()) {
  const api = await s.api.newPlatform();
  const { customer, usd } = await customerWithAccounts(api);
  expect((await api.post(`/sandbox/internal-accounts/${encodeURIComponent(usd.id)}/fund`, { amount: 10_000_00 })).status).toBe(200);
  const payee = await clabeAccount(api, customer.id);
  const created = await api.post('/agents', { name: 'Payroll agent', customerId: customer.id, policy: agentPolicy });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const redeemed = await api.post(`/agents/device-codes/${created.body.deviceCode.code}/redeem`, undefined, { auth: false });
  expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(200);
  const platformId = platformService(s.sandbox.context).byClientId(api.clientId)!.id;
  return { api, customer, usd, payee, agent: created.body.agent, token: redeemed.body.accessToken as string, platformId };
}

const quoteBody = (source: string, destination: string, amount: number) => ({
  source: { sourceType: 'ACCOUNT', accountId: source },
  destination: { destinationType: 'ACCOUNT', accountId: destination },
  lockedCurrencySide: 'SENDING',
  lockedCurrencyAmount: amount,
});

async function balance(api: Api, customerId: string, accountId: string): Promise<number> {
  const res = await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&limit=100`);
  return res.body.data.find((a: { id: string }) => a.id === accountId).balance.amount;
}

const actionEvents = (platformId: string, actionId: string) =>
  s.sandbox.context.outbox.list(platformId, 0, 10_000).filter((e) => e.resourceId === actionId && e.type === 'AGENT_ACTION.PENDING_APPROVAL');

describe('agents: installation', () => {
  it('create -> redeem -> the bearer token lists the customer\'s own accounts', async () => {
    const api = await s.api.newPlatform();
    const { customer, usd } = await customerWithAccounts(api);
    const created = await api.post('/agents', { name: 'Helper', customerId: customer.id, policy: policy() });
    expect(created.status).toBe(201);
    expect(created.body.agent).toMatchObject({ name: 'Helper', customerId: customer.id, isPaused: false, isConnected: false });
    expect(created.body.agent.usage).toMatchObject({ dailyTransactionCount: 0, dailySpend: 0, monthlySpend: 0 });
    const { code, expiresAt } = created.body.deviceCode;
    expect(code).toMatch(/^SERVICE-AGENT-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now() - 60_000);
    expect((await api.get(`/agents/device-codes/${code}/status`)).body).toEqual({ code, redeemed: false });

    const redeemed = await api.post(`/agents/device-codes/${code}/redeem`, undefined, { auth: false });
    expect(redeemed.status).toBe(200);
    expect(redeemed.body).toMatchObject({ agentId: created.body.agent.id, agentName: 'Helper', policy: policy() });
    const token = redeemed.body.accessToken as string;
    expect((await api.get(`/agents/device-codes/${code}/status`)).body.redeemed).toBe(true);
    expect((await api.get(`/agents/${created.body.agent.id}`)).body.isConnected).toBe(true);

    const accounts = await api.get('/agents/me/internal-accounts', bearer(token));
    expect(accounts.status).toBe(200);
    expect(accounts.body.data.map((a: { id: string }) => a.id)).toContain(usd.id);
    expect(accounts.body.data.every((a: { customerId: string }) => a.customerId === customer.id)).toBe(true);
    expect((await api.get('/agents/me', bearer(token))).body).toMatchObject({ id: created.body.agent.id, isConnected: true });

    // Only a hash of the token and of the code is stored.
    const stored = JSON.stringify(s.sandbox.context.db.prepare('SELECT * FROM agents').all()) + JSON.stringify(s.sandbox.context.db.prepare('SELECT * FROM agent_device_codes').all());
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(code);
  });

  it('the request log masks device codes (whoever holds one can redeem the agent\'s token)', () => {
    expect(loggedPath('/2025-10-13/agents/device-codes/ABCD-1234/redeem')).toBe('/2025-10-13/agents/device-codes/[redacted]/redeem');
    expect(loggedPath('/2025-10-13/agents/device-codes/ABCD-1234/status')).toBe('/2025-10-13/agents/device-codes/[redacted]/status');
    expect(loggedPath('/2025-10-13/agents/Agent:1/device-codes')).toBe('/2025-10-13/agents/Agent:1/device-codes');
  });

  it('a device code is single use, expires on the sandbox clock, and regenerating invalidates the previous one', async () => {
    const api = await s.api.newPlatform();
    const { customer } = await customerWithAccounts(api);
    const created = (await api.post('/agents', { name: 'A', customerId: customer.id, policy: policy() })).body;
    const first = created.deviceCode.code;
    const second = await api.post(`/agents/${created.agent.id}/device-codes`);
    expect(second.status).toBe(201);
    const stale = await api.post(`/agents/device-codes/${first}/redeem`, undefined, { auth: false });
    expect(stale.status).toBe(400);
    expect(stale.body.details.reason).toBe('DEVICE_CODE_INVALIDATED');

    await api.advance(24 * 3600 + 1);
    const expired = await api.post(`/agents/device-codes/${second.body.code}/redeem`, undefined, { auth: false });
    expect(expired.status).toBe(400);
    expect(expired.body.details.reason).toBe('DEVICE_CODE_EXPIRED');

    const third = (await api.post(`/agents/${created.agent.id}/device-codes`)).body.code;
    expect((await api.post(`/agents/device-codes/${third}/redeem`, undefined, { auth: false })).status).toBe(200);
    const reused = await api.post(`/agents/device-codes/${third}/redeem`, undefined, { auth: false });
    expect(reused.status).toBe(400);
    expect(reused.body.details.reason).toBe('DEVICE_CODE_ALREADY_REDEEMED');
    expect((await api.post(`/agents/${created.agent.id}/device-codes`)).status).toBe(409);

    expect((await api.post('/agents/device-codes/not-a-code/redeem', undefined, { auth: false })).status).toBe(400);
    expect((await api.post('/agents/device-codes/SERVICE-AGENT-AAAA-AAAA/redeem', undefined, { auth: false })).status).toBe(404);
    expect((await api.get('/agents/device-codes/SERVICE-AGENT-AAAA-AAAA/status')).status).toBe(404);
  });

  it('bad policies are 400 and write nothing: negative limits, unknown permissions, another customer\'s account', async () => {
    const api = await s.api.newPlatform();
    const { customer } = await customerWithAccounts(api);
    const other = await customerWithAccounts(api);
    const negative = await api.post('/agents', { name: 'A', customerId: customer.id, policy: policy({ spendingLimits: { currency: 'USD', perTransactionLimit: -1 } }) });
    expect(negative.status).toBe(400);
    expect(negative.body.details.errors[0].field).toBe('policy.spendingLimits.perTransactionLimit');
    const unknown = await api.post('/agents', { name: 'A', customerId: customer.id, policy: policy({ permissions: ['SPEND_EVERYTHING'] }) });
    expect(unknown.status).toBe(400);
    const foreign = await api.post('/agents', { name: 'A', customerId: customer.id, policy: policy({ accountRestrictions: { allowedAccountIds: [other.usd.id] } }) });
    expect(foreign.status).toBe(400);
    expect(foreign.body.details.errors[0].field).toBe('policy.accountRestrictions.allowedAccountIds.0');
    expect((await api.post('/agents', { name: 'A', customerId: 'Customer:nope', policy: policy() })).status).toBe(400);
    expect((await api.get('/agents')).body.data).toEqual([]);
  });
});

describe('agents: authentication', () => {
  it('bearer only on /agents/me/*: Basic there is 401, the bearer on platform endpoints is 401, a deleted agent\'s token is 401', async () => {
    const { api, agent, token } = await setup();
    expect((await api.get('/agents/me')).status).toBe(401);
    expect((await api.get('/agents/me/internal-accounts')).status).toBe(401);
    expect((await api.get('/customers', bearer(token))).status).toBe(401);
    expect((await api.get(`/agents/${agent.id}`, bearer(token))).status).toBe(401);
    expect((await api.get('/agents/me', bearer('sbx_agent_not-a-token'))).status).toBe(401);
    const anonymous = await api.get('/agents/me', { auth: false });
    expect(anonymous.status).toBe(401);
    // Each 401 asks for the scheme its operation takes.
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect((await api.get('/customers', bearer(token))).headers.get('www-authenticate')).toMatch(/^Basic /);

    expect((await api.delete(`/agents/${agent.id}`)).status).toBe(204);
    const gone = await api.get('/agents/me', bearer(token));
    expect(gone.status).toBe(401);
    expect(gone.body.details.reason).toMatch(/revoked/);
    expect((await api.get(`/agents/${agent.id}`)).status).toBe(404);
  });

  it('a token is bound to its platform and customer: other platforms\' and customers\' resources are 404', async () => {
    const one = await setup();
    const two = await setup();
    // The agent of platform two cannot see platform one's agent or quote, whatever the id.
    expect((await two.api.get(`/agents/${one.agent.id}`)).status).toBe(404);
    const quote = await one.api.post('/agents/me/quotes', quoteBody(one.usd.id, one.payee, 10_00), bearer(one.token));
    expect(quote.status).toBe(201);
    expect((await two.api.get(`/agents/me/quotes/${quote.body.id}`, bearer(two.token))).status).toBe(404);
    // A second customer on the same platform: its account cannot be named by the first agent.
    const other = await customerWithAccounts(one.api);
    const foreign = await one.api.post('/agents/me/quotes', quoteBody(other.usd.id, one.payee, 10_00), bearer(one.token));
    expect(foreign.status).toBe(400);
    const transfer = await one.api.post('/agents/me/transfer-out', { source: { accountId: other.usd.id }, destination: { accountId: one.payee }, amount: 100 }, bearer(one.token));
    expect(transfer.status).toBe(404);
  });
});

describe('agents: idempotency and reset', () => {
  it('an Idempotency-Key replays the agent\'s action instead of submitting it twice', async () => {
    const { api, customer, usd, payee, token } = await setup();
    const quote = (await api.post('/agents/me/quotes', quoteBody(usd.id, payee, 30_00), bearer(token, { headers: { 'Idempotency-Key': 'q-1' } }))).body;
    const replayedQuote = await api.post('/agents/me/quotes', quoteBody(usd.id, payee, 30_00), bearer(token, { headers: { 'Idempotency-Key': 'q-1' } }));
    expect(replayedQuote.body.id).toBe(quote.id);
    expect(replayedQuote.headers.get('Idempotent-Replayed')).toBe('true');
    const first = await api.post(`/agents/me/quotes/${quote.id}/execute`, undefined, bearer(token, { headers: { 'Idempotency-Key': 'x-1' } }));
    const second = await api.post(`/agents/me/quotes/${quote.id}/execute`, undefined, bearer(token, { headers: { 'Idempotency-Key': 'x-1' } }));
    expect(second.body.id).toBe(first.body.id);
    expect(await balance(api, customer.id, usd.id)).toBe(10_000_00 - 30_00);
  });

  it('a sandbox reset of the platform removes its agents: their tokens are 401', async () => {
    const { api, token } = await setup();
    expect((await api.get('/agents/me', bearer(token))).status).toBe(200);
    expect((await api.post('/_sandbox/reset')).status).toBe(200);
    expect((await api.get('/agents/me', bearer(token))).status).toBe(401);
    expect((await api.get('/agents')).body.data).toEqual([]);
  });
});

describe('agents: quotes under policy', () => {
  it('within policy: the quote executes at once through the quotes service', async () => {
    const { api, customer, usd, payee, token, platformId } = await setup();
    const quote = await api.post('/agents/me/quotes', quoteBody(usd.id, payee, 50_00), bearer(token));
    expect(quote.status).toBe(201);
    expect((await api.get(`/agents/me/quotes/${quote.body.id}`, bearer(token))).body.id).toBe(quote.body.id);
    const action = await api.post(`/agents/me/quotes/${quote.body.id}/execute`, undefined, bearer(token));
    expect(action.status).toBe(200);
    expect(action.body).toMatchObject({ status: 'APPROVED', type: 'EXECUTE_QUOTE', customerId: customer.id, quote: { id: quote.body.id } });
    expect(action.body.transaction).toMatchObject({ id: quote.body.transactionId, type: 'OUTGOING' });
    expect(await balance(api, customer.id, usd.id)).toBe(10_000_00 - 50_00);
    const me = (await api.get('/agents/me', bearer(token))).body;
    expect(me.usage).toMatchObject({ dailyTransactionCount: 1, dailySpend: 50_00, monthlySpend: 50_00 });
    const txs = await api.get('/agents/me/transactions', bearer(token));
    expect(txs.body.data.map((t: { id: string }) => t.id)).toContain(quote.body.transactionId);
    expect((await api.get(`/agents/me/transactions/${quote.body.transactionId}`, bearer(token))).status).toBe(200);
    // Executing again is the quote service's 409.
    expect((await api.post(`/agents/me/quotes/${quote.body.id}/execute`, undefined, bearer(token))).status).toBe(409);
    expect(auditLedger(s.sandbox.context, platformId)).toEqual([]);
  });

  it('above the threshold: pending approval, then approved and executed, the balance debited once', async () => {
    const { api, customer, usd, payee, agent, token, platformId } = await setup();
    const quote = (await api.post('/agents/me/quotes', quoteBody(usd.id, payee, 300_00), bearer(token))).body;
    const pending = await api.post(`/agents/me/quotes/${quote.id}/execute`, undefined, bearer(token));
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({ status: 'PENDING_APPROVAL', type: 'EXECUTE_QUOTE' });
    expect(pending.body.transaction).toBeUndefined();
    expect(await balance(api, customer.id, usd.id)).toBe(10_000_00);
    // The pending transaction is not there yet; the approvals queue shows the action.
    expect((await api.get(`/transactions/${quote.transactionId}`)).status).toBe(404);
    const queue = await api.get(`/agents/approvals?agentId=${encodeURIComponent(agent.id)}`);
    expect(queue.body.data.map((a: { id: string }) => a.id)).toEqual([pending.body.id]);
    // Pending actions count in usage.
    expect((await api.get('/agents/me', bearer(token))).body.usage.dailySpend).toBe(300_00);

    const approved = await api.post(`/agents/${agent.id}/actions/${pending.body.id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'APPROVED', transaction: { id: quote.transactionId } });
    expect(await balance(api, customer.id, usd.id)).toBe(10_000_00 - 300_00);
    const again = await api.post(`/agents/${agent.id}/actions/${pending.body.id}/approve`);
    expect(again.status).toBe(409);
    expect(await balance(api, customer.id, usd.id)).toBe(10_000_00 - 300_00);
    expect((await api.get(`/agents/me/actions/${pending.body.id}`, bearer(token))).body.status).toBe('APPROVED');
    expect((await api.get('/agents/approvals')).body.data).toEqual([]);

    const events = actionEvents(platformId, pending.body.id);
    expect(events.map((e) => (e.data as { status: string }).status)).toEqual(['PENDING_APPROVAL', 'APPROVED']);
    for (const e of events) assertFitsWebhook('agent-action', { id: e.id, type: e.type, timestamp: e.createdAt, data: e.data });
    expect(auditLedger(s.sandbox.context, platformId)).toEqual([]);
  });

  it('rejected: nothing moves, the reason is kept, deciding again is 409', async () => {
    const { api, customer, usd, payee, agent, token, platformId } = await setup(policy({ defaultExecutionMode: 'APPROVAL_REQUIRED' }));
    const quote = (await api.post('/agents/me/quotes', quoteBody(usd.id, payee, 20_00), bearer(token))).body;
    const pending = (await api.post(`/agents/me/quotes/${quote.id}/execute`, undefined, bearer(token))).body;
    expect(pending.status).toBe('PENDING_APPROVAL');
    const rejected = await api.post(`/agents/${agent.id}/actions/${pending.id}/reject`, { reason: 'Not today' });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ status: 'REJECTED', rejectionReason: 'Not today' });
    expect(rejected.body.transaction).toBeUndefined();
    expect(await balance(api, customer.id, usd.id)).toBe(10_000_00);
    expect((await api.post(`/agents/${agent.id}/actions/${pending.id}/approve`)).status).toBe(409);
    expect((await api.post(`/agents/${agent.id}/actions/${pending.id}/reject`)).status).toBe(409);
    expect((await api.get('/agents/me', bearer(token))).body.usage.dailyTransactionCount).toBe(0);
    expect((await api.get('/agents/me/actions?status=REJECTED', bearer(token))).body.data.map((a: { id: string }) => a.id)).toEqual([pending.id]);
    expect(actionEvents(platformId, pending.id).map((e) => (e.data as { status: string }).status)).toEqual(['PENDING_APPROVAL', 'REJECTED']);
  });

  it('a quote that expires before approval makes the action FAILED and moves nothing', async () => {
    const { api, customer, usd, payee, agent, token } = await setup();
    const quote = (await api.post('/agents/me/quotes', quoteBody(usd.id, payee, 300_00), bearer(token))).body;
    const pending = (await api.post(`/agents/me/quotes/${quote.id}/execute`, undefined, bearer(token))).body;
    await api.advance(3600);
    const failed = await api.post(`/agents/${agent.id}/actions/${pending.id}/approve`);
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ status: 'FAILED', quote: { status: 'EXPIRED' } });
    expect(failed.body.transaction).toBeUndefined();
    expect(await balance(api, customer.id, usd.id)).toBe(10_000_00);
    expect((await api.get('/agents/me', bearer(token))).body.usage.dailySpend).toBe(0);
  });

  it('refused outside policy: a missing permission, an account not allowed, a paused agent (403 naming the rule)', async () => {
    const { api, usd, payee, agent, token } = await setup(policy({ permissions: ['CREATE_QUOTES'] }));
    const quote = await api.post('/agents/me/quotes', quoteBody(usd.id, payee, 10_00), bearer(token));
    expect(quote.status).toBe(201);
    const refused = await api.post(`/agents/me/quotes/${quote.body.id}/execute`, undefined, bearer(token));
    expect(refused.status).toBe(403);
    expect(refused.body.details).toMatchObject({ rule: 'permissions', permission: 'EXECUTE_QUOTES' });
    // Operations whose contract declares no 403 refuse with 401 naming the rule.
    const noView = await api.get('/agents/me/transactions', bearer(token));
    expect(noView.status).toBe(401);
    expect(noView.body.details).toMatchObject({ rule: 'permissions', permission: 'VIEW_TRANSACTIONS' });
    expect((await api.get('/agents/me/external-accounts', bearer(token))).status).toBe(401);

    // Policy changes take effect at once.
    const updated = await api.patch(`/agents/${agent.id}/policy`, { permissions: ['CREATE_QUOTES', 'EXECUTE_QUOTES'], accountRestrictions: { allowedAccountIds: [] } });
    expect(updated.status).toBe(200);
    expect(updated.body.policy.spendingLimits.perTransactionLimit).toBe(1_000_00);
    const restricted = await api.post(`/agents/me/quotes/${quote.body.id}/execute`, undefined, bearer(token));
    expect(restricted.status).toBe(403);
    expect(restricted.body.details.rule).toBe('accountRestrictions.allowedAccountIds');

    await api.patch(`/agents/${agent.id}/policy`, { accountRestrictions: { allowedAccountIds: null } });
    await api.patch(`/agents/${agent.id}`, { isPaused: true });
    const paused = await api.post(`/agents/me/quotes/${quote.body.id}/execute`, undefined, bearer(token));
    expect(paused.status).toBe(403);
    expect(paused.body.details.rule).toBe('isPaused');
    expect((await api.get('/agents?isPaused=true')).body.data.map((a: { id: string }) => a.id)).toEqual([agent.id]);
  });

  it('spending limits: per transaction, and the daily limit across a UTC day boundary moved by the clock', async () => {
    const { api, usd, payee, token } = await setup(policy({ spendingLimits: { currency: 'USD', perTransactionLimit: 150_00, dailyLimit: 250_00, dailyTransactionLimit: 5 }, approvalThresholds: undefined }));
    const execute = async (amount: number) => {
      const quote = (await api.post('/agents/me/quotes', quoteBody(usd.id, payee, amount), bearer(token))).body;
      return api.post(`/agents/me/quotes/${quote.id}/execute`, undefined, bearer(token));
    };
    const tooBig = await execute(200_00);
    expect(tooBig.status).toBe(403);
    expect(tooBig.body.details.rule).toBe('spendingLimits.perTransactionLimit');
    expect((await execute(150_00)).status).toBe(200);
    expect((await execute(100_00)).status).toBe(200);
    const overDaily = await execute(1_00);
    expect(overDaily.status).toBe(403);
    expect(overDaily.body.details.rule).toBe('spendingLimits.dailyLimit');
    const usage = (await api.get('/agents/me', bearer(token))).body.usage;
    expect(usage).toMatchObject({ dailyTransactionCount: 2, dailySpend: 250_00 });

    // Move the sandbox clock just past the next UTC midnight: the daily counters reset.
    const now = Date.parse(await api.advance(1));
    const midnight = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate() + 1);
    await api.advance(Math.ceil((midnight - now) / 1000) + 1);
    const next = (await api.get('/agents/me', bearer(token))).body.usage;
    expect(next.dailySpend).toBe(0);
    expect(next.dailyResetDate).toBe(new Date(midnight + 86_400_000).toISOString().slice(0, 10));
    expect((await execute(100_00)).status).toBe(200);
  });
});

describe('agents: transfers, external accounts and platform approval of transactions', () => {
  it('transfer-out within policy executes through the transfers service; above the threshold it waits', async () => {
    const { api, customer, usd, token, agent } = await setup();
    const created = await api.post('/agents/me/external-accounts', {
      currency: 'USD',
      accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '12345678901', routingNumber: '021000021', bankAccountType: 'CHECKING', bankName: 'Chase Bank', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Smith', address: { line1: '1 Main St', postalCode: '94105', country: 'US' } } },
    }, bearer(token));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.customerId).toBe(customer.id);
    const bank = created.body.id;
    expect((await api.get(`/agents/me/external-accounts/${bank}`, bearer(token))).status).toBe(200);

    const out = await api.post('/agents/me/transfer-out', { source: { accountId: usd.id }, destination: { accountId: bank }, amount: 100_00 }, bearer(token));
    expect(out.status).toBe(201);
    expect(out.body).toMatchObject({ status: 'APPROVED', type: 'TRANSFER_OUT', transferDetails: { amount: 100_00, currency: 'USD', sourceAccountId: usd.id, destinationAccountId: bank } });
    expect(out.body.transaction.type).toBe('OUTGOING');
    expect(await balance(api, customer.id, usd.id)).toBe(10_000_00 - 100_00);

    const big = await api.post('/agents/me/transfer-out', { source: { accountId: usd.id }, destination: { accountId: bank }, amount: 500_00 }, bearer(token));
    expect(big.body.status).toBe('PENDING_APPROVAL');
    expect(await balance(api, customer.id, usd.id)).toBe(10_000_00 - 100_00);
    const approved = await api.post(`/agents/${agent.id}/actions/${big.body.id}/approve`);
    expect(approved.body.status).toBe('APPROVED');
    expect(await balance(api, customer.id, usd.id)).toBe(10_000_00 - 600_00);

    const pull = await api.post('/agents/me/transfer-in', { source: { accountId: bank }, destination: { accountId: usd.id }, amount: 10_00 }, bearer(token));
    expect(pull.status).toBe(201);
    expect(pull.body).toMatchObject({ status: 'APPROVED', type: 'TRANSFER_IN' });

    expect((await api.delete(`/agents/me/external-accounts/${bank}`, bearer(token))).status).toBe(204);
    expect((await api.get(`/agents/me/external-accounts/${bank}`, bearer(token))).status).toBe(404);
  });

  it('POST /transactions/{id}/approve and /reject decide an agent transaction pending approval; otherwise 409', async () => {
    const { api, customer, usd, payee, token } = await setup();
    const first = (await api.post('/agents/me/quotes', quoteBody(usd.id, payee, 300_00), bearer(token))).body;
    const pending = (await api.post(`/agents/me/quotes/${first.id}/execute`, undefined, bearer(token))).body;
    // Deviation: the contract's 200 body here is IncomingTransaction (incoming UMA payments); an
    // agent's quote transaction is outgoing, so the body is checked against OutgoingTransaction.
    const approved = await api.post(`/transactions/${first.transactionId}/approve`, undefined, { unchecked: true });
    expect(approved.status).toBe(200);
    assertFitsSchema('OutgoingTransaction', approved.body);
    expect(approved.body.id).toBe(first.transactionId);
    expect((await api.get(`/agents/me/actions/${pending.id}`, bearer(token))).body.status).toBe('APPROVED');
    expect(await balance(api, customer.id, usd.id)).toBe(10_000_00 - 300_00);
    const twice = await api.post(`/transactions/${first.transactionId}/approve`);
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe('TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');

    const second = (await api.post('/agents/me/quotes', quoteBody(usd.id, payee, 400_00), bearer(token))).body;
    const pending2 = (await api.post(`/agents/me/quotes/${second.id}/execute`, undefined, bearer(token))).body;
    // Deviation: no transaction exists after a rejection, so the body is the rejected AgentAction.
    const rejected = await api.post(`/transactions/${second.transactionId}/reject`, { reason: 'risk' }, { unchecked: true });
    expect(rejected.status).toBe(200);
    assertFitsSchema('AgentAction', rejected.body);
    expect(rejected.body).toMatchObject({ id: pending2.id, status: 'REJECTED', rejectionReason: 'risk' });
    expect(await balance(api, customer.id, usd.id)).toBe(10_000_00 - 300_00);
    expect((await api.post(`/transactions/${second.transactionId}/reject`)).status).toBe(404);
  });

  it('lists: agents with filters and pagination, approvals by customer', async () => {
    const api = await s.api.newPlatform();
    const { customer } = await customerWithAccounts(api);
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await api.post('/agents', { name: `Agent ${i}`, customerId: customer.id, policy: policy() })).body.agent.id);
    const page1 = await api.get('/agents?limit=2');
    expect(page1.body).toMatchObject({ hasMore: true, totalCount: 3 });
    const page2 = await api.get(`/agents?limit=2&cursor=${page1.body.nextCursor}`);
    expect([...page1.body.data, ...page2.body.data].map((a: { id: string }) => a.id)).toEqual(ids);
    expect((await api.get('/agents?isConnected=true')).body.data).toEqual([]);
    expect((await api.get(`/agents?customerId=${encodeURIComponent(customer.id)}`)).body.totalCount).toBe(3);
    expect((await api.patch(`/agents/${ids[0]}`, { name: 'Renamed' })).body.name).toBe('Renamed');
    expect((await api.patch(`/agents/${ids[0]}`, {})).status).toBe(400);
    expect((await api.get(`/agents/approvals?customerId=${encodeURIComponent(customer.id)}`)).body).toMatchObject({ data: [], hasMore: false });
  });
});
