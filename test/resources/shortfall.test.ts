import { describe, expect, it } from 'vitest';
import { individual, useSandbox, type Api, type RequestOptions } from '../helpers/sandbox.js';

/**
 * One error code for one shortfall on every path (issue 23): a debit the balance does not cover
 * is `400 INVALID_AMOUNT` with `details.reason` `INSUFFICIENT_FUNDS`, the available and the
 * requested amounts, whether the platform moves the money or an agent does, at once or on the
 * platform's approval. API.md lists INVALID_AMOUNT among the 400 codes and no INSUFFICIENT_FUNDS.
 */
const s = useSandbox();

const bearer = (token: string): RequestOptions => ({ auth: false, headers: { Authorization: `Bearer ${token}` } });

async function setup(api: Api) {
  const customer = (await api.post('/customers', individual(['USD']))).body;
  const usd = (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`)).body.data[0].id as string;
  expect((await api.post(`/sandbox/internal-accounts/${encodeURIComponent(usd)}/fund`, { amount: 10_00 })).status).toBe(200);
  const bank = await api.post('/customers/external-accounts', {
    customerId: customer.id,
    currency: 'USD',
    accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '123456789', routingNumber: '021000021', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Smith', address: { line1: '1 Main Street', postalCode: '94105', country: 'US' } } },
  });
  expect(bank.status, JSON.stringify(bank.body)).toBe(201);
  const agentToken = async (defaultExecutionMode: 'AUTO' | 'APPROVAL_REQUIRED') => {
    const created = await api.post('/agents', {
      name: `${defaultExecutionMode} agent`,
      customerId: customer.id,
      policy: { permissions: ['CREATE_TRANSFERS', 'CREATE_QUOTES', 'EXECUTE_QUOTES'], defaultExecutionMode, spendingLimits: { currency: 'USD', perTransactionLimit: 1_000_000_00 } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const redeemed = await api.post(`/agents/device-codes/${created.body.deviceCode.code}/redeem`, undefined, { auth: false });
    return { agentId: created.body.agent.id as string, token: redeemed.body.accessToken as string };
  };
  return { usd, bank: bank.body.id as string, auto: await agentToken('AUTO'), approval: await agentToken('APPROVAL_REQUIRED') };
}

const quote = (source: string, destination: string, amount: number, immediatelyExecute = false) => ({
  source: { sourceType: 'ACCOUNT', accountId: source },
  destination: { destinationType: 'ACCOUNT', accountId: destination },
  lockedCurrencySide: 'SENDING',
  lockedCurrencyAmount: amount,
  ...(immediatelyExecute ? { immediatelyExecute: true } : {}),
});

const shortfallOf = (body: { code: string; details?: Record<string, unknown> }) => ({
  code: body.code,
  reason: body.details?.reason,
  available: body.details?.available,
  requested: body.details?.requested,
});

describe('a shortfall answers one code on every path', () => {
  it('platform and agent, transfer and quote, at once and on approval: 400 INVALID_AMOUNT, reason INSUFFICIENT_FUNDS', async () => {
    const api = await s.api.newPlatform();
    const { usd, bank, auto, approval } = await setup(api);
    const expected = { code: 'INVALID_AMOUNT', reason: 'INSUFFICIENT_FUNDS', available: 10_00 };
    const answers: Record<string, { status: number; body: any }> = {};

    const transfer = { source: { accountId: usd }, destination: { accountId: bank }, amount: 50_00 };
    answers['platform transfer-out'] = await api.post('/transfer-out', transfer);
    answers['agent transfer-out'] = await api.post('/agents/me/transfer-out', transfer, bearer(auto.token));

    const platformQuote = (await api.post('/quotes', quote(usd, bank, 50_00))).body;
    answers['platform quote execute'] = await api.post(`/quotes/${platformQuote.id}/execute`);
    answers['platform quote immediatelyExecute'] = await api.post('/quotes', quote(usd, bank, 50_00, true));
    const agentQuote = (await api.post('/agents/me/quotes', quote(usd, bank, 50_00), bearer(auto.token))).body;
    answers['agent quote execute'] = await api.post(`/agents/me/quotes/${agentQuote.id}/execute`, undefined, bearer(auto.token));
    answers['agent quote immediatelyExecute'] = await api.post('/agents/me/quotes', quote(usd, bank, 50_00, true), bearer(auto.token));

    // Pending the platform's approval, then approved with the balance still short.
    const pendingQuote = (await api.post('/agents/me/quotes', quote(usd, bank, 50_00), bearer(approval.token))).body;
    const pending = await api.post(`/agents/me/quotes/${pendingQuote.id}/execute`, undefined, bearer(approval.token));
    expect(pending.body.status).toBe('PENDING_APPROVAL');
    answers['platform approval of an agent transaction'] = await api.post(`/transactions/${encodeURIComponent(pendingQuote.transactionId)}/approve`);

    for (const [path, answer] of Object.entries(answers)) {
      expect(answer.status, path).toBe(400);
      expect(shortfallOf(answer.body), path).toMatchObject(expected);
    }
    // The requested amount is what each path debits (the quote's total where a quote is executed).
    expect(answers['platform transfer-out']!.body.details.requested).toBe(answers['agent transfer-out']!.body.details.requested);
    expect(answers['platform quote execute']!.body.details.requested).toBe(answers['agent quote execute']!.body.details.requested);
    // The approval decided the action: FAILED, as /agents/{id}/actions/{id}/approve records it.
    expect(answers['platform approval of an agent transaction']!.body.details).toMatchObject({ agentActionId: pending.body.id, actionStatus: 'FAILED' });
    expect((await api.get(`/agents/me/actions/${pending.body.id}`, bearer(approval.token))).body.status).toBe('FAILED');

    // The agent-action approval path answers the contract's AgentAction with status FAILED.
    const other = (await api.post('/agents/me/quotes', quote(usd, bank, 50_00), bearer(approval.token))).body;
    const waiting = await api.post(`/agents/me/quotes/${other.id}/execute`, undefined, bearer(approval.token));
    const decided = await api.post(`/agents/${approval.agentId}/actions/${waiting.body.id}/approve`);
    expect(decided.status).toBe(200);
    expect(decided.body.status).toBe('FAILED');

    // Nothing moved anywhere.
    const account = (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent((await api.get('/customers')).body.data[0].id)}`)).body.data[0];
    expect(account.balance.amount).toBe(10_00);
  });
});
