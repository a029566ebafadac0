import { describe, expect, it } from 'vitest';
import { individual, useSandbox } from '../helpers/sandbox.js';

// Deviations from the contract found by fuzzing (issue 10, section 4), one regression test each.
const s = useSandbox();

const fields = (body: { details?: { errors?: { field: string }[] } }) => (body.details?.errors ?? []).map((e) => e.field);

describe('contract deviations found by fuzzing', () => {
  it('GET /beneficial-owners without customerId is 400 INVALID_INPUT naming customerId', async () => {
    const api = await s.api.newPlatform();
    const res = await api.get('/beneficial-owners');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(fields(res.body)).toEqual(['customerId']);
    expect((await api.get('/beneficial-owners?limit=5')).status).toBe(400);
  });

  it('PATCH /config with a non-USD feeConfigs[].sourceCurrency answers the documented 501, changing nothing', async () => {
    const api = await s.api.newPlatform();
    const before = (await api.get('/config')).body;
    const res = await api.patch('/config', {
      umaDomain: 'changed.example.com',
      feeConfigs: [
        { feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'USD', variableFeeBps: 10, fixedFee: { amount: 5, currency: 'USD' } },
        { feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'EUR', variableFeeBps: 10, fixedFee: { amount: 5, currency: 'EUR' } },
      ],
    });
    expect(res.status).toBe(501);
    expect(res.body.code).toBe('NOT_IMPLEMENTED');
    expect(res.body.message).toContain('EUR');
    expect((await api.get('/config')).body).toEqual(before);
    const usd = await api.patch('/config', { feeConfigs: [{ feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'USD', variableFeeBps: 10, fixedFee: { amount: 5, currency: 'USD' } }] });
    expect(usd.status).toBe(200);
  });

  it('GET /uma-providers accepts every schema-valid countryCode and cursor (unknown: an empty page)', async () => {
    for (const query of ['countryCode=', 'countryCode=ZZZZ', 'countryCode=%F0%9F%98%80', 'countryCode=1', 'currencyCode=NOPE', 'cursor=', 'cursor=x', 'cursor=%00%00', 'cursor=eyJrIjoibm9wZSJ9']) {
      const res = await s.api.get(`/uma-providers?${query}`);
      expect(res.status, query).toBe(200);
    }
    expect((await s.api.get('/uma-providers?countryCode=ZZZZ')).body).toMatchObject({ data: [], hasMore: false, totalCount: 0 });
    const bogusCursor = await s.api.get('/uma-providers?cursor=not-a-cursor');
    expect(bogusCursor.body).toMatchObject({ data: [], hasMore: false });
    // a cursor this sandbox issued still pages
    const first = await s.api.get('/uma-providers?limit=2');
    const second = await s.api.get(`/uma-providers?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.data[0].name).not.toBe(first.body.data[0].name);
  });

  it('a failing IBAN (mod-97) is named accountInfo.iban, beside any other wrong field', async () => {
    const api = await s.api.newPlatform();
    const customerId = (await api.post('/customers', individual(['EUR']))).body.id;
    const beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Smith', countryOfResidence: 'DE' };
    const create = (iban: string, ben: Record<string, unknown>) =>
      api.post('/customers/external-accounts', { customerId, currency: 'EUR', accountInfo: { accountType: 'EUR_ACCOUNT', iban, beneficiary: ben } });
    const bad = await create('DE89370400440532013001', beneficiary);
    expect(bad.status).toBe(400);
    expect(fields(bad.body)).toEqual(['accountInfo.iban']);
    const both = await create('DE89370400440532013001', { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Smith' });
    expect(fields(both.body).sort()).toEqual(['accountInfo.beneficiary.countryOfResidence', 'accountInfo.iban']);
    const onlyBeneficiary = await create('DE89370400440532013000', { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Smith' });
    expect(fields(onlyBeneficiary.body)).toEqual(['accountInfo.beneficiary.countryOfResidence']);
  });
});
