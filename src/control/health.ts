import { Hono } from 'hono';
import type { SandboxContext } from '../store/context.js';
import { perContext } from '../core/per-context.js';
import { packageVersion } from '../core/version.js';
import { CONTRACT_VERSION } from '../generated/operations.js';
import { basicAuth } from '../server/auth.js';
import type { AppEnv } from '../server/env.js';
import { platformService } from '../tenancy/index.js';

/** When the sandbox started (real time), for its uptime: set when its control plane is first built. */
const startedAt = perContext((_ctx: SandboxContext) => ({ ms: Date.now(), at: performance.now() }));

/**
 * `GET /_sandbox/health`: `status: "ok"` as before, and what a CI job or a person checks about a
 * running sandbox: the package and contract versions, uptime, the database (in memory or not,
 * its size), how many platforms and pending jobs, whether values are seeded and the clock still.
 * Without credentials it shows no more than counts: the database's path (a folder of the machine)
 * only to a request with a platform's credentials; wrong credentials are a 401, as everywhere.
 */
export function healthRoutes(ctx: SandboxContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const started = startedAt(ctx);
  const answer = (withPath: boolean) => {
    const location = ctx.db.name;
    const inMemory = location === ':memory:' || location === '';
    const pageCount = Number(ctx.db.pragma('page_count', { simple: true }));
    const pageSize = Number(ctx.db.pragma('page_size', { simple: true }));
    return {
      status: 'ok',
      version: packageVersion(),
      contractVersion: CONTRACT_VERSION,
      startedAt: new Date(started.ms).toISOString(),
      uptimeSeconds: Math.round(performance.now() - started.at) / 1000,
      database: { inMemory, sizeBytes: pageCount * pageSize, ...(withPath && !inMemory ? { path: location } : {}) },
      platforms: platformService(ctx).list().length,
      pendingJobs: ctx.jobs.count(),
      seeded: ctx.random.seeded,
      clock: { now: ctx.clock.iso(), ...(ctx.clock.start === undefined ? {} : { stillSince: new Date(ctx.clock.start).toISOString() }) },
    };
  };
  app.get('/', async (c) => {
    if (c.req.header('Authorization') === undefined) return c.json(answer(false));
    // With credentials: checked as on every control-plane call, then the path too.
    await basicAuth(c, async () => {});
    return c.json(answer(true));
  });
  return app;
}
