import { describe, expect, it } from 'vitest';
import { everyPage as all, individual, unique, useSandbox, type Api } from '../helpers/sandbox.js';

const s = useSandbox();

const business = (extra: Record<string, unknown> = {}) => ({
  customerType: 'BUSINESS',
  platformCustomerId: unique('biz'),
  businessInfo: { legalName: 'Acme Corporation', country: 'GB', taxId: '12345678', incorporatedOn: '2018-03-14' },
  currencies: ['USD'],
  ...extra,
});

async function create(api: Api, body: Record<string, unknown>): Promise<{ id: string; platformCustomerId: string; umaAddress: string }> {
  const res = await api.post('/customers', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe('customer lists: every filter, pages in id order, totalCount', () => {
  it('filters by each documented filter and by combinations, across pages, with the same totalCount on each page', async () => {
    const api = await s.api.newPlatform();
    const a = await create(api, individual(['USD'], { nationality: 'DE' }));
    const b = await create(api, business());
    const c = await create(api, individual(['USD', 'EUR']));
    await api.advance(120);
    const mark = new Date(Date.parse((await api.get('/_sandbox/clock')).body.now) - 1000).toISOString();
    const d = await create(api, individual(['EUR']));
    const e = await create(api, business({ currencies: ['EUR'] }));
    const everyone = [a, b, c, d, e].map((x) => x.id);

    expect(await all(api, '/customers')).toEqual({ ids: everyone, totalCount: 5 });
    expect(await all(api, '/customers?customerType=BUSINESS')).toEqual({ ids: [b.id, e.id], totalCount: 2 });
    expect(await all(api, '/customers?customerType=INDIVIDUAL', 1)).toEqual({ ids: [a.id, c.id, d.id], totalCount: 3 });
    expect(await all(api, `/customers?platformCustomerId=${c.platformCustomerId}`)).toEqual({ ids: [c.id], totalCount: 1 });
    expect(await all(api, `/customers?umaAddress=${encodeURIComponent(d.umaAddress)}`)).toEqual({ ids: [d.id], totalCount: 1 });
    expect(await all(api, '/customers?region=DE')).toEqual({ ids: [a.id], totalCount: 1 });
    expect(await all(api, '/customers?currency=EUR')).toEqual({ ids: [c.id, d.id, e.id], totalCount: 3 });
    expect(await all(api, `/customers?createdAfter=${mark}`)).toEqual({ ids: [d.id, e.id], totalCount: 2 });
    expect(await all(api, `/customers?createdBefore=${mark}`)).toEqual({ ids: [a.id, b.id, c.id], totalCount: 3 });
    expect(await all(api, `/customers?createdBefore=${mark}&customerType=INDIVIDUAL&currency=USD`)).toEqual({ ids: [a.id, c.id], totalCount: 2 });
    expect(await all(api, `/customers?updatedAfter=${mark}&customerType=BUSINESS`)).toEqual({ ids: [e.id], totalCount: 1 });
    expect(await all(api, '/customers?createdAfter=2000-01-01T00:00:00Z&createdBefore=2000-01-02T00:00:00Z')).toEqual({ ids: [], totalCount: 0 });
    expect(await all(api, `/customers?platformCustomerId=${c.platformCustomerId}&customerType=BUSINESS`)).toEqual({ ids: [], totalCount: 0 });
  });

  it('keeps totalCount exact through creates, deletes and isIncludingDeleted, per platform', async () => {
    const api = await s.api.newPlatform();
    const other = await s.api.newPlatform();
    await create(other, individual(['USD']));
    const x = await create(api, individual(['USD']));
    const y = await create(api, business());
    const z = await create(api, individual(['USD']));
    expect((await api.delete(`/customers/${y.id}`)).status).toBe(200);
    expect(await all(api, '/customers')).toEqual({ ids: [x.id, z.id], totalCount: 2 });
    expect(await all(api, '/customers?customerType=BUSINESS')).toEqual({ ids: [], totalCount: 0 });
    expect(await all(api, '/customers?isIncludingDeleted=true')).toEqual({ ids: [x.id, y.id, z.id], totalCount: 3 });
    expect(await all(api, '/customers?isIncludingDeleted=true&customerType=BUSINESS')).toEqual({ ids: [y.id], totalCount: 1 });
    // The deleted customer's platformCustomerId is free again; both show with isIncludingDeleted.
    const again = await create(api, business({ platformCustomerId: y.platformCustomerId }));
    expect(await all(api, `/customers?platformCustomerId=${y.platformCustomerId}`)).toEqual({ ids: [again.id], totalCount: 1 });
    expect(await all(api, `/customers?platformCustomerId=${y.platformCustomerId}&isIncludingDeleted=true`)).toEqual({ ids: [y.id, again.id], totalCount: 2 });
    expect((await other.get('/customers')).body.totalCount).toBe(1);
    expect((await api.post('/_sandbox/reset')).status).toBe(200);
    expect(await all(api, '/customers?isIncludingDeleted=true')).toEqual({ ids: [], totalCount: 0 });
  });
});

describe('lists of the other areas', () => {
  it('transactions: filters, both sort orders, totalCount by type and status', async () => {
    const api = await s.api.newPlatform();
    const customer = await create(api, individual(['USD', 'EUR']));
    const accounts = (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`)).body.data as { id: string; balance: { currency: { code: string } } }[];
    const usd = accounts.find((x) => x.balance.currency.code === 'USD')!;
    const eur = accounts.find((x) => x.balance.currency.code === 'EUR')!;
    for (const account of [usd, eur, usd]) {
      expect((await api.post(`/sandbox/internal-accounts/${account.id}/fund`, { amount: 100 })).status).toBe(200);
      await api.advance(60);
    }
    const asc = await all(api, '/transactions?sortOrder=asc');
    const created = (await api.get('/transactions?sortOrder=asc')).body.data.map((tx: { createdAt: string }) => tx.createdAt) as string[];
    expect(await all(api, `/transactions?endDate=${created[1]}&sortOrder=asc`)).toEqual({ ids: asc.ids.slice(0, 2), totalCount: 2 });
    expect(await all(api, `/transactions?startDate=${created[1]}`)).toEqual({ ids: [asc.ids[2], asc.ids[1]], totalCount: 2 });
    expect(await all(api, `/transactions?startDate=${created[1]}&endDate=${created[1]}&type=INCOMING`)).toEqual({ ids: [asc.ids[1]], totalCount: 1 });
    expect(asc.totalCount).toBe(3);
    expect((await all(api, '/transactions')).ids).toEqual([...asc.ids].reverse());
    expect(await all(api, '/transactions?type=INCOMING&status=COMPLETED&sortOrder=asc')).toEqual(asc);
    expect(await all(api, '/transactions?type=OUTGOING')).toEqual({ ids: [], totalCount: 0 });
    expect(await all(api, `/transactions?customerId=${encodeURIComponent(customer.id)}&sortOrder=asc`)).toEqual(asc);
    expect(await all(api, `/transactions?platformCustomerId=${encodeURIComponent(customer.platformCustomerId)}&sortOrder=asc`)).toEqual(asc);
    expect(await all(api, `/transactions?receiverAccountIdentifier=${encodeURIComponent(eur.id)}`)).toEqual({ ids: [asc.ids[1]], totalCount: 1 });
    expect(await all(api, `/transactions?accountIdentifier=${encodeURIComponent(usd.id)}&sortOrder=asc`)).toEqual({ ids: [asc.ids[0], asc.ids[2]], totalCount: 2 });
    expect(await all(api, '/transactions?startDate=2000-01-01T00:00:00Z&endDate=2000-01-02T00:00:00Z')).toEqual({ ids: [], totalCount: 0 });
  });

  it('internal and external accounts: owner, currency and type filters; deleted external accounts leave the count', async () => {
    const api = await s.api.newPlatform();
    const one = await create(api, individual(['USD', 'EUR']));
    const two = await create(api, individual(['USD']));
    expect((await all(api, '/customers/internal-accounts')).totalCount).toBe(3);
    expect((await all(api, '/customers/internal-accounts?currency=USD')).totalCount).toBe(2);
    expect((await all(api, `/customers/internal-accounts?customerId=${encodeURIComponent(one.id)}`)).totalCount).toBe(2);
    expect((await all(api, `/customers/internal-accounts?customerId=${encodeURIComponent(two.id)}&currency=EUR`)).totalCount).toBe(0);
    expect((await all(api, '/customers/internal-accounts?type=INTERNAL_FIAT')).totalCount).toBe(3);
    const beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Smith', countryOfResidence: 'US', address: { line1: '1 Main Street', postalCode: '94105', country: 'US' } };
    const ext = async (customerId: string, accountNumber: string) => {
      const res = await api.post('/customers/external-accounts', { customerId, currency: 'USD', accountInfo: { accountType: 'USD_ACCOUNT', accountNumber, routingNumber: '021000021', beneficiary } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    };
    const e1 = await ext(one.id, '123456789001');
    const e2 = await ext(two.id, '123456789002');
    expect(await all(api, '/customers/external-accounts')).toEqual({ ids: [e1, e2], totalCount: 2 });
    expect(await all(api, '/customers/external-accounts?currency=USD')).toEqual({ ids: [e1, e2], totalCount: 2 });
    expect(await all(api, `/customers/external-accounts?customerId=${encodeURIComponent(two.id)}`)).toEqual({ ids: [e2], totalCount: 1 });
    expect((await api.delete(`/customers/external-accounts/${e1}`)).status).toBeLessThan(300);
    expect(await all(api, '/customers/external-accounts')).toEqual({ ids: [e2], totalCount: 1 });
    expect(await all(api, '/platform/external-accounts')).toEqual({ ids: [], totalCount: 0 });
  });

  it('beneficial owners, verifications and webhook deliveries count what they list', async () => {
    const api = await s.api.newPlatform({ regulated: false });
    const biz = await create(api, business());
    const owner = await api.post('/beneficial-owners', {
      customerId: biz.id,
      roles: ['UBO'],
      ownershipPercentage: 60,
      personalInfo: { firstName: 'Jane', lastName: 'Smith', birthDate: '1980-02-02', nationality: 'GB', address: { line1: '1 High Street', postalCode: 'SW1A 1AA', country: 'GB' }, idType: 'NON_US_TAX_ID', identifier: 'GB-998877' },
    });
    expect(owner.status, JSON.stringify(owner.body)).toBe(201);
    expect(await all(api, `/beneficial-owners?customerId=${encodeURIComponent(biz.id)}`)).toEqual({ ids: [owner.body.id], totalCount: 1 });
    const verification = await api.post('/verifications', { customerId: biz.id });
    expect(verification.status, JSON.stringify(verification.body)).toBeLessThan(300);
    const status = verification.body.verificationStatus as string;
    expect(await all(api, '/verifications')).toEqual({ ids: [verification.body.id], totalCount: 1 });
    expect(await all(api, `/verifications?verificationStatus=${status}`)).toEqual({ ids: [verification.body.id], totalCount: 1 });
    expect(await all(api, `/verifications?customerId=${encodeURIComponent(biz.id)}&verificationStatus=${status === 'APPROVED' ? 'REJECTED' : 'APPROVED'}`)).toEqual({ ids: [], totalCount: 0 });
    expect(await all(api, '/documents')).toEqual({ ids: [], totalCount: 0 });

    const events = await all(api, '/_sandbox/webhooks/deliveries');
    const byResource = await all(api, `/_sandbox/webhooks/deliveries?resourceId=${encodeURIComponent(biz.id)}`);
    expect(byResource.ids.every((id) => events.ids.includes(id))).toBe(true);
    const since = await all(api, `/_sandbox/webhooks/deliveries?since=${new Date(Date.now() - 3_600_000).toISOString()}`);
    expect(since).toEqual(events);
    expect(await all(api, '/_sandbox/webhooks/deliveries?since=2999-01-01T00:00:00Z')).toEqual({ ids: [], totalCount: 0 });
  });
});
