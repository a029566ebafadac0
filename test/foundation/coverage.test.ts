import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectSandbox, runCoverage, startSandbox } from '../../src/index.js';
import { operations } from '../../src/generated/operations.js';
import { ruleFamilies, sandboxRules } from '../../src/rules/catalog.js';
import { webhookTypeNames } from '../../src/events/index.js';
import { Api, individual, useSandbox } from '../helpers/sandbox.js';
import { Receiver } from '../events/receiver.js';
import { deliveryReaches, eventually, individualCustomer, platformIdOf } from '../events/helpers.js';

const s = useSandbox();
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

type Report = {
  scope: string;
  recording: boolean;
  clientId?: string;
  summary: Record<string, { covered: number; total: number }>;
  operations: { operationId: string; calls: number; statuses: Record<string, number>; declared: number[] }[];
  rules: { id: string; area: string; title: string; hits: number }[];
  webhooks: { type: string; delivered: number; acknowledged: number; retried: number; failed: number }[];
};

const coverage = async (api: Api): Promise<Report> => {
  const res = await api.get<Report>('/_sandbox/coverage');
  expect(res.status).toBe(200);
  return res.body;
};
const exercised = (report: Report) => ({
  operations: Object.fromEntries(report.operations.filter((op) => op.calls > 0).map((op) => [op.operationId, op.statuses])),
  rules: Object.fromEntries(report.rules.filter((rule) => rule.hits > 0).map((rule) => [rule.id, rule.hits])),
});

describe('the rule list', () => {
  it('has one id per rule, each under an area with a title, and every family in the catalog', () => {
    expect(sandboxRules.length).toBe(new Set(sandboxRules.map((rule) => rule.id)).size);
    expect(sandboxRules.length).toBeGreaterThan(90);
    for (const rule of sandboxRules) {
      expect(rule.id).toMatch(/^[a-z-]+(\.[a-z0-9_.$-]+)+$/);
      expect(rule.title.length).toBeGreaterThan(10);
    }
    for (const family of ruleFamilies) for (const rule of family.rules) expect(rule.id.startsWith(`${family.prefix}.`)).toBe(true);
  });
});

describe('GET /_sandbox/coverage', () => {
  it("lists the whole contract, rule list and webhook types, with exactly what the platform's requests exercised", async () => {
    const api = await s.api.newPlatform();
    const empty = await coverage(api);
    expect(empty.scope).toBe('platform');
    expect(empty.clientId).toBe(api.clientId);
    expect(empty.operations.map((op) => op.operationId)).toEqual(operations.map((op) => op.operationId));
    expect(empty.rules.map((rule) => rule.id)).toEqual(sandboxRules.map((rule) => rule.id));
    expect(empty.webhooks.map((w) => w.type)).toEqual(webhookTypeNames);
    expect(exercised(empty)).toEqual({ operations: {}, rules: {} });
    expect(empty.summary).toEqual({
      operations: { covered: 0, total: 153 },
      statuses: { covered: 0, total: operations.reduce((sum, op) => sum + op.statuses.length, 0) },
      rules: { covered: 0, total: sandboxRules.length },
      webhooks: { covered: 0, total: webhookTypeNames.length },
    });

    const customer = await api.post('/customers', individual(['USD'], { fullName: 'Ada Lovelace002' }));
    expect(customer.status).toBe(201);
    expect((await api.post('/customers', individual(['USD'], { fullName: 'Grace Hopper' }))).status).toBe(201);
    expect((await api.post('/customers', { customerType: 'NOPE' })).status).toBe(400);
    expect((await api.get('/config')).status).toBe(200);
    expect((await api.get('/customers/Customer:00000000-0000-7000-8000-000000000000')).status).toBe(404);
    // Not the platform's: no credentials, another platform, the control plane.
    expect((await api.get('/config', { auth: false })).status).toBe(401);
    await (await s.api.newPlatform()).get('/config');

    const report = await coverage(api);
    expect(exercised(report)).toEqual({
      operations: { createCustomer: { 201: 2, 400: 1 }, getPlatformConfig: { 200: 1 }, getCustomerById: { 404: 1 } },
      rules: { 'customers.individual-name.002': 1, 'customers.individual-name.other': 1 },
    });
    expect(report.summary.operations.covered).toBe(3);
    expect(report.summary.statuses.covered).toBe(4);
    expect(report.summary.rules.covered).toBe(2);

    // A reset wipes the platform's coverage with its data.
    expect((await api.post('/_sandbox/reset')).status).toBe(200);
    expect(exercised(await coverage(api))).toEqual({ operations: {}, rules: {} });
  });

  it('counts each webhook type delivered: acknowledged, retried after a non-2xx answer, or given up', async () => {
    // The first CUSTOMER.KYC_APPROVED is answered 500, everything else 200 (delivery keeps each platform's order).
    let refused = false;
    const receiver = await Receiver.start((_n, received) => {
      if (received.body.type !== 'CUSTOMER.KYC_APPROVED' || refused) return { status: 200 };
      refused = true;
      return { status: 500 };
    });
    receivers.push(receiver);
    const api = await s.api.newPlatform();
    expect((await api.patch('/config', { webhookEndpoint: receiver.url })).status).toBe(200);
    // The TEST event configuring the endpoint sends is acknowledged (the receiver swallows it with a 200).
    await eventually(async () => expect((await coverage(api)).webhooks.find((w) => w.type === 'TEST')).toMatchObject({ delivered: 1, acknowledged: 1 }));
    const ctx = s.sandbox.context;
    const customerId = 'Customer:01a00000-0000-7000-8000-00000000c0e1';
    const event = ctx.tx(() => ctx.outbox.append(platformIdOf(s.sandbox, api), 'CUSTOMER.KYC_APPROVED', customerId, individualCustomer(customerId)));
    await deliveryReaches(api, event.id, 'RETRYING', 1);
    await api.advance(30);
    await deliveryReaches(api, event.id, 'DELIVERED', 2);
    // The contract's test webhook is sent once, not retried: a failure gives up at once.
    receiver.answer = () => ({ status: 503 });
    expect((await api.post('/sandbox/webhooks/test')).status).toBe(400);
    const report = await coverage(api);
    const of = (type: string) => report.webhooks.find((w) => w.type === type);
    expect(of('CUSTOMER.KYC_APPROVED')).toEqual({ type: 'CUSTOMER.KYC_APPROVED', delivered: 2, acknowledged: 1, retried: 1, failed: 0 });
    expect(of('TEST')).toEqual({ type: 'TEST', delivered: 2, acknowledged: 1, retried: 0, failed: 1 });
    expect(of('CARD.STATE_CHANGE')).toEqual({ type: 'CARD.STATE_CHANGE', delivered: 0, acknowledged: 0, retried: 0, failed: 0 });
    expect(report.summary.webhooks.covered).toBe(report.webhooks.filter((w) => w.acknowledged > 0).length);
  });

  it('the helpers read it too (sandbox.coverage(), as connectSandbox() gives)', async () => {
    const api = await s.api.newPlatform();
    const helpers = connectSandbox(s.sandbox.origin, { clientId: api.clientId, clientSecret: api.clientSecret });
    expect((await api.get('/config')).status).toBe(200);
    const report = await helpers.coverage();
    expect(report).toMatchObject({ scope: 'platform', clientId: api.clientId, recording: true });
    expect(exercised(report as unknown as Report)).toEqual({ operations: { getPlatformConfig: { 200: 1 } }, rules: {} });
    expect((await s.sandbox.coverage()).clientId).toBe(s.sandbox.clientId);
  });

  it('needs the platform credentials', async () => {
    const res = await s.api.get('/_sandbox/coverage', { auth: false });
    expect(res.status).toBe(401);
  });
});

describe('recording off', () => {
  it('startSandbox({ coverage: false }) counts nothing and says so', async () => {
    const off = await startSandbox({ coverage: false });
    const api = new Api(off);
    expect((await api.post('/customers', individual(['USD'], { fullName: 'Ada Lovelace001' }))).status).toBe(201);
    const report = await coverage(api);
    expect(report).toMatchObject({ recording: false });
    expect(exercised(report)).toEqual({ operations: {}, rules: {} });
    await off.close();
    expect((await coverage(s.api)).recording).toBe(true);
  });
});

describe('where coverage is kept', () => {
  /** A file database whose platform created one customer, its counts written (closing writes them, as the timer does a second after a request). */
  const fileWithOneCreate = async (): Promise<string> => {
    const db = join(mkdtempSync(join(tmpdir(), 'sbx-coverage-')), 'sandbox.db');
    const first = await startSandbox({ db });
    expect((await new Api(first).post('/customers', individual(['USD'], { fullName: 'Ada Lovelace001' }))).status).toBe(201);
    await first.close();
    return db;
  };

  it('a file database keeps it across a restart; the run totals keep a reset platform’s', async () => {
    const db = await fileWithOneCreate();

    const second = await startSandbox({ db });
    const again = new Api(second);
    expect(exercised(await coverage(again))).toEqual({ operations: { createCustomer: { 201: 1 } }, rules: { 'customers.individual-name.001': 1 } });
    expect((await again.get('/config')).status).toBe(200);
    const other = await again.newPlatform();
    expect((await other.post('/customers', individual(['USD'], { fullName: 'Bo Bunny003' }))).status).toBe(201);
    expect((await again.post('/_sandbox/reset')).status).toBe(200);
    // exec's report: every platform, reset ones included; the coverage request itself counts nothing.
    const run = runCoverage(second);
    expect(run.scope).toBe('run');
    expect(exercised(run as unknown as Report)).toEqual({
      operations: { createCustomer: { 201: 2 }, getPlatformConfig: { 200: 1 } },
      rules: { 'customers.individual-name.001': 1, 'customers.individual-name.003': 1 },
    });
    await second.close();

    // The reset reached the file too.
    const third = await startSandbox({ db });
    expect(exercised(await coverage(new Api(third)))).toEqual({ operations: {}, rules: {} });
    await third.close();
  });

  it('is not part of a snapshot: an import into the same platform, its counts written, starts them afresh as a reset does', async () => {
    const db = await fileWithOneCreate();

    const second = await startSandbox({ db });
    const again = new Api(second);
    expect(exercised(await coverage(again)).operations).toEqual({ createCustomer: { 201: 1 } });
    const snapshot = (await again.get<{ tables: Record<string, { columns: string[]; rows: unknown[][] }> }>('/_sandbox/snapshot')).body;
    expect(Object.keys(snapshot.tables)).not.toContain('coverage_counts');
    expect(snapshot.tables.customers!.rows).toHaveLength(1);
    expect((await again.post('/_sandbox/snapshot', snapshot)).status).toBe(200);
    expect(exercised(await coverage(again))).toEqual({ operations: {}, rules: {} });
    // A snapshot made before carries the counts: they are ignored, not a 400 or a 409.
    expect((await again.get('/config')).status).toBe(200);
    const platformId = (await again.get<{ platformId: string }>('/_sandbox/snapshot')).body.platformId;
    const older = { ...snapshot, tables: { ...snapshot.tables, coverage_counts: { columns: ['platform_id', 'kind', 'key', 'count'], rows: [[platformId, 'operation', 'getPlatformConfig 200', 7]] } } };
    const imported = await again.post<{ tables: Record<string, number> }>('/_sandbox/snapshot', older);
    expect(imported.status).toBe(200);
    expect(imported.body.tables).not.toHaveProperty('coverage_counts');
    expect(exercised(await coverage(again))).toEqual({ operations: {}, rules: {} });
    expect((await again.get('/customers')).body.data).toHaveLength(1);
    await second.close();

    // The file holds only what came after the last import.
    const third = await startSandbox({ db });
    expect(exercised(await coverage(new Api(third)))).toEqual({ operations: { listCustomers: { 200: 1 } }, rules: {} });
    await third.close();
  });
});
