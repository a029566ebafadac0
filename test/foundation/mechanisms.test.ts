import { Hono } from 'hono';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createContext, type SandboxContext } from '../../src/store/context.js';
import { paginate, paginationQuery } from '../../src/core/pagination.js';
import { startSandbox } from '../../src/index.js';
import type { Area } from '../../src/resources/area.js';
import { allMigrations, areas } from '../../src/index.js';
import { createApp } from '../../src/index.js';
import { basicAuth } from '../../src/server/auth.js';
import type { AppEnv } from '../../src/server/env.js';
import { idempotent } from '../../src/server/idempotency.js';
import { silentLogger } from '../../src/core/logger.js';
import { queryOf } from '../../src/server/validate.js';
import { platformService } from '../../src/tenancy/index.js';
import { Api } from '../helpers/sandbox.js';

/**
 * The shared mechanisms (idempotency, pagination, the 500 path, the scheduler) have no
 * contract operation of their own yet, so a probe area mounts them on the real app and the
 * tests drive it over HTTP with `app.request()`.
 */
function probeApp() {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const ctx = createContext({ db: ':memory:', logger: silentLogger, migrations: allMigrations, realNow: () => now });
  const platform = platformService(ctx).ensure({ clientId: 'probe', clientSecret: 'probe-secret' });
  let executions = 0;
  const items = Array.from({ length: 45 }, (_, i) => ({ id: `Item:${String(i).padStart(3, '0')}` }));
  const ran: { id: string; at: string }[] = [];
  const probe: Area = {
    name: 'probe',
    migrations: [],
    init: (c) => c.scheduler.register('probe.note', (job) => ran.push({ id: String(job.payload), at: c.clock.iso() })),
    extraRoutes: () => {
      const app = new Hono<AppEnv>();
      app.use('/probe/*', basicAuth);
      app.post('/probe/write', async (c) => {
        const body = (await c.req.json()) as unknown;
        return idempotent(c, 'probeWrite', body, () => {
          executions += 1;
          return { status: 201, body: { execution: executions, echo: body } };
        });
      });
      app.get('/probe/items', (c) => {
        const query = queryOf(c, z.object(paginationQuery));
        return c.json(
          paginate(
            query,
            ({ afterKey, take }) => items.filter((item) => afterKey === undefined || item.id > afterKey).slice(0, take),
            () => items.length,
            (item) => item.id,
            (item) => item,
          ),
        );
      });
      app.get('/probe/boom', () => {
        throw new TypeError('cannot read properties of undefined');
      });
      app.post('/probe/schedule/:seconds/:note', (c) => {
        c.get('ctx').scheduler.schedule(c.get('platform').id, 'probe.note', Number(c.req.param('seconds')) * 1000, c.req.param('note'));
        return c.json({ ok: true });
      });
      return app;
    },
  };
  probe.init!(ctx);
  const app = createApp(ctx, [...areas, probe]);
  const auth = { Authorization: `Basic ${Buffer.from('probe:probe-secret').toString('base64')}` };
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await app.request(path, {
      method,
      headers: { ...auth, ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };
  return { ctx, platform, call, ran, tick: (ms: number) => (now += ms), executions: () => executions };
}

describe('idempotency keys', () => {
  it('replays the first response for the same key and body, 409s for a different body, and forgets after 24 h', async () => {
    const probe = probeApp();
    const first = await probe.call('POST', '/probe/write', { amount: 1 }, { 'Idempotency-Key': 'k-1' });
    expect(first.status).toBe(201);
    const replay = await probe.call('POST', '/probe/write', { amount: 1 }, { 'Idempotency-Key': 'k-1' });
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(probe.executions()).toBe(1);

    const conflict = await probe.call('POST', '/probe/write', { amount: 2 }, { 'Idempotency-Key': 'k-1' });
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe('CONFLICT');

    await probe.call('POST', '/probe/write', { amount: 1 });
    expect(probe.executions()).toBe(2);

    probe.ctx.scheduler.advance(24 * 3600 + 1);
    const later = await probe.call('POST', '/probe/write', { amount: 1 }, { 'Idempotency-Key': 'k-1' });
    expect(later.body.execution).toBe(3);
  });

  it('keeps keys per platform', async () => {
    const probe = probeApp();
    await platformService(probe.ctx).create({ clientId: 'other', clientSecret: 'other-secret' });
    const a = await probe.call('POST', '/probe/write', { x: 1 }, { 'Idempotency-Key': 'shared' });
    const b = await probe.call('POST', '/probe/write', { x: 1 }, {
      'Idempotency-Key': 'shared',
      Authorization: `Basic ${Buffer.from('other:other-secret').toString('base64')}`,
    });
    expect(a.body.execution).toBe(1);
    expect(b.body.execution).toBe(2);
  });

  it('concurrent requests with one key execute once', async () => {
    const probe = probeApp();
    const all = await Promise.all(
      Array.from({ length: 20 }, () => probe.call('POST', '/probe/write', { amount: 5 }, { 'Idempotency-Key': 'same' })),
    );
    expect(new Set(all.map((r) => r.body.execution))).toEqual(new Set([1]));
    expect(probe.executions()).toBe(1);
  });
});

describe('cursor pagination', () => {
  it('walks every item once, in a stable order, with totalCount and hasMore', async () => {
    const probe = probeApp();
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await probe.call('GET', `/probe/items?limit=20${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.totalCount).toBe(45);
      seen.push(...res.body.data.map((item: { id: string }) => item.id));
      cursor = res.body.nextCursor;
      expect(res.body.hasMore).toBe(cursor !== undefined);
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...seen].sort());
    expect(new Set(seen).size).toBe(45);
  });

  it('defaults to 20 and rejects a limit outside 1..100 or a forged cursor', async () => {
    const probe = probeApp();
    expect((await probe.call('GET', '/probe/items')).body.data).toHaveLength(20);
    for (const limit of ['0', '101', 'abc']) {
      const res = await probe.call('GET', `/probe/items?limit=${limit}`);
      expect(res.status).toBe(400);
      expect(res.body.details.errors[0].field).toBe('limit');
    }
    const forged = await probe.call('GET', '/probe/items?cursor=not-a-cursor');
    expect(forged.status).toBe(400);
    expect(forged.body.details.errors[0].field).toBe('cursor');
  });
});

describe('unexpected errors', () => {
  it('answer 500 INTERNAL_ERROR carrying the request id, and the server keeps serving', async () => {
    const probe = probeApp();
    const res = await probe.call('GET', '/probe/boom');
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ status: 500, code: 'INTERNAL_ERROR', details: { requestId: res.headers.get('x-request-id') } });
    expect(JSON.stringify(res.body)).not.toContain('cannot read properties');
    expect((await probe.call('GET', '/2025-10-13/config')).status).toBe(200);
  });
});

describe('clock and scheduler', () => {
  it('runs jobs in due order with the clock at each due time when advanced', async () => {
    const probe = probeApp();
    const start = probe.ctx.clock.now();
    await probe.call('POST', '/probe/schedule/360/six-minutes');
    await probe.call('POST', '/probe/schedule/30/thirty-seconds');
    probe.ctx.scheduler.advance(29);
    expect(probe.ran).toEqual([]);
    probe.ctx.scheduler.advance(600);
    expect(probe.ran.map((r) => r.id)).toEqual(['thirty-seconds', 'six-minutes']);
    expect(probe.ran[0]!.at).toBe(new Date(start + 30_000).toISOString());
    expect(probe.ran[1]!.at).toBe(new Date(start + 360_000).toISOString());
    expect(probe.ctx.clock.now()).toBe(start + 629_000);
  });

  it('POST /_sandbox/clock/reset: back to real time; pending jobs keep their due times; ids keep sorting in creation order', async () => {
    const probe = probeApp();
    const real = probe.ctx.clock.now();
    expect(probe.ctx.clock.clientTimes()).toEqual([real]);
    await probe.call('POST', '/_sandbox/clock/advance', { seconds: 86_400 });
    expect(probe.ctx.clock.clientTimes()).toEqual([real + 86_400_000, real]);
    await probe.call('POST', '/probe/schedule/30/after-a-day');
    const before = probe.ctx.ids.next('Item');
    const reset = await probe.call('POST', '/_sandbox/clock/reset');
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ now: new Date(real).toISOString(), offsetSeconds: 0, previous: new Date(real + 86_400_000).toISOString(), pendingJobs: 1 });
    expect((await probe.call('GET', '/_sandbox/clock')).body).toMatchObject({ now: new Date(real).toISOString(), offsetSeconds: 0 });
    expect(probe.ctx.clock.clientTimes()).toEqual([real]);
    const jobs = await probe.call('GET', '/_sandbox/jobs');
    expect(jobs.body.data).toEqual([expect.objectContaining({ dueAt: new Date(real + 86_430_000).toISOString(), dueInSeconds: 86_430 })]);
    // An id made after the reset still sorts after one made on the advanced clock.
    expect(probe.ctx.ids.next('Item') > before).toBe(true);
    // A reset on real time changes nothing.
    expect((await probe.call('POST', '/_sandbox/clock/reset')).body).toMatchObject({ offsetSeconds: 0, previous: new Date(real).toISOString() });
    // The job runs when the clock reaches it again, at its own due time.
    probe.ctx.scheduler.advance(86_429);
    expect(probe.ran).toEqual([]);
    probe.ctx.scheduler.advance(1);
    expect(probe.ran).toEqual([{ id: 'after-a-day', at: new Date(real + 86_430_000).toISOString() }]);
  });

  it('after a clock reset and a restart, new ids still sort after the ones made on the advanced clock', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'service-sandbox-ids-')), 'sandbox.db');
    const realNow = () => Date.parse('2026-01-01T00:00:00Z');
    const first = createContext({ db, logger: silentLogger, migrations: allMigrations, realNow });
    first.scheduler.advance(3600);
    const ahead = first.ids.next('Item');
    first.scheduler.resetClock();
    await first.close();
    const second = createContext({ db, logger: silentLogger, migrations: allMigrations, realNow });
    expect(second.clock.offset).toBe(0);
    expect(second.clock.now()).toBe(realNow());
    expect(second.ids.next('Item') > ahead).toBe(true);
    await second.close();
  });

  it('reads due jobs in batches, yet a job that removes or schedules another changes what runs next', () => {
    const ctx = createContext({ db: ':memory:', logger: silentLogger, migrations: [...allMigrations], realNow: () => Date.parse('2026-01-01T00:00:00Z') });
    const start = ctx.clock.now();
    const ran: string[] = [];
    const ids = new Map<string, string>();
    ctx.scheduler.register('probe.batch', (job) => {
      const { name } = job.payload as { name: string };
      ran.push(`${name}@${(ctx.clock.now() - start) / 1000}`);
      if (name === 'a') {
        ctx.jobs.remove(ids.get('b')!); // due in the same batch: never runs
        ctx.scheduler.schedule(job.platformId, 'probe.batch', 5_000, { name: 'd' }); // due before c: runs before it
      }
    });
    const at = (name: string, seconds: number) => ids.set(name, ctx.tx(() => ctx.scheduler.schedule('p', 'probe.batch', seconds * 1000, { name })).id);
    at('c', 30);
    at('b', 20);
    at('a', 10);
    // More due at one time than one batch reads: every one runs, in order of id.
    for (let i = 0; i < 70; i += 1) at(`many-${String(i).padStart(2, '0')}`, 40);
    ctx.scheduler.advance(60);
    expect(ran.slice(0, 3)).toEqual(['a@10', 'd@15', 'c@30']);
    expect(ran.slice(3)).toEqual(Array.from({ length: 70 }, (_, i) => `many-${String(i).padStart(2, '0')}@40`));
    expect(ctx.jobs.count()).toBe(0);
  });

  it('follows real time: a job runs when real time passes its due time', async () => {
    const probe = probeApp();
    probe.ctx.scheduler.start();
    await probe.call('POST', '/probe/schedule/0/now');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(probe.ran.map((r) => r.id)).toEqual(['now']);
    probe.ctx.scheduler.stop();
  });
});

describe('storage', () => {
  const dir = mkdtempSync(join(tmpdir(), 'service-sandbox-'));
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of closers) await close();
  });

  it('keeps configuration, the clock and pending jobs across a restart with the same file', async () => {
    const db = join(dir, 'sandbox.db');
    const first = await startSandbox({ db });
    const api = new Api(first);
    await api.patch('/config', { umaDomain: 'persisted.example.com' });
    const advanced = await api.advance(3600);
    first.context.jobs.insert({ id: 'Job:persisted', platformId: 'Platform:x', kind: 'unknown.kind', dueAt: Date.parse(advanced) + 10 * 3600_000, payload: { a: 1 } });
    await first.close();

    const second = await startSandbox({ db });
    closers.push(second.close);
    const again = new Api(second);
    expect((await again.get('/config')).body.umaDomain).toBe('persisted.example.com');
    const clock = await again.get('/_sandbox/clock');
    expect(Date.parse(clock.body.now)).toBeGreaterThanOrEqual(Date.parse(advanced));
    expect(clock.body.pendingJobs).toBe(1);
  });

  it('refuses a database path it cannot write with a clear error', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a folder');
    await expect(startSandbox({ db: join(file, 'sandbox.db') })).rejects.toThrow(/cannot open database/);
  });
});

describe('reset', () => {
  it("wipes the calling platform's data and puts its configuration back", async () => {
    const sandbox = await startSandbox();
    try {
      const api = new Api(sandbox);
      await api.patch('/config', { umaDomain: 'changed.example.com' });
      const res = await api.post('/_sandbox/reset');
      expect(res.status).toBe(200);
      expect((await api.get('/config')).body.umaDomain).not.toBe('changed.example.com');
      await api.patch('/config', { umaDomain: 'changed-again.example.com' });
      await sandbox.reset();
      expect((await api.get('/config')).body.umaDomain).not.toBe('changed-again.example.com');
    } finally {
      await sandbox.close();
    }
  });
});

export type { SandboxContext };
