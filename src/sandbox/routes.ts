import { Hono } from 'hono';
import { z } from 'zod';
import type { SandboxContext } from '../context.js';
import type { Area } from '../resources/area.js';
import { platformService } from '../resources/platform/index.js';
import { webhookControlRoutes } from '../resources/webhooks/index.js';
import { basicAuth } from '../server/auth.js';
import type { AppEnv } from '../server/env.js';
import { jsonBody } from '../server/validate.js';
import { resetPlatformData } from './reset.js';
import { stablecoinControlRoutes } from './stablecoin-routes.js';

const advanceBody = z.object({
  seconds: z.number().positive().max(10 * 365 * 24 * 3600),
});

const newPlatformBody = z.object({
  clientId: z.string().min(1).max(255).regex(/^[^:\s]+$/, 'no colon or whitespace (HTTP Basic user names cannot hold them)'),
  clientSecret: z.string().min(8).max(255),
  regulated: z.boolean().default(true),
  paperworkSkipping: z.boolean().default(false),
  counterpartyRules: z.boolean().default(false),
  webhookEndpoint: z.url({ protocol: /^https?$/ }).optional(),
});

/**
 * The control plane: sandbox-only endpoints outside the contract. Every one but health needs
 * the platform's credentials; clock moves and resets go through the same services and jobs
 * as the real paths.
 */
export function controlPlane(ctx: SandboxContext, areas: readonly Area[]): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/health', (c) => c.json({ status: 'ok' }));

  app.use('*', basicAuth);

  app.get('/clock', (c) =>
    c.json({ now: ctx.clock.iso(), offsetSeconds: ctx.clock.offset / 1000, pendingJobs: ctx.jobs.count() }),
  );

  app.post('/clock/advance', async (c) => {
    const { seconds } = await jsonBody(c, advanceBody);
    ctx.scheduler.advance(seconds);
    return c.json({ now: ctx.clock.iso() });
  });

  app.route('/webhooks', webhookControlRoutes(ctx));
  app.route('/', stablecoinControlRoutes(ctx));

  app.post('/reset', (c) => {
    const platform = c.get('platform');
    resetPlatformData(ctx, areas, platform);
    return c.json({ status: 'ok', platformId: platform.id });
  });

  app.post('/platforms', async (c) => {
    const body = await jsonBody(c, newPlatformBody);
    const platform = platformService(ctx).create({
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
