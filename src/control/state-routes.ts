import { Hono } from 'hono';
import type { SandboxContext } from '../store/context.js';
import { ApiError, ErrorCode } from '../core/errors.js';
import type { Area } from '../resources/area.js';
import { parseBasic } from '../server/auth.js';
import { DEFAULT_JSON_LIMITS, parseJsonBody } from '../server/json-guard.js';
import type { AppEnv } from '../server/env.js';
import { FixtureError } from '../core/fixture-text.js';
import { applyFixtures, type Dispatch } from './fixtures.js';
import { checkSnapshot, exportSnapshot, importSnapshot } from './snapshot.js';

/**
 * A snapshot or fixture document: any size its body limit allows, but nested at most 64 levels
 * (the fixture loader walks it recursively) and without a key twice in one object, as every JSON
 * body of the sandbox (json-guard.ts).
 */
async function bodyJson(text: string): Promise<unknown> {
  const value = parseJsonBody(text, { ...DEFAULT_JSON_LIMITS, maxValues: Number.MAX_SAFE_INTEGER });
  if (value === undefined) throw new ApiError(400, ErrorCode.INVALID_INPUT, 'The request body is not valid JSON.');
  return value;
}

/**
 * Control-plane endpoints over a platform's whole state, behind the control plane's Basic auth:
 * `GET /_sandbox/snapshot` (export), `POST /_sandbox/snapshot` (import, replacing the calling
 * platform's state) and `POST /_sandbox/fixtures` (apply a fixture document in one transaction).
 * `dispatch` is the whole app, for the fixture's in-process API calls.
 */
export function stateRoutes(ctx: SandboxContext, areas: readonly Area[], dispatch: () => Promise<Dispatch>): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  // The platform's pending jobs by due time, with cursor pagination (`cursor` is `<dueAtMs>:<jobId>`).
  app.get('/jobs', (c) => {
    const limit = Math.min(Math.max(Number(c.req.query('limit') ?? 20) || 20, 1), 100);
    const cursor = c.req.query('cursor');
    const at = cursor ? cursor.indexOf(':') : -1;
    const after = cursor && at > 0 ? { dueAt: Number(cursor.slice(0, at)), id: cursor.slice(at + 1) } : undefined;
    if (cursor && (!after || !Number.isFinite(after.dueAt))) throw new ApiError(400, ErrorCode.INVALID_INPUT, 'cursor is not one this list gave.');
    const platformId = c.get('platform').id;
    const jobs = ctx.jobs.listPlatform(platformId, after, limit + 1);
    const page = jobs.slice(0, limit);
    const now = ctx.clock.now();
    const last = page.at(-1);
    return c.json({
      data: page.map((job) => ({ id: job.id, kind: job.kind, dueAt: new Date(job.dueAt).toISOString(), dueInSeconds: Math.max(0, (job.dueAt - now) / 1000), payload: job.payload })),
      hasMore: jobs.length > limit,
      ...(jobs.length > limit && last ? { nextCursor: `${last.dueAt}:${last.id}` } : {}),
      totalCount: ctx.jobs.countPlatform(platformId),
    });
  });

  app.get('/snapshot', (c) => c.json(exportSnapshot(ctx, areas, c.get('platform'))));

  app.post('/snapshot', async (c) => {
    const snapshot = checkSnapshot(await bodyJson(await c.req.text()));
    const { platformId, tables } = importSnapshot(ctx, areas, c.get('platform'), snapshot);
    return c.json({ status: 'ok', platformId, now: ctx.clock.iso(), offsetSeconds: ctx.clock.offset / 1000, tables });
  });

  app.post('/fixtures', async (c) => {
    const document = await bodyJson(await c.req.text());
    const credentials = parseBasic(c.req.header('Authorization'))!;
    const file = c.req.query('file') ?? 'the fixture';
    try {
      const summary = await applyFixtures(ctx, await dispatch(), document, { file, ...credentials });
      return c.json({ status: 'ok', ...summary });
    } catch (error) {
      if (!(error instanceof FixtureError)) throw error;
      throw new ApiError(400, ErrorCode.INVALID_INPUT, error.message, { file: error.file, entry: error.entry, ...(error.field ? { field: error.field } : {}), reason: error.reason });
    }
  });

  return app;
}
