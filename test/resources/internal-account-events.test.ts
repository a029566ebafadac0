import { describe, expect, it } from 'vitest';
import { platformService } from '../../src/tenancy/index.js';
import { assertFitsWebhook } from '../helpers/contract.js';
import { individual, useSandbox } from '../helpers/sandbox.js';

// The contract's internal-account-status webhook (issue 10, section 3).
const s = useSandbox();

function eventsOf(platformId: string, resourceId: string) {
  const events = s.sandbox.context.outbox.list(platformId, 0, 10_000).filter((e) => e.resourceId === resourceId);
  for (const e of events) assertFitsWebhook('internal-account-status', { id: e.id, type: e.type, timestamp: e.createdAt, data: e.data });
  return events;
}

describe('internal-account-status events', () => {
  it('BALANCE_UPDATED on every balance change, with the balances after it; STATUS_UPDATED when the account closes', async () => {
    const api = await s.api.newPlatform();
    const platformId = platformService(s.sandbox.context).byClientId(api.clientId)!.id;
    const customer = (await api.post('/customers', individual(['USD']))).body;
    const accounts = (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`)).body.data;
    const usd = accounts.find((a: { balance: { currency: { code: string } } }) => a.balance.currency.code === 'USD');
    expect(eventsOf(platformId, usd.id)).toEqual([]);

    expect((await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 5_000 })).status).toBe(200);
    expect((await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 2_500 })).status).toBe(200);
    const balances = eventsOf(platformId, usd.id);
    expect(balances.map((e) => e.type)).toEqual(['INTERNAL_ACCOUNT.BALANCE_UPDATED', 'INTERNAL_ACCOUNT.BALANCE_UPDATED']);
    expect(balances.map((e) => (e.data as { balance: { amount: number } }).balance.amount)).toEqual([5_000, 7_500]);
    expect(balances[1]!.data).toEqual((await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`)).body.data.find((a: { id: string }) => a.id === usd.id));

    expect((await api.delete(`/customers/${customer.id}`)).status).toBe(200);
    const after = eventsOf(platformId, usd.id);
    expect(after.map((e) => e.type)).toEqual(['INTERNAL_ACCOUNT.BALANCE_UPDATED', 'INTERNAL_ACCOUNT.BALANCE_UPDATED', 'INTERNAL_ACCOUNT.STATUS_UPDATED']);
    expect((after[2]!.data as { status: string }).status).toBe('CLOSED');
  });

  it('a failed posting (insufficient funds) announces nothing', async () => {
    const api = await s.api.newPlatform();
    const platformId = platformService(s.sandbox.context).byClientId(api.clientId)!.id;
    const customer = (await api.post('/customers', individual(['USD']))).body;
    const usd = (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`)).body.data[0];
    const ext = (await api.post('/customers/external-accounts', {
      customerId: customer.id,
      currency: usd.balance.currency.code,
      accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '246824682468', routingNumber: '021000021', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Smith', address: { line1: '1 Main Street', postalCode: '94105', country: 'US' } } },
    })).body.id;
    const out = await api.post('/transfer-out', { source: { accountId: usd.id }, destination: { accountId: ext }, amount: 1_000 });
    expect(out.status).toBe(400);
    expect(eventsOf(platformId, usd.id)).toEqual([]);
  });
});
