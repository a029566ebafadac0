import { describe, expect, it } from 'vitest';
import { individual, unique, useSandbox, type Api } from '../helpers/sandbox.js';

// What the service's public clients (its CLI, its generated TS SDK) send, unchanged (issue 10, section 5).
const s = useSandbox();

const WARNING = 'service-sandbox-warning';
const person = { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Smith', countryOfResidence: 'US', address: { line1: '1 Main Street', postalCode: '94105', country: 'US' } };

async function customerWithUsd(api: Api) {
  const customer = (await api.post('/customers', individual(['USD']))).body;
  const accounts = await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`);
  const usd = accounts.body.data.find((a: { balance: { currency: { code: string } } }) => a.balance.currency.code === 'USD');
  return { customer, usd };
}

describe('client compatibility', () => {
  it('POST /transfer-in without amount pulls the documented sandbox default (10,000 smallest units)', async () => {
    const api = await s.api.newPlatform();
    const { customer, usd } = await customerWithUsd(api);
    const ext = (await api.post('/customers/external-accounts', {
      customerId: customer.id,
      currency: 'USD',
      accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '555566667777', routingNumber: '021000021', beneficiary: person },
    })).body.id;
    const res = await api.post('/transfer-in', { source: { accountId: ext }, destination: { accountId: usd.id } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ status: 'COMPLETED', receivedAmount: { amount: 10_000, currency: { code: 'USD' } } });
    const after = await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`);
    expect(after.body.data.find((a: { id: string }) => a.id === usd.id).balance.amount).toBe(10_000);
    // an explicit amount still wins, and a bad one is still refused
    expect((await api.post('/transfer-in', { source: { accountId: ext }, destination: { accountId: usd.id }, amount: 123 })).body.receivedAmount.amount).toBe(123);
    expect((await api.post('/transfer-in', { source: { accountId: ext }, destination: { accountId: usd.id }, amount: -5 })).status).toBe(400);
  });

  it('array query parameters accept the repeated and the comma-separated form', async () => {
    const codes = (body: { data: { destinationCurrency: { code: string } }[] }) => [...new Set(body.data.map((r) => r.destinationCurrency.code))].sort();
    const repeated = await s.api.get('/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR&destinationCurrency=MXN');
    const comma = await s.api.get('/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR,MXN');
    const encoded = await s.api.get('/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR%2CMXN');
    const mixed = await s.api.get('/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR,MXN&destinationCurrency=EUR');
    for (const res of [repeated, comma, encoded, mixed]) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(codes(res.body)).toEqual(['EUR', 'MXN']);
    }
    const bad = await s.api.get('/exchange-rates?destinationCurrency=EUR,mx');
    expect(bad.status).toBe(400);
    expect(bad.body.details.errors.map((e: { field: string }) => e.field)).toEqual(['destinationCurrency.1']);
  });

  it('wallet addresses the contract accepts but whose checksum fails are accepted with a Service-Sandbox-Warning', async () => {
    const api = await s.api.newPlatform();
    const create = (accountType: string, currency: string, address: string) =>
      api.post('/platform/external-accounts', { currency, accountInfo: { accountType, address } });
    // the contract's own Spark example
    const spark = await create('SPARK_WALLET', 'BTC', 'spark1pgssyuuuhnrrdjswal5c3s3rafw9w3y5dd4cjy3duxlf7hjzkp0rqx6dj6mrhu');
    expect(spark.status, JSON.stringify(spark.body)).toBe(201);
    expect(spark.headers.get(WARNING)).toContain('accountInfo.address');
    // the contract's (and the public guides') mixed-case EVM example, whose EIP-55 checksum fails
    const evm = await create('ETHEREUM_WALLET', 'USDC', '0xAbCDEF1234567890aBCdEf1234567890ABcDef12');
    expect(evm.status).toBe(201);
    expect(evm.headers.get(WARNING)).toMatch(/accountInfo\.address: .*checksum/);
    // a valid address: no warning
    const valid = await create('ETHEREUM_WALLET', 'USDC', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
    expect(valid.status).toBe(201);
    expect(valid.headers.get(WARNING)).toBeNull();
    // what the contract's schema refuses is still refused
    const missing = await api.post('/platform/external-accounts', { currency: 'USDC', accountInfo: { accountType: 'ETHEREUM_WALLET' } });
    expect(missing.status).toBe(400);
    const notString = await api.post('/platform/external-accounts', { currency: 'USDC', accountInfo: { accountType: 'ETHEREUM_WALLET', address: 42 } });
    expect(notString.status).toBe(400);
  });

  it('POST /_sandbox/platforms accepts client ids with spaces (HTTP Basic allows them); only colons and control characters are refused', async () => {
    const clientId = `my platform ${unique('id')}`;
    const created = await s.api.post('/_sandbox/platforms', { clientId, clientSecret: 'a-long-secret-1' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const api = s.api.as(clientId, 'a-long-secret-1');
    expect((await api.get('/config')).status).toBe(200);
    for (const bad of ['with:colon', 'tab\there', 'nul\u0000']) {
      const res = await s.api.post('/_sandbox/platforms', { clientId: bad, clientSecret: 'a-long-secret-1' });
      expect(res.status, bad).toBe(400);
    }
  });
});
