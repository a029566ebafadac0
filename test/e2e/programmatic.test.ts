import { createServer, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WAIT_MS, SandboxHttpError, connectSandbox, startSandbox, type RunningSandbox, type SandboxHelpers } from '../../src/index.js';
import { Api } from '../helpers/sandbox.js';

let sandbox: RunningSandbox;
let api: Api;

beforeAll(async () => {
  sandbox = await startSandbox();
  api = new Api(sandbox);
});
afterAll(() => sandbox.close());

describe('helpers on the programmatic API', () => {
  it('startSandbox refuses a webhookUrl that PATCH /config would refuse', async () => {
    await expect(startSandbox({ webhookUrl: 'not a url' })).rejects.toThrow(/webhook-url not a url is not accepted/);
  });

  it('fund: by account id, or by customer id / platformCustomerId and currency; numbers are smallest units, strings major units', async () => {
    const customer = (await api.post('/customers', { customerType: 'INDIVIDUAL', fullName: 'Ada Lovelace', platformCustomerId: 'helpers-ada', currencies: ['USD', 'BTC'] })).body;
    const usd = await sandbox.fund('helpers-ada', '12.50', 'USD');
    expect(usd.balance).toMatchObject({ amount: 1250, currency: { code: 'USD' } });
    const again = await sandbox.fund(usd.id, 50);
    expect(again.balance.amount).toBe(1300);
    const btc = await sandbox.fund(customer.id, '0.00000001', 'BTC');
    expect(btc.balance.amount).toBe(1);
    await expect(sandbox.fund(customer.id, '5')).rejects.toThrow(/has accounts in .*name the currency/);
    await expect(sandbox.fund('helpers-ada', '1.001', 'USD')).rejects.toThrow(/USD has 2/);
    const missing = await sandbox.fund('nobody', 1, 'USD').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(SandboxHttpError);
    expect((missing as SandboxHttpError).status).toBe(404);
  });

  it('createPlatform: its own credentials and data, options passed through', async () => {
    const platform = await sandbox.createPlatform({ regulated: false, paperworkSkipping: true });
    expect(platform).toMatchObject({ regulated: false, settings: { paperworkSkipping: true } });
    const other = new Api(sandbox, platform.clientId, platform.clientSecret);
    expect((await other.get('/customers')).body.data).toEqual([]);
    const named = await sandbox.createPlatform({ clientId: 'helpers-named', clientSecret: 'helpers-secret-1' });
    expect(named).toMatchObject({ clientId: 'helpers-named', clientSecret: 'helpers-secret-1', regulated: true });
  });

  it('decideKyc and waitForWebhook: the delivered event, without sleeping, each event handed out once', async () => {
    const platform = await sandbox.createPlatform({ regulated: false });
    const other = new Api(sandbox, platform.clientId, platform.clientSecret);
    const customer = (await other.post('/customers', { customerType: 'INDIVIDUAL', fullName: 'Jane Doe001', platformCustomerId: 'helpers-jane' })).body;
    // decisions act on the default platform; the other platform's customer is a 404 there
    await expect(sandbox.decideKyc(customer.id, 'approve')).rejects.toThrow(/404/);
    // A name without a magic suffix is APPROVED at once (decided); the 001 suffix awaits review.
    const decided = (await api.post('/customers', { customerType: 'INDIVIDUAL', fullName: 'Grace Hopper', platformCustomerId: 'helpers-grace' })).body;
    const own = (await api.post('/customers', { customerType: 'INDIVIDUAL', fullName: 'Grace Hopper001', platformCustomerId: 'helpers-grace-001' })).body;
    const held = await sandbox.decideKyc('helpers-grace-001', 'hold');
    expect(held.customer.kycStatus).toBe('HOLD');
    const approved = await sandbox.decideKyc(own.id, 'APPROVED');
    expect(approved.customer.kycStatus).toBe('APPROVED');
    expect(approved.verification?.verificationStatus).toBe('APPROVED');
    // recorded before the call: still found (no race with the action)
    const atCreation = await sandbox.waitForWebhook('CUSTOMER.KYC_APPROVED', (e) => e.data.id === decided.id);
    const event = await sandbox.waitForWebhook('CUSTOMER.KYC_APPROVED', (e) => e.data.id === own.id);
    expect(event.id).not.toBe(atCreation.id);
    expect(event).toMatchObject({ type: 'CUSTOMER.KYC_APPROVED', data: { id: own.id, kycStatus: 'APPROVED' } });
    expect(event.id).toMatch(/^Webhook:/);
    // handed out once: the same wait now times out, naming what it saw
    await expect(sandbox.waitForWebhook('CUSTOMER.KYC_APPROVED', (e) => e.data.id === own.id, { timeoutMs: 200 })).rejects.toThrow(
      new RegExp(`^waitForWebhook: no CUSTOMER.KYC_APPROVED event matching the predicate within 200 ms; seen instead: 1 CUSTOMER.KYC_APPROVED \\(Customer:.*\\d+ CUSTOMER.KYC_PENDING \\(`),
    );
    // produced after the call: resolves when it happens
    const rejected = (await api.post('/customers', { customerType: 'INDIVIDUAL', fullName: 'Alan Turing001' })).body;
    const waiting = sandbox.waitForWebhook('CUSTOMER.KYC_REJECTED');
    await sandbox.decideKyc(rejected.id, 'reject');
    expect((await waiting).data.id).toBe(rejected.id);
    // a decision is final, on every customer: 409 naming the current status
    await expect(sandbox.decideKyc(rejected.id, 'approve')).rejects.toThrow(/409 CONFLICT .*is already REJECTED: a KYC decision is final/);
    await expect(sandbox.decideKyc('helpers-grace', 'hold')).rejects.toMatchObject({ status: 409, code: 'CONFLICT', body: { details: { kycStatus: 'APPROVED', decision: 'HOLD' } } });
  });

  it('trigger: from a realistic new resource or a given one; waitForWebhook with any type', async () => {
    const triggered = await sandbox.trigger('TEST');
    expect(triggered).toMatchObject({ type: 'TEST', status: 'NO_ENDPOINT' });
    expect((await sandbox.waitForWebhook('TEST')).id).toBe(triggered.id);
    const customer = (await api.post('/customers', { customerType: 'INDIVIDUAL', fullName: 'Mary Jackson', currencies: ['USD'] })).body;
    const fromResource = await sandbox.trigger('CUSTOMER.KYC_APPROVED', customer.id);
    expect(fromResource.resourceId).toBe(customer.id);
    const any = await sandbox.waitForWebhook('*', (e) => e.id === fromResource.id);
    expect(any.type).toBe('CUSTOMER.KYC_APPROVED');
  });

  describe('waitForWebhook on a platform of its own', () => {
    let helpers: SandboxHelpers;
    beforeAll(async () => {
      const other = await sandbox.createPlatform();
      helpers = connectSandbox(sandbox.origin, other);
      await helpers.trigger('TEST');
    });

    it("the default timeout ends before vitest's own 5 s one, and the message says what it waited for and what came instead", async () => {
      expect(DEFAULT_WAIT_MS).toBe(4000);
      const started = Date.now();
      // No timeoutMs: the helper's message, not the runner's generic timeout (this test has vitest's default 5 s).
      const error = (await helpers.waitForWebhook('CUSTOMER.KYC_REJECTED').catch((e: unknown) => e)) as Error;
      expect(Date.now() - started).toBeGreaterThanOrEqual(3900);
      expect(error.message).toBe('waitForWebhook: no CUSTOMER.KYC_REJECTED event within 4000 ms; seen instead: 1 TEST');
    }, 5000);

    it('a predicate that throws rejects the wait and hands nothing out; an empty platform says nothing came', async () => {
      await expect(helpers.waitForWebhook('*', () => false, { timeoutMs: 50 })).rejects.toThrow('no webhook event matching the predicate within 50 ms; seen instead: 1 TEST');
      await expect(
        helpers.waitForWebhook('TEST', () => {
          throw new Error('predicate failed');
        }),
      ).rejects.toThrow('predicate failed');
      expect((await helpers.waitForWebhook('TEST')).type).toBe('TEST');
      await expect(helpers.waitForWebhook('TEST', undefined, { timeoutMs: 50 })).rejects.toThrow(
        'no TEST event within 50 ms; no other event arrived either (was the action that sends it done? one that waits on a timer needs advanceClock)',
      );
    });
  });

  it('waitForWebhook also works when events are delivered to an endpoint', async () => {
    const received: string[] = [];
    const receiver = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push(body);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const withHook = await startSandbox({ webhookUrl: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks` });
    try {
      const triggered = await withHook.trigger('TEST');
      // Configuring the endpoint sent a TEST event of its own first; wait for the triggered one.
      const event = await withHook.waitForWebhook('TEST', (e) => e.id === triggered.id);
      expect(event.id).toBe(triggered.id);
    } finally {
      await withHook.close();
      receiver.close();
    }
  });
});
