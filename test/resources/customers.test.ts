import { describe, expect, it } from 'vitest';
import { unique, useSandbox, type Api } from '../helpers/sandbox.js';

const s = useSandbox();

const individual = (extra: Record<string, unknown> = {}) => ({
  customerType: 'INDIVIDUAL',
  platformCustomerId: unique('ind'),
  fullName: 'Jane Smith',
  birthDate: '1990-01-15',
  nationality: 'US',
  email: 'jane.smith@example.com',
  phoneNumber: '+14155551234',
  ...extra,
});

const business = (extra: Record<string, unknown> = {}, info: Record<string, unknown> = {}) => ({
  customerType: 'BUSINESS',
  platformCustomerId: unique('biz'),
  businessInfo: { legalName: 'Acme Corporation', country: 'US', taxId: '47-1234567', incorporatedOn: '2018-03-14', registrationNumber: '5523041', ...info },
  ...extra,
});

const consent = (extra: Record<string, unknown> = {}) => ({
  acceptedAt: '2025-10-20T10:00:00Z',
  ipAddress: '203.0.113.7',
  termsVersion: '2025-10-13',
  acceptanceMethod: 'CHECKBOX',
  ...extra,
});

const fields = (body: { details?: { errors?: { field: string }[] } }) => (body.details?.errors ?? []).map((e) => e.field);

async function accountsOf(api: Api, customerId: string) {
  const res = await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&limit=100`);
  expect(res.status).toBe(200);
  return res.body.data as { currency?: unknown; balance: { amount: number; currency: { code: string } }; type: string; customerId: string; fundingPaymentInstructions: unknown[] }[];
}

describe('customers: create, get, update, delete', () => {
  it('gives each customer without a chosen UMA address its own, in the order they were made, on the platform\'s domain', async () => {
    const api = await s.api.newPlatform();
    const made = await Promise.all(Array.from({ length: 12 }, () => api.post('/customers', individual({ currencies: ['USD'] }))));
    const byId = made.map((res) => res.body).sort((a, b) => (a.id < b.id ? -1 : 1));
    const names = byId.map((c) => /^\$([0-9a-z]{12})@sandbox\.uma\.money$/.exec(c.umaAddress)?.[1]);
    expect(names.every((name) => name !== undefined)).toBe(true);
    expect(new Set(names).size).toBe(12);
    expect([...names].sort()).toEqual(names);
    // Each resolves to its customer.
    for (const c of byId.slice(0, 3)) expect((await api.get(`/customers?umaAddress=${encodeURIComponent(c.umaAddress)}`)).body.data.map((x: { id: string }) => x.id)).toEqual([c.id]);
  });

  it('creates an individual on a regulated platform APPROVED with one internal account per configured currency', async () => {
    const api = await s.api.newPlatform();
    const res = await api.post('/customers', individual());
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^Customer:/);
    expect(res.body.kycStatus).toBe('APPROVED');
    expect(res.body.umaAddress).toMatch(/^\$.+@/);
    expect(res.body.endUserTermsConsent).toBeUndefined();
    expect(res.body.isDeleted).toBe(false);
    expect(res.body).not.toHaveProperty('identifier');
    const config = await api.get('/config');
    const accounts = await accountsOf(api, res.body.id);
    expect(accounts.map((a) => a.balance.currency.code).sort()).toEqual(config.body.supportedCurrencies.map((c: { currencyCode: string }) => c.currencyCode).sort());
    for (const account of accounts) {
      expect(account.customerId).toBe(res.body.id);
      expect(account.balance.amount).toBe(0);
    }
    const usd = accounts.find((a) => a.balance.currency.code === 'USD')!;
    expect(usd.type).toBe('INTERNAL_FIAT');
    expect(usd.fundingPaymentInstructions.length).toBeGreaterThan(0);
    expect(accounts.find((a) => a.balance.currency.code === 'USDC')!.type).toBe('INTERNAL_CRYPTO');
    const got = await api.get(`/customers/${res.body.id}`);
    expect(got.body).toEqual(res.body);
  });

  it('provisions only the customer\'s own currencies, with deterministic instructions', async () => {
    const api = await s.api.newPlatform();
    const res = await api.post('/customers', individual({ currencies: ['USD', 'EUR'] }));
    expect(res.status).toBe(201);
    expect(res.body.currencies).toEqual(['USD', 'EUR']);
    const first = await accountsOf(api, res.body.id);
    expect(first.map((a) => a.balance.currency.code).sort()).toEqual(['EUR', 'USD']);
    const again = await accountsOf(api, res.body.id);
    expect(again).toEqual(first);
    const eur = first.find((a) => a.balance.currency.code === 'EUR')! as any;
    expect(eur.fundingPaymentInstructions[0].accountOrWalletInfo.iban).toMatch(/^DE\d{20}$/);
    // adding a currency by PATCH provisions just that account
    const more = await api.patch(`/customers/${res.body.id}`, { customerType: 'INDIVIDUAL', currencies: ['USD', 'EUR', 'MXN'] });
    expect(more.body.currencies).toEqual(['USD', 'EUR', 'MXN']);
    const after = await accountsOf(api, res.body.id);
    expect(after.map((a) => a.balance.currency.code).sort()).toEqual(['EUR', 'MXN', 'USD']);
    expect(after.filter((a) => a.balance.currency.code !== 'MXN')).toEqual(first);
    // a currency the platform does not offer is refused
    const bad = await api.post('/customers', individual({ currencies: ['USD', 'JPY'] }));
    expect(bad.status).toBe(400);
    expect(fields(bad.body)).toEqual(['currencies.1']);
  });

  it('validates individuals: names, dates, countries, identifiers, EDD descriptions, phone and email; writes nothing', async () => {
    const api = await s.api.newPlatform();
    const res = await api.post('/customers', individual({
      fullName: 'Cher',
      birthDate: '1990-02-30',
      nationality: 'XX',
      idType: 'EIN',
      identifier: '12-3456789',
      phoneNumber: '4155551234',
      email: 'not-an-email',
    }));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(fields(res.body)).toEqual(expect.arrayContaining(['birthDate', 'nationality', 'idType', 'phoneNumber', 'email']));
    const second = await api.post('/customers', individual({ fullName: 'Cher', idType: 'SSN', identifier: '123456789', sourceOfFundsCategories: ['SALARY', 'OTHER'], purposeOfAccount: 'OTHER' }));
    expect(second.status).toBe(400);
    expect(fields(second.body).sort()).toEqual(['fullName', 'identifier', 'purposeOfAccountOtherDescription', 'sourceOfFundsOtherDescription']);
    const list = await api.get('/customers');
    expect(list.body.totalCount).toBe(0);
    const ok = await api.post('/customers', individual({ idType: 'ITIN', identifier: '912-70-1234', sourceOfFundsCategories: ['OTHER'], sourceOfFundsOtherDescription: 'Prize money' }));
    expect(ok.status).toBe(201);
    const missingType = await api.post('/customers', { fullName: 'Jane Smith' });
    expect(missingType.status).toBe(400);
    expect(fields(missingType.body)).toContain('customerType');
  });

  it('validates businesses: required businessInfo and the tax id against the country', async () => {
    const api = await s.api.newPlatform();
    const missing = await api.post('/customers', { customerType: 'BUSINESS', businessInfo: { legalName: 'Acme' } });
    expect(missing.status).toBe(400);
    expect(fields(missing.body).sort()).toEqual(['businessInfo.country', 'businessInfo.incorporatedOn', 'businessInfo.taxId']);
    const badEin = await api.post('/customers', business({}, { taxId: '1234' }));
    expect(badEin.status).toBe(400);
    expect(fields(badEin.body)).toEqual(['businessInfo.taxId']);
    const badVat = await api.post('/customers', business({}, { country: 'DE', taxId: 'DE12345' }));
    expect(badVat.status).toBe(400);
    for (const [country, taxId] of [['DE', 'DE123456789'], ['FR', 'FR12345678901'], ['NL', 'NL123456789B01'], ['GR', 'EL123456789'], ['US', '47-1234567']]) {
      const ok = await api.post('/customers', business({}, { country, taxId }));
      expect(ok.status, `${country} ${taxId}`).toBe(201);
      // sandbox-rules.md "Rulings": businesses are created UNVERIFIED on every platform
      expect(ok.body.kybStatus).toBe('UNVERIFIED');
      expect(ok.body.businessInfo.taxId).toBe(taxId);
    }
  });

  it('keeps platformCustomerId unique among active customers; deleting frees it', async () => {
    const api = await s.api.newPlatform();
    const body = individual();
    const first = await api.post('/customers', body);
    expect(first.status).toBe(201);
    const dup = await api.post('/customers', { ...body, email: 'other@example.com' });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('CONFLICT');
    const deleted = await api.delete(`/customers/${first.body.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.isDeleted).toBe(true);
    const closed = (await api.get(`/customers/internal-accounts?customerId=${first.body.id}&limit=100`)).body.data as { status: string }[];
    expect(closed.length).toBeGreaterThan(0);
    expect(new Set(closed.map((a) => a.status))).toEqual(new Set(['CLOSED']));
    const again = await api.delete(`/customers/${first.body.id}`);
    expect(again.status).toBe(410);
    expect(again.body.code).toBe('CUSTOMER_DELETED');
    const reuse = await api.post('/customers', body);
    expect(reuse.status).toBe(201);
    expect((await api.get(`/customers/${first.body.id}`)).body.isDeleted).toBe(true);
    const patchDeleted = await api.patch(`/customers/${first.body.id}`, { customerType: 'INDIVIDUAL', email: 'x@example.com' });
    expect(patchDeleted.status).toBe(404);
  });

  it('answers 404 USER_NOT_FOUND for unknown ids and other platforms\' customers', async () => {
    const a = await s.api.newPlatform();
    const b = await s.api.newPlatform();
    const created = await a.post('/customers', individual());
    for (const res of [await b.get(`/customers/${created.body.id}`), await a.get('/customers/Customer:nope'), await b.delete(`/customers/${created.body.id}`)]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('USER_NOT_FOUND');
    }
    const patch = await b.patch(`/customers/${created.body.id}`, { customerType: 'INDIVIDUAL', fullName: 'Eve Doe' });
    expect(patch.status).toBe(404);
  });

  it('updates with customerType required and unchangeable; businessInfo merges field by field', async () => {
    const api = await s.api.newPlatform();
    const created = await api.post('/customers', business());
    const noType = await api.patch(`/customers/${created.body.id}`, { email: 'a@b.com' });
    expect(noType.status).toBe(400);
    expect(fields(noType.body)).toContain('customerType');
    const wrongType = await api.patch(`/customers/${created.body.id}`, { customerType: 'INDIVIDUAL', fullName: 'Jane Smith' });
    expect(wrongType.status).toBe(400);
    expect(fields(wrongType.body)).toEqual(['customerType']);
    const res = await api.patch(`/customers/${created.body.id}`, { customerType: 'BUSINESS', businessInfo: { doingBusinessAs: 'Acme' }, email: 'finance@acme.com' });
    expect(res.status).toBe(200);
    expect(res.body.businessInfo).toMatchObject({ legalName: 'Acme Corporation', doingBusinessAs: 'Acme', taxId: '47-1234567' });
    expect(res.body.email).toBe('finance@acme.com');
    const badTax = await api.patch(`/customers/${created.body.id}`, { customerType: 'BUSINESS', businessInfo: { country: 'DE' } });
    expect(badTax.status).toBe(400);
    expect(fields(badTax.body)).toEqual(['businessInfo.taxId']);
    expect((await api.get(`/customers/${created.body.id}`)).body.businessInfo.country).toBe('US');
  });

  it('lists with filters and cursor pagination', async () => {
    const api = await s.api.newPlatform();
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await api.post('/customers', individual({ region: i % 2 ? 'MX' : 'US', currencies: i < 2 ? ['EUR'] : ['USD'] }))).body.id);
    const biz = await api.post('/customers', business());
    const page1 = await api.get('/customers?limit=2');
    expect(page1.body.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(0, 2));
    expect(page1.body.hasMore).toBe(true);
    expect(page1.body.totalCount).toBe(6);
    const page2 = await api.get(`/customers?limit=2&cursor=${page1.body.nextCursor}`);
    expect(page2.body.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(2, 4));
    expect((await api.get('/customers?customerType=BUSINESS')).body.data.map((c: { id: string }) => c.id)).toEqual([biz.body.id]);
    expect((await api.get('/customers?region=MX')).body.totalCount).toBe(2);
    // the business has the platform's currencies, EUR among them
    expect((await api.get('/customers?currency=EUR')).body.totalCount).toBe(3);
    const one = await api.get(`/customers/${ids[3]}`);
    expect((await api.get(`/customers?platformCustomerId=${one.body.platformCustomerId}`)).body.data[0].id).toBe(ids[3]);
    expect((await api.get(`/customers?umaAddress=${encodeURIComponent(one.body.umaAddress)}`)).body.data[0].id).toBe(ids[3]);
    expect((await api.get(`/customers?createdAfter=${encodeURIComponent('2000-01-01T00:00:00Z')}&createdBefore=${encodeURIComponent('2999-01-01T00:00:00+02:00')}`)).body.totalCount).toBe(6);
    await api.delete(`/customers/${ids[0]}`);
    expect((await api.get('/customers')).body.totalCount).toBe(5);
    expect((await api.get('/customers?isIncludingDeleted=true')).body.totalCount).toBe(6);
    const bad = await api.get('/customers?limit=500&customerType=ROBOT');
    expect(bad.status).toBe(400);
    expect(fields(bad.body).sort()).toEqual(['customerType', 'limit']);
  });
});

describe('end user terms and platform kinds', () => {
  it('GET /customers/end-user-terms gives the current version', async () => {
    const res = await s.api.get('/customers/end-user-terms');
    expect(res.status).toBe(200);
    expect(res.body.version).toBe('2025-10-13');
  });

  it('unregulated: no accounts until consent; PATCH records it and provisions; a wrong version is END_USER_TERMS_VERSION_NOT_FOUND', async () => {
    const api = await s.api.newPlatform({ regulated: false });
    const created = await api.post('/customers', individual({ currencies: ['USD'] }));
    expect(created.status).toBe(201);
    expect(created.body.endUserTermsConsent).toBeUndefined();
    expect(await accountsOf(api, created.body.id)).toEqual([]);
    const wrong = await api.patch(`/customers/${created.body.id}`, { customerType: 'INDIVIDUAL', endUserTermsConsent: consent({ termsVersion: '1999-01-01' }) });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('END_USER_TERMS_VERSION_NOT_FOUND');
    const method = await api.patch(`/customers/${created.body.id}`, { customerType: 'INDIVIDUAL', endUserTermsConsent: consent({ acceptanceMethod: 'NODDED' }) });
    expect(method.status).toBe(400);
    expect(fields(method.body)).toEqual(['endUserTermsConsent.acceptanceMethod']);
    expect(await accountsOf(api, created.body.id)).toEqual([]);
    const ok = await api.patch(`/customers/${created.body.id}`, { customerType: 'INDIVIDUAL', endUserTermsConsent: consent() });
    expect(ok.status).toBe(200);
    expect(ok.body.endUserTermsConsent).toEqual(consent());
    const accounts = await accountsOf(api, created.body.id);
    expect(accounts.map((a) => a.balance.currency.code)).toEqual(['USD']);
    // a second PATCH does not duplicate accounts
    await api.patch(`/customers/${created.body.id}`, { customerType: 'INDIVIDUAL', endUserTermsConsent: consent({ acceptanceMethod: 'CLICK_TO_ACCEPT' }) });
    expect(await accountsOf(api, created.body.id)).toHaveLength(1);
  });

  it('unregulated: customer-scoped money movement is 403 END_USER_TERMS_NOT_ACCEPTED until consent, then USER_NOT_READY while KYC is pending', async () => {
    const api = await s.api.newPlatform({ regulated: false });
    const customer = (await api.post('/customers', individual({ currencies: ['USD'] }))).body;
    const beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'Maria Garcia', countryOfResidence: 'MX', address: { line1: 'Av. Reforma 1', postalCode: '06600', country: 'MX' } };
    const external = await api.post('/customers/external-accounts', {
      customerId: customer.id, currency: 'MXN', accountInfo: { accountType: 'MXN_ACCOUNT', clabeNumber: '002180000112345678', beneficiary },
    });
    expect(external.status).toBe(201);
    const quote = (customerId: string) => ({
      source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId },
      destination: { destinationType: 'ACCOUNT', accountId: external.body.id },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 100_00,
    });
    const refused = await api.post('/quotes', quote(customer.id));
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('END_USER_TERMS_NOT_ACCEPTED');
    await api.patch(`/customers/${customer.id}`, { customerType: 'INDIVIDUAL', endUserTermsConsent: consent() });
    expect((await api.post('/quotes', quote(customer.id))).status).toBe(201);
    // consent on file but KYC pending (fullName suffix 001)
    const pending = (await api.post('/customers', individual({ fullName: 'Jane Doe001', currencies: ['USD'], endUserTermsConsent: consent() }))).body;
    const notReady = await api.post('/quotes', quote(pending.id));
    expect(notReady.status).toBe(403);
    expect(notReady.body.code).toBe('USER_NOT_READY');
  });

  it('unregulated: consent at creation provisions at once, for businesses too', async () => {
    const api = await s.api.newPlatform({ regulated: false });
    const res = await api.post('/customers', business({ currencies: ['USD', 'USDC'], endUserTermsConsent: consent() }));
    expect(res.status).toBe(201);
    expect(res.body.kybStatus).toBe('UNVERIFIED');
    expect(res.body.endUserTermsConsent.termsVersion).toBe('2025-10-13');
    expect(await accountsOf(api, res.body.id)).toHaveLength(2);
  });

  it('regulated: endUserTermsConsent is not part of the flow', async () => {
    const api = await s.api.newPlatform();
    const res = await api.post('/customers', individual({ endUserTermsConsent: consent() }));
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(['endUserTermsConsent']);
  });

  it('unregulated individuals take their creation status from the fullName suffix', async () => {
    const api = await s.api.newPlatform({ regulated: false });
    const statuses: Record<string, string> = { 'Jane Doe001': 'PENDING', 'Jane Doe002': 'REJECTED', 'Jane Doe003': 'UNVERIFIED', 'Jane Doe': 'APPROVED' };
    for (const [fullName, status] of Object.entries(statuses)) {
      const res = await api.post('/customers', individual({ fullName }));
      expect(res.body.kycStatus, fullName).toBe(status);
    }
  });
});

describe('internal accounts of customers', () => {
  it('GET /customers/internal-accounts filters by customer, currency and type and paginates', async () => {
    const api = await s.api.newPlatform();
    const a = await api.post('/customers', individual({ currencies: ['USD', 'USDC', 'USDB'] }));
    const b = await api.post('/customers', individual({ currencies: ['USD'] }));
    const all = await api.get('/customers/internal-accounts');
    expect(all.body.totalCount).toBe(4);
    const usd = await api.get('/customers/internal-accounts?currency=USD');
    expect(usd.body.data.map((x: { customerId: string }) => x.customerId).sort()).toEqual([a.body.id, b.body.id].sort());
    expect((await api.get('/customers/internal-accounts?type=INTERNAL_CRYPTO')).body.totalCount).toBe(1);
    expect((await api.get('/customers/internal-accounts?type=EMBEDDED_WALLET')).body.totalCount).toBe(1);
    const p1 = await api.get('/customers/internal-accounts?limit=3');
    expect(p1.body.hasMore).toBe(true);
    const p2 = await api.get(`/customers/internal-accounts?limit=3&cursor=${p1.body.nextCursor}`);
    expect(p2.body.data).toHaveLength(1);
    expect(p2.body.hasMore).toBe(false);
    const other = await s.api.newPlatform();
    expect((await other.get(`/customers/internal-accounts?customerId=${a.body.id}`)).body.totalCount).toBe(0);
    expect((await api.get('/customers/internal-accounts?type=SAVINGS')).status).toBe(400);
  });
});
