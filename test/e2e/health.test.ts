import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/index.js';
import { CONTRACT_VERSION } from '../../src/generated/operations.js';

/** `GET /_sandbox/health`: a health answer worth reading, that shows no path without credentials. */

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
const basic = (id: string, secret: string) => ({ Authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` });

describe('GET /_sandbox/health', () => {
  it('answers status, versions, uptime, the database, platforms and pending jobs without credentials, and no path', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'sbx-health-')), 'sandbox.db');
    const sandbox = await startSandbox({ db });
    try {
      const res = await fetch(`${sandbox.origin}/_sandbox/health`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, any>;
      expect(body).toMatchObject({
        status: 'ok',
        version: pkg.version,
        contractVersion: CONTRACT_VERSION,
        database: { inMemory: false },
        platforms: 1,
        pendingJobs: 0,
        seeded: false,
      });
      expect(body.database.sizeBytes).toBeGreaterThan(100_000);
      expect(body.database.path).toBeUndefined();
      expect(JSON.stringify(body)).not.toContain(db);
      expect(body.uptimeSeconds).toBeGreaterThanOrEqual(0);
      expect(Date.parse(body.startedAt)).toBeLessThanOrEqual(Date.now());
      expect(body.clock.stillSince).toBeUndefined();

      // Counts follow the sandbox; uptime grows.
      const created = await fetch(`${sandbox.origin}/_sandbox/platforms`, {
        method: 'POST',
        headers: { ...basic(sandbox.clientId, sandbox.clientSecret), 'Content-Type': 'application/json' },
        body: JSON.stringify({ clientId: 'other', clientSecret: 'other-secret-1' }),
      });
      expect(created.status).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const later = (await (await fetch(`${sandbox.origin}/_sandbox/health`)).json()) as Record<string, any>;
      expect(later.platforms).toBe(2);
      expect(later.uptimeSeconds).toBeGreaterThan(body.uptimeSeconds);

      // With a platform's credentials, the database's path too; wrong ones are a 401.
      const withCredentials = (await (await fetch(`${sandbox.origin}/_sandbox/health`, { headers: basic('other', 'other-secret-1') })).json()) as Record<string, any>;
      expect(withCredentials.database.path).toBe(db);
      const wrong = await fetch(`${sandbox.origin}/_sandbox/health`, { headers: basic('other', 'wrong-secret') });
      expect(wrong.status).toBe(401);
      expect(((await wrong.json()) as { code: string }).code).toBe('UNAUTHORIZED');
    } finally {
      await sandbox.close();
    }
  });

  it('an in-memory, seeded sandbox on a still clock says so; pending jobs count what the clock counts', async () => {
    const sandbox = await startSandbox({ seed: 1, clockStart: '2030-01-01T00:00:00Z' });
    try {
      const headers = basic(sandbox.clientId, sandbox.clientSecret);
      const post = async (path: string, body: unknown) => {
        const res = await fetch(`${sandbox.baseUrl}${path}`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
        expect(res.status, path).toBeLessThan(300);
        return (await res.json()) as Record<string, any>;
      };
      // An executed payout has steps still to come: pending jobs.
      const customer = await post('/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'c1', fullName: 'Jane Smith', birthDate: '1990-01-15', nationality: 'US', currencies: ['USD'] });
      const accounts = (await (await fetch(`${sandbox.baseUrl}/customers/internal-accounts?customerId=${encodeURIComponent(customer.id)}`, { headers })).json()) as { data: { id: string }[] };
      await post(`/sandbox/internal-accounts/${accounts.data[0]!.id}/fund`, { amount: 100_00 });
      const external = await post('/customers/external-accounts', {
        customerId: customer.id,
        currency: 'USD',
        accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: '246824682468', routingNumber: '021000021', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Jane Smith', address: { line1: '1 Main Street', postalCode: '94105', country: 'US' } } },
      });
      await post('/quotes', { source: { sourceType: 'ACCOUNT', accountId: accounts.data[0]!.id }, destination: { destinationType: 'ACCOUNT', accountId: external.id }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 10_00, immediatelyExecute: true });
      const body = (await (await fetch(`${sandbox.origin}/_sandbox/health`, { headers })).json()) as Record<string, any>;
      const clock = (await (await fetch(`${sandbox.origin}/_sandbox/clock`, { headers })).json()) as { pendingJobs: number };
      expect(body).toMatchObject({ database: { inMemory: true }, seeded: true, clock: { now: '2030-01-01T00:00:00.000Z', stillSince: '2030-01-01T00:00:00.000Z' } });
      expect(body.database.path).toBeUndefined();
      expect(body.pendingJobs).toBeGreaterThan(0);
      expect(body.pendingJobs).toBe(clock.pendingJobs);
    } finally {
      await sandbox.close();
    }
  });
});
