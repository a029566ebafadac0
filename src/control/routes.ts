import { Hono } from 'hono';
import * as z from 'zod';
import { notFound } from '../core/errors.js';
import type { SandboxContext } from '../store/context.js';
import type { Area } from '../resources/area.js';
import { platformService } from '../tenancy/index.js';
import { webhookControlRoutes } from '../resources/webhooks/index.js';
import { operations } from '../generated/operations.js';
import { cardControlRoutes } from '../resources/cards/index.js';
import { enclaveInfo } from '../resources/wallet-auth/index.js';
import { basicAuth } from '../server/auth.js';
import { faultRuleRequest, faultRulesOf } from '../server/faults.js';
import type { AppEnv } from '../server/env.js';
import { jsonBody } from '../server/validate.js';
import { resetPlatformData } from './reset.js';
import { changeRoutes } from './changes.js';
import { requestLogRoutes } from './request-log.js';
import { healthRoutes } from './health.js';
import { stateRoutes } from './state-routes.js';
import { listRoutes, searchRoutes } from './search-routes.js';
import type { Dispatch } from './fixtures.js';
import { seed, seedBody } from './seed.js';
import { stablecoinControlRoutes } from './stablecoin-routes.js';
import { coverageRoutes } from './coverage.js';
import { coverageRecorder } from '../store/coverage.js';

const advanceBody = z.object({
  seconds: z.number().positive().max(10 * 365 * 24 * 3600),
});

const newPlatformBody = z.object({
  // RFC 7617: a user-id cannot hold a colon or control characters; spaces are allowed.
  clientId: z.string().min(1).max(255).regex(/^[^:\x00-\x1f\x7f]+$/, 'no colon or control characters (HTTP Basic user names cannot hold them)'),
  clientSecret: z.string().min(8).max(255),
  regulated: z.boolean().default(true),
  paperworkSkipping: z.boolean().default(false),
  counterpartyRules: z.boolean().default(false),
  webhookEndpoint: z.url({ protocol: /^https?$/ }).optional(),
});

/**
 * The control plane: sandbox-only endpoints outside the contract. Every one but health needs
 * the platform's credentials; clock moves and resets go through the same services and jobs
 * as the real paths. `dispatch` gives the whole app, for a fixture's in-process API calls.
 */
export function controlPlane(ctx: SandboxContext, areas: readonly Area[], dispatch: () => Promise<Dispatch>): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.route('/health', healthRoutes(ctx));

  app.use('*', basicAuth);

  // A still clock (`--clock-start`) says where it started: its offset counts from there, not from real time.
  const stillSince = () => (ctx.clock.start === undefined ? {} : { stillSince: new Date(ctx.clock.start).toISOString() });

  app.get('/clock', (c) =>
    c.json({ now: ctx.clock.iso(), offsetSeconds: ctx.clock.offset / 1000, pendingJobs: ctx.jobs.count(), ...stillSince() }),
  );

  app.post('/clock/advance', async (c) => {
    const { seconds } = await jsonBody(c, advanceBody);
    ctx.scheduler.advance(seconds);
    return c.json({ now: ctx.clock.iso() });
  });

  // Back to real time (offset 0) for every platform of this sandbox; pending jobs keep their due
  // times. No body.
  app.post('/clock/reset', (c) => {
    const left = ctx.scheduler.resetClock();
    return c.json({ now: ctx.clock.iso(), offsetSeconds: ctx.clock.offset / 1000, previous: new Date(left).toISOString(), pendingJobs: ctx.jobs.count(), ...stillSince() });
  });

  // The sandbox enclave's public signing key (every bundle's enclaveQuorumPublic) and the
  // platform's organizationId: what @turnkey/crypto's bundle checks are given.
  app.get('/enclave', (c) => c.json(enclaveInfo(ctx, c.get('platform'))));

  app.route('/webhooks', webhookControlRoutes(ctx));
  app.route('/cards', cardControlRoutes(ctx));

  const operationIds = new Map(operations.map((op) => [op.operationId, op]));
  app.post('/faults', async (c) => {
    const request = await jsonBody(c, faultRuleRequest);
    return c.json(faultRulesOf(ctx).add(c.get('platform').id, request, operationIds), 201);
  });
  app.get('/faults', (c) => c.json({ data: faultRulesOf(ctx).list(c.get('platform').id) }));
  app.delete('/faults', (c) => c.json({ cleared: faultRulesOf(ctx).clear(c.get('platform').id) }));
  app.delete('/faults/:faultId', (c) => {
    const faultId = c.req.param('faultId');
    if (faultRulesOf(ctx).clear(c.get('platform').id, faultId) === 0) throw notFound('NOT_FOUND', `No armed fault ${faultId}; GET /_sandbox/faults lists them.`);
    return c.json({ cleared: 1 });
  });
  app.route('/changes', changeRoutes(ctx));
  app.route('/logs', requestLogRoutes(ctx));
  app.route('/coverage', coverageRoutes(ctx));
  app.route('/search', searchRoutes(ctx));
  app.route('/', listRoutes(ctx));
  app.route('/', stateRoutes(ctx, areas, dispatch));
  app.route('/', stablecoinControlRoutes(ctx));

  app.post('/reset', (c) => {
    const platform = c.get('platform');
    resetPlatformData(ctx, areas, platform);
    faultRulesOf(ctx).clear(platform.id);
    coverageRecorder(ctx).resetPlatform(platform.id);
    return c.json({ status: 'ok', platformId: platform.id });
  });

  app.post('/seed', async (c) => c.json(await seed(ctx, c.get('platform'), await jsonBody(c, seedBody))));

  app.post('/platforms', async (c) => {
    const body = await jsonBody(c, newPlatformBody);
    const platform = await platformService(ctx).create({
      clientId: body.clientId,
      clientSecret: body.clientSecret,
      regulated: body.regulated,
      settings: { paperworkSkipping: body.paperworkSkipping, counterpartyRules: body.counterpartyRules },
      webhookEndpoint: body.webhookEndpoint,
    });
    return c.json(
      {
        id: platform.id,
        clientId: platform.clientId,
        regulated: platform.regulated,
        settings: platform.settings,
        createdAt: platform.createdAt,
      },
      201,
    );
  });

  return app;
}
