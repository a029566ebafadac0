import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { platformService } from '../../src/tenancy/index.js';
import { individual, useSandbox, type Api } from '../helpers/sandbox.js';

const s = useSandbox();
const bin = fileURLToPath(new URL('../../bin/service-sandbox.js', import.meta.url));

async function fundedCustomer(api: Api) {
  const customer = (await api.post('/customers', individual(['USD', 'EUR']))).body;
  const accounts = (await api.get(`/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`)).body.data;
  const usd = accounts.find((a: { balance: { currency: { code: string } } }) => a.balance.currency.code === 'USD');
  const eur = accounts.find((a: { balance: { currency: { code: string } } }) => a.balance.currency.code === 'EUR');
  expect((await api.post(`/sandbox/internal-accounts/${usd.id}/fund`, { amount: 1_000_00 })).status).toBe(200);
  return { customer, usd, eur };
}

const quoteBody = (from: string, to: string) => ({
  source: { sourceType: 'ACCOUNT', accountId: from },
  destination: { destinationType: 'ACCOUNT', accountId: to },
  lockedCurrencySide: 'SENDING',
  lockedCurrencyAmount: 10_00,
});

/** Quotes the platform has (there is no contract operation that lists quotes). */
const quoteCount = (api: Api) => {
  const platform = platformService(s.sandbox.context).byClientId(api.clientId)!;
  return (s.sandbox.context.db.prepare('SELECT COUNT(*) AS n FROM quotes WHERE platform_id = ?').get(platform.id) as { n: number }).n;
};

describe('x-should-retry on every answer a retry cannot change', () => {
  it('a 409 QUOTE_ALREADY_EXECUTED, a 400, a 401 and a 404 say false; a 2xx says nothing', async () => {
    const api = await s.api.newPlatform();
    const { usd, eur } = await fundedCustomer(api);
    const quote = await api.post('/quotes', quoteBody(usd.id, eur.id));
    expect(quote.status, JSON.stringify(quote.body)).toBe(201);
    expect((await api.post(`/quotes/${quote.body.id}/execute`, {})).status).toBe(200);
    const again = await api.post(`/quotes/${quote.body.id}/execute`, {});
    expect(again.status).toBe(409);
    expect(again.body.details.reason).toBe('QUOTE_ALREADY_EXECUTED');
    expect(again.headers.get('x-should-retry')).toBe('false');
    expect(again.headers.get('retry-after')).toBeNull();
    const invalid = await api.post('/customers', { customerType: 'NOPE' });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('x-should-retry')).toBe('false');
    const missing = await api.get('/customers/Customer:00000000-0000-7000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-should-retry')).toBe('false');
    const unauthorized = await api.get('/config', { auth: false });
    expect(unauthorized.headers.get('x-should-retry')).toBe('false');
    const ok = await api.get('/config');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-should-retry')).toBeNull();
  });

  it('a 501 says false', async () => {
    // Every operation is built now, so build the app without one area: its operations answer 501.
    const { createApp } = await import('../../src/index.js');
    const { areas } = await import('../../src/index.js');
    const app = createApp(s.sandbox.context, areas.filter((area) => area.name !== 'vasps'));
    const auth = `Basic ${Buffer.from(`${s.sandbox.clientId}:${s.sandbox.clientSecret}`).toString('base64')}`;
    const res = await app.request('/2025-10-13/vasps', { headers: { Authorization: auth } });
    expect(res.status).toBe(501);
    expect(((await res.json()) as { code: string }).code).toBe('NOT_IMPLEMENTED');
    expect(res.headers.get('x-should-retry')).toBe('false');
  });
});

describe('fault injection (/_sandbox/faults)', () => {
  it('a rule for the next 2 createQuote calls faults exactly those two with 503, retriable, and creates no quote', async () => {
    const api = await s.api.newPlatform();
    const { usd, eur } = await fundedCustomer(api);
    const before = quoteCount(api);
    const armed = await api.post('/_sandbox/faults', { operationId: 'createQuote', status: 503, times: 2, retryAfterSeconds: 3 });
    expect(armed.status).toBe(201);
    expect(armed.body).toMatchObject({ operationId: 'createQuote', effect: { type: 'STATUS', status: 503 }, remaining: 2, faulted: 0 });

    for (let i = 0; i < 2; i += 1) {
      const res = await api.post('/quotes', quoteBody(usd.id, eur.id));
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('SERVICE_UNAVAILABLE');
      expect(res.headers.get('x-should-retry')).toBe('true');
      expect(res.headers.get('retry-after')).toBe('3');
      expect(res.headers.get('service-sandbox-fault')).toBe(armed.body.id);
    }
    expect(quoteCount(api)).toBe(before);
    expect((await api.get('/_sandbox/faults')).body.data).toEqual([]);
    const third = await api.post('/quotes', quoteBody(usd.id, eur.id));
    expect(third.status).toBe(201);
    expect(quoteCount(api)).toBe(before + 1);
  });

  it('other operations and other platforms are untouched; 429 carries RATE_LIMITED', async () => {
    const api = await s.api.newPlatform();
    const other = await s.api.newPlatform();
    await api.post('/_sandbox/faults', { operationId: 'listCustomers', status: 429 });
    expect((await other.get('/customers')).status).toBe(200);
    expect((await api.get('/config')).status).toBe(200);
    const limited = await api.get('/customers');
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMITED');
    expect(limited.headers.get('x-should-retry')).toBe('true');
    expect(limited.headers.get('retry-after')).toBe('1');
    expect((await api.get('/customers')).status).toBe(200);
  });

  it('a latency rule delays by the asked time on the sandbox’s own measure (Server-Timing)', async () => {
    const api = await s.api.newPlatform();
    const plain = await api.get('/config');
    const measured = (res: { headers: Headers }) => Number(/dur=([\d.]+)/.exec(res.headers.get('server-timing') ?? '')![1]);
    expect(measured(plain)).toBeLessThan(250);
    await api.post('/_sandbox/faults', { path: '/config', method: 'GET', latencyMs: 300 });
    const slow = await api.get('/config');
    expect(slow.status).toBe(200);
    expect(measured(slow)).toBeGreaterThanOrEqual(300);
  });

  it('path patterns match one segment with * and any rest with **', async () => {
    const api = await s.api.newPlatform();
    await api.post('/_sandbox/faults', { path: '/customers/*', status: 500, probability: 1 });
    const customer = (await api.post('/customers', individual(['USD']))).status;
    expect(customer).toBe(201);
    const one = await api.get('/customers/Customer:any');
    expect(one.status).toBe(500);
    expect(one.body.code).toBe('INTERNAL_ERROR');
    expect(one.headers.get('x-should-retry')).toBe('true');
    expect((await api.get('/customers/Customer:any')).status).toBe(500); // probability 1: until cleared
    expect((await api.get('/customers')).status).toBe(200);
    expect((await api.delete('/_sandbox/faults')).body).toEqual({ cleared: 1 });
    expect((await api.get('/customers/Customer:any')).status).toBe(404);
  });

  it('a dropped connection gives the client no answer at all', async () => {
    const api = await s.api.newPlatform();
    await api.post('/_sandbox/faults', { operationId: 'getPlatformConfig', drop: true });
    await expect(api.get('/config')).rejects.toThrow();
    expect((await api.get('/config')).status).toBe(200);
  });

  it('clear by id, reset and bad rules', async () => {
    const api = await s.api.newPlatform();
    const a = (await api.post('/_sandbox/faults', { operationId: 'listCustomers', status: 503, times: 5 })).body;
    await api.post('/_sandbox/faults', { operationId: 'getPlatformConfig', latencyMs: 10 });
    expect((await api.get('/_sandbox/faults')).body.data).toHaveLength(2);
    expect((await api.delete(`/_sandbox/faults/${a.id}`)).status).toBe(200);
    expect((await api.delete(`/_sandbox/faults/${a.id}`)).status).toBe(404);
    expect((await api.get('/_sandbox/faults')).body.data).toHaveLength(1);
    expect((await api.post('/_sandbox/reset')).status).toBe(200);
    expect((await api.get('/_sandbox/faults')).body.data).toEqual([]);

    for (const bad of [
      {},
      { operationId: 'noSuchOperation', status: 503 },
      { operationId: 'listCustomers' },
      { operationId: 'listCustomers', status: 404 },
      { operationId: 'listCustomers', status: 503, latencyMs: 5 },
      { operationId: 'listCustomers', path: '/customers', status: 503 },
      { operationId: 'listCustomers', status: 503, times: 2, probability: 0.5 },
      { operationId: 'listCustomers', status: 503, probability: 0 },
      { operationId: 'listCustomers', status: 503, extra: true },
    ]) {
      const res = await api.post('/_sandbox/faults', bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.code).toBe('INVALID_INPUT');
      expect(res.body.details.errors.length).toBeGreaterThan(0);
    }
  });

  it('a rule naming a code answers it at the status the contract gives it on that operation, with its envelope', async () => {
    const api = await s.api.newPlatform();
    const { usd, eur } = await fundedCustomer(api);
    const before = quoteCount(api);
    const armed = await api.post('/_sandbox/faults', { operationId: 'createQuote', code: 'CERT_CHAIN_INVALID', times: 1 });
    expect(armed.status, JSON.stringify(armed.body)).toBe(201);
    expect(armed.body.effect).toEqual({ type: 'STATUS', status: 400, code: 'CERT_CHAIN_INVALID', retryAfterSeconds: null });
    // The test client checks the body against the contract's Error400 of createQuote.
    const faulted = await api.post('/quotes', quoteBody(usd.id, eur.id));
    expect(faulted.status).toBe(400);
    expect(faulted.body).toMatchObject({ status: 400, code: 'CERT_CHAIN_INVALID', details: { faultId: armed.body.id } });
    expect(faulted.headers.get('x-should-retry')).toBe('false');
    expect(faulted.headers.get('retry-after')).toBeNull();
    expect(faulted.headers.get('service-sandbox-fault')).toBe(armed.body.id);
    expect(quoteCount(api)).toBe(before);
    expect((await api.post('/quotes', quoteBody(usd.id, eur.id))).status).toBe(201);

    // A 409 code, a 500 code and a 4xx code API.md calls retryable.
    await api.post('/_sandbox/faults', { operationId: 'updateCustomerById', code: 'EMAIL_OTP_EMAIL_ALREADY_EXISTS' });
    const customer = (await api.post('/customers', individual(['USD']))).body;
    const conflict = await api.patch(`/customers/${customer.id}`, { email: 'taken@example.com' });
    expect([conflict.status, conflict.body.code]).toEqual([409, 'EMAIL_OTP_EMAIL_ALREADY_EXISTS']);
    await api.post('/_sandbox/faults', { operationId: 'getPlatformConfig', code: 'SERVICE_SWITCH_ERROR' });
    const switchError = await api.get('/config');
    expect([switchError.status, switchError.body.code, switchError.headers.get('x-should-retry'), switchError.headers.get('retry-after')]).toEqual([500, 'SERVICE_SWITCH_ERROR', 'true', '1']);
    await api.post('/_sandbox/faults', { operationId: 'createQuote', code: 'QUOTE_REQUEST_FAILED', retryAfterSeconds: 2 });
    const retryable = await api.post('/quotes', quoteBody(usd.id, eur.id));
    expect([retryable.status, retryable.body.code, retryable.headers.get('x-should-retry'), retryable.headers.get('retry-after')]).toEqual([400, 'QUOTE_REQUEST_FAILED', 'true', '2']);
  });

  it('a code the operation does not answer, or a code without an operation, is refused naming what would do', async () => {
    const api = await s.api.newPlatform();
    const onConfig = await api.post('/_sandbox/faults', { operationId: 'getPlatformConfig', code: 'CERT_CHAIN_INVALID' });
    expect(onConfig.status).toBe(400);
    expect(onConfig.body.message).toContain('the contract gives it as a 400, a status getPlatformConfig does not declare');
    expect(onConfig.body.details.errors[0]).toMatchObject({ field: 'code', constraint: { enum: ['UNAUTHORIZED', 'INVALID_SIGNATURE', 'WALLET_SIGNATURE_MISSING', 'WALLET_SIGNATURE_MALFORMED', 'WALLET_SIGNATURE_BODY_MISMATCH', 'WALLET_SIGNATURE_INVALID', 'REQUEST_ID_MISSING', 'SERVICE_SWITCH_ERROR', 'INTERNAL_ERROR'] } });
    for (const bad of [
      { operationId: 'createQuote', code: 'NO_SUCH_CODE' },
      { operationId: 'createQuote', code: 'cert_chain_invalid' },
      { path: '/quotes', code: 'CERT_CHAIN_INVALID' },
      { operationId: 'createQuote', code: 'CERT_CHAIN_INVALID', status: 503 },
      { operationId: 'createQuote', code: 'CERT_CHAIN_INVALID', retryAfterSeconds: 5 },
    ]) {
      const res = await api.post('/_sandbox/faults', bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.code).toBe('INVALID_INPUT');
    }
    expect((await api.get('/_sandbox/faults')).body.data).toEqual([]);
  });

  it('the CLI arms, lists and clears rules', async () => {
    const env = { ...process.env, FORCE_COLOR: '0', SERVICE_SANDBOX_URL: s.sandbox.origin, SERVICE_SANDBOX_CLIENT_ID: s.sandbox.clientId, SERVICE_SANDBOX_CLIENT_SECRET: s.sandbox.clientSecret };
    // Asynchronous: the sandbox answering the CLI runs on this test's event loop.
    const cli = (...args: string[]) =>
      promisify(execFile)(process.execPath, [bin, ...args], { encoding: 'utf8', env }).then(
        ({ stdout, stderr }) => ({ status: 0, stdout, stderr }),
        (error: { code?: number; stdout: string; stderr: string }) => ({ status: error.code ?? 1, stdout: error.stdout, stderr: error.stderr }),
      );
    const add = await cli('faults', 'add', '--operation', 'createQuote', '--status', '503', '--times', '2');
    expect(add.status, add.stderr).toBe(0);
    expect(add.stdout).toMatch(/^armed Fault:\S+ {2}createQuote {2}answers 503 {2}\(next 2 requests; faulted 0\)/);
    const list = await cli('faults', 'list');
    expect(list.stdout).toContain('createQuote  answers 503');
    const code = await cli('faults', 'add', '--operation', 'createQuote', '--code', 'CERT_CHAIN_INVALID');
    expect(code.stdout).toMatch(/^armed Fault:\S+ {2}createQuote {2}answers 400 CERT_CHAIN_INVALID {2}\(next 1 request; faulted 0\)/);
    const wrong = await cli('faults', 'add', '--operation', 'getPlatformConfig', '--code', 'CERT_CHAIN_INVALID');
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toContain('getPlatformConfig has no answer with the code CERT_CHAIN_INVALID');
    const bad = await cli('faults', 'add', '--operation', 'createQuote', '--probability', '2');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('--probability 2');
    const clear = await cli('faults', 'clear');
    expect(clear.stdout).toBe('cleared 2 fault rules\n');
    expect((await cli('faults', 'list')).stdout).toBe('no fault rules armed\n');
  });
});
