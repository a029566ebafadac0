import { afterEach, describe, expect, it } from 'vitest';
import { SandboxHttpError, SandboxUnreachableError, connectSandbox } from '../../src/index.js';
import { api, exitOf, startCli } from '../helpers/cli.js';

const saved = { ...process.env };
afterEach(() => {
  for (const name of ['SERVICE_SANDBOX_URL', 'SERVICE_SANDBOX_CLIENT_ID', 'SERVICE_SANDBOX_CLIENT_SECRET']) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

const person = { beneficiaryType: 'INDIVIDUAL', fullName: 'Maria Garcia', countryOfResidence: 'MX', address: { line1: 'Av. Reforma 1', postalCode: '06600', country: 'MX' } };

describe('connectSandbox: the helpers over HTTP, for a sandbox in another process', () => {
  it('from the environment exec sets: fund, a payout moved on by advanceClock, decideKyc, waitForWebhook before and after the event', async () => {
    const { origin } = await startCli(['--port', '0', '--memory', '--quiet', '--client-id', 'ci-platform', '--client-secret', 'ci-platform-secret']);
    process.env.SERVICE_SANDBOX_URL = origin;
    process.env.SERVICE_SANDBOX_CLIENT_ID = 'ci-platform';
    process.env.SERVICE_SANDBOX_CLIENT_SECRET = 'ci-platform-secret';
    const sandbox = connectSandbox();
    expect(sandbox).toMatchObject({ origin, baseUrl: `${origin}/2025-10-13`, clientId: 'ci-platform', clientSecret: 'ci-platform-secret' });
    const auth = `Basic ${Buffer.from('ci-platform:ci-platform-secret').toString('base64')}`;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${sandbox.baseUrl}${path}`, { method, headers: { Authorization: auth, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      return (await res.json()) as any;
    };

    const payer = await call('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Jane Smith', platformCustomerId: 'payer', currencies: ['USD'] });
    const account = await sandbox.fund('payer', '100.00', 'USD');
    expect(account.balance).toMatchObject({ amount: 10000, currency: { code: 'USD' } });
    // recorded before the wait: found
    const funded = await sandbox.waitForWebhook('INCOMING_PAYMENT.COMPLETED');
    expect(funded.data).toMatchObject({ type: 'INCOMING' });

    // a payout completes on the sandbox clock: wait first, then move the clock
    const clabe = await call('POST', '/customers/external-accounts', { customerId: payer.id, currency: 'MXN', accountInfo: { accountType: 'MXN_ACCOUNT', clabeNumber: '002180000112345321', beneficiary: person } });
    const quote = await call('POST', '/quotes', { source: { sourceType: 'ACCOUNT', accountId: account.id }, destination: { destinationType: 'ACCOUNT', accountId: clabe.id }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 2500, immediatelyExecute: true });
    expect(quote.status).toBe('PROCESSING');
    const completed = sandbox.waitForWebhook('OUTGOING_PAYMENT.COMPLETED', (e) => e.data.id === quote.transactionId);
    const now = await sandbox.advanceClock(5);
    expect(Date.parse(now)).toBeGreaterThan(Date.now() + 4000);
    expect((await completed).data).toMatchObject({ id: quote.transactionId, status: 'COMPLETED' });
    const back = await sandbox.resetClock();
    expect(Math.abs(Date.parse(back) - Date.now())).toBeLessThan(2000);

    // KYC: an individual under review (001), decided once; a second decision is a 409 naming the status
    const review = await call('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Ada Lovelace001', platformCustomerId: 'ada' });
    const approved = await sandbox.decideKyc('ada', 'approve');
    expect(approved.customer).toMatchObject({ id: review.id, kycStatus: 'APPROVED' });
    const event = await sandbox.waitForWebhook('CUSTOMER.KYC_APPROVED', (e) => e.data.id === review.id);
    expect(event).toMatchObject({ type: 'CUSTOMER.KYC_APPROVED', data: { id: review.id, kycStatus: 'APPROVED' } });
    const refused = (await sandbox.decideKyc(review.id, 'reject').catch((e: unknown) => e)) as SandboxHttpError;
    expect(refused).toBeInstanceOf(SandboxHttpError);
    expect(refused.status).toBe(409);
    expect(refused.message).toContain('is already APPROVED: a KYC decision is final');

    // handed out once; trigger; waits in parallel each get their own event
    await expect(sandbox.waitForWebhook('CUSTOMER.KYC_APPROVED', (e) => e.data.id === review.id, { timeoutMs: 100 })).rejects.toThrow(/no CUSTOMER.KYC_APPROVED event matching the predicate within 100 ms/);
    const [a, b] = [sandbox.waitForWebhook('TEST'), sandbox.waitForWebhook('TEST')];
    const t1 = await sandbox.trigger('TEST');
    const t2 = await sandbox.trigger('TEST');
    expect([(await a).id, (await b).id].sort()).toEqual([t1.id, t2.id].sort());

    // reset: the platform's events are gone, later ones are found
    await sandbox.reset();
    expect((await call('GET', '/customers')).data).toEqual([]);
    const after = await sandbox.trigger('TEST');
    expect((await sandbox.waitForWebhook('TEST')).id).toBe(after.id);

    const other = await sandbox.createPlatform({ regulated: false });
    expect(other).toMatchObject({ regulated: false, clientId: expect.stringMatching(/^platform-/), clientSecret: expect.stringMatching(/^secret-/) });
    const asOther = connectSandbox(origin, other);
    await expect(asOther.waitForWebhook('TEST', undefined, { timeoutMs: 100 })).rejects.toThrow('no TEST event within 100 ms; no other event arrived either');
  });

  it('a wait notices a reset or a restart done by someone else, and a sandbox that stops; nothing answering says how to start one', async () => {
    const first = await startCli();
    const sandbox = connectSandbox(`${first.origin}/2025-10-13`);
    expect(sandbox.origin).toBe(first.origin);
    await sandbox.trigger('TEST');
    expect((await sandbox.waitForWebhook('TEST')).type).toBe('TEST');
    // another client resets the platform: the wait reads the new history from its start
    expect((await api(first.origin, 'POST', '/_sandbox/reset')).status).toBe(200);
    const fresh = await sandbox.trigger('TEST');
    expect((await sandbox.waitForWebhook('TEST')).id).toBe(fresh.id);

    const pending = sandbox.waitForWebhook('CUSTOMER.KYC_APPROVED', undefined, { timeoutMs: 10_000 });
    const outcome = pending.then(() => new Error('resolved'), (e: unknown) => e as Error);
    first.child.kill('SIGTERM');
    await exitOf(first.child);
    expect((await outcome).message).toMatch(/ended the event stream \(did it stop\?\) while a waitForWebhook was pending|no sandbox is answering/);

    const nothing = connectSandbox(first.origin);
    const error = (await nothing.fund('x', 1, 'USD').catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(SandboxUnreachableError);
    expect(error.message).toContain(`no sandbox is answering at ${first.origin}; start one with \`npx service-sandbox\`, or run the tests under \`npx service-sandbox exec -- <test command>\``);
    await expect(nothing.waitForWebhook('TEST')).rejects.toThrow(/no sandbox is answering/);
    expect(() => connectSandbox('not a url')).toThrow('connectSandbox: "not a url" is not the URL of a sandbox');
    delete process.env.SERVICE_SANDBOX_URL;
    expect(connectSandbox().origin).toBe('http://127.0.0.1:8080');
  });
});
