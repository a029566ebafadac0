import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';

const s = useSandbox();

describe('platform configuration', () => {
  it('GET /config answers the default sandbox configuration', async () => {
    const res = await s.api.get('/config');
    expect(res.status).toBe(200);
    const codes = res.body.supportedCurrencies.map((c: { currencyCode: string }) => c.currencyCode);
    for (const code of ['USD', 'EUR', 'GBP', 'MXN', 'BRL', 'INR', 'NGN', 'PHP', 'USDC', 'USDB', 'BTC']) expect(codes).toContain(code);
    expect(res.body.id).toMatch(/^PlatformConfig:[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(res.body.feeConfigs.length).toBeGreaterThan(0);
    expect(res.body.embeddedWalletConfig.appName).toBeTruthy();
  });

  it('PATCH /config updates, merges nested objects and upserts fees by key', async () => {
    const api = await s.api.newPlatform();
    const res = await api.patch('/config', {
      umaDomain: 'mycompany.com',
      webhookEndpoint: 'https://api.mycompany.com/webhooks',
      embeddedWalletConfig: { appName: 'Acme Wallet' },
      feeConfigs: [{ feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'USD', variableFeeBps: 75, fixedFee: { amount: 10, currency: 'USD' } }],
    });
    expect(res.status).toBe(200);
    expect(res.body.umaDomain).toBe('mycompany.com');
    expect(res.body.webhookEndpoint).toBe('https://api.mycompany.com/webhooks');
    expect(res.body.embeddedWalletConfig.appName).toBe('Acme Wallet');
    expect(res.body.embeddedWalletConfig.otpLength).toBe(6);
    expect(res.body.feeConfigs).toEqual([
      { feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'USD', variableFeeBps: 75, fixedFee: { amount: 10, currency: 'USD' } },
    ]);
    const again = await api.get('/config');
    expect(again.body.umaDomain).toBe('mycompany.com');
    // zero fees deactivate the config
    const off = await api.patch('/config', {
      feeConfigs: [{ feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'USD', variableFeeBps: 0, fixedFee: { amount: 0, currency: 'USD' } }],
    });
    expect(off.body.feeConfigs).toEqual([]);
  });

  it('PATCH /config replaces supported currencies and keeps provider fields read-only', async () => {
    const api = await s.api.newPlatform();
    const res = await api.patch('/config', {
      supportedCurrencies: [
        { currencyCode: 'EUR', minAmount: 500, maxAmount: 900_000, requiredCounterpartyFields: [], enabledTransactionTypes: ['OUTGOING'], providerRequiredCustomerFields: ['EMAIL'] },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.supportedCurrencies).toHaveLength(1);
    expect(res.body.supportedCurrencies[0].minAmount).toBe(500);
    expect(res.body.supportedCurrencies[0].providerRequiredCustomerFields).toEqual(['BIRTH_DATE', 'NATIONALITY', 'POSTAL_ADDRESS']);
  });

  it('rejects bad configuration with field errors and writes nothing', async () => {
    const api = await s.api.newPlatform();
    const before = await api.get('/config');
    const res = await api.patch('/config', {
      umaDomain: 'mycompany.com',
      webhookEndpoint: 'not a url',
      supportedCurrencies: [{ currencyCode: 'USD', minAmount: -1, maxAmount: 10, requiredCounterpartyFields: [{ name: 'SHOE_SIZE', mandatory: true }], enabledTransactionTypes: ['OUTGOING'] }],
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    const fields = res.body.details.errors.map((e: { field: string }) => e.field);
    expect(fields).toEqual(
      expect.arrayContaining(['webhookEndpoint', 'supportedCurrencies.0.minAmount', 'supportedCurrencies.0.requiredCounterpartyFields.0.name']),
    );
    for (const error of res.body.details.errors) {
      expect(error).toMatchObject({ field: expect.any(String), constraint: expect.any(Object), message: expect.any(String) });
    }
    const after = await api.get('/config');
    expect(after.body).toEqual(before.body);
  });

  it('rejects a currency the service does not support and min above max', async () => {
    const res = await s.api.patch('/config', {
      supportedCurrencies: [{ currencyCode: 'XYZ', minAmount: 50, maxAmount: 10, requiredCounterpartyFields: [], enabledTransactionTypes: ['OUTGOING'] }],
    });
    expect(res.status).toBe(400);
    expect(res.body.details.errors.map((e: { field: string }) => e.field)).toEqual([
      'supportedCurrencies.0.currencyCode',
      'supportedCurrencies.0.minAmount',
    ]);
  });

  it('keeps each platform to its own configuration', async () => {
    const a = await s.api.newPlatform();
    const b = await s.api.newPlatform({ regulated: false });
    await a.patch('/config', { umaDomain: 'a-platform.com' });
    const bConfig = await b.get('/config');
    expect(bConfig.body.umaDomain).not.toBe('a-platform.com');
    expect(bConfig.body.isRegulatedFinancialInstitution).toBe(false);
    expect((await a.get('/config')).body.id).not.toBe(bConfig.body.id);
  });
});
