import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { SandboxContext } from '../../context.js';
import { webhookDelivery, webhookPublicKey, type DeliveryActivity } from '../../events/index.js';
import type { AppEnv } from '../../server/env.js';
import { jsonBody, queryOf } from '../../server/validate.js';
import type { OperationHandlers } from '../area.js';
import { deliveriesQuery, triggerBody } from './schemas.js';
import { webhooksService } from './service.js';

/** Contract operations of the webhooks area. */
export const handlers: OperationHandlers = {
  sendTestWebhook: async (c) => c.json(await webhooksService(c.get('ctx')).sendTest(c.get('platform'))),
};

/**
 * The control plane's webhook endpoints, mounted at `/_sandbox/webhooks` behind the control
 * plane's Basic auth: public key, deliveries with attempts, replay, trigger and a live tail.
 */
export function webhookControlRoutes(ctx: SandboxContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const service = webhooksService(ctx);

  app.get('/public-key', (c) => c.json({ publicKey: webhookPublicKey(ctx) }));

  app.get('/event-types', (c) => c.json({ data: service.eventTypes() }));

  app.get('/deliveries', (c) => c.json(service.list(c.get('platform'), queryOf(c, deliveriesQuery))));

  app.get('/deliveries/:eventId', (c) => c.json(service.get(c.get('platform'), c.req.param('eventId'))));

  app.post('/deliveries/:eventId/replay', async (c) => c.json(await service.replay(c.get('platform'), c.req.param('eventId'))));

  app.post('/trigger', async (c) => c.json(await service.trigger(c.get('platform'), await jsonBody(c, triggerBody)), 201));

  // Server-sent events: one `attempt` or `no-endpoint` message per delivery step of this platform.
  app.get('/tail', (c) => {
    const platformId = c.get('platform').id;
    const worker = webhookDelivery(ctx);
    return streamSSE(c, async (stream) => {
      await new Promise<void>((resolve) => {
        const onActivity = (activity: DeliveryActivity) => {
          if (activity.platformId !== platformId) return;
          void stream.writeSSE({ event: activity.kind, data: JSON.stringify(activity) });
        };
        const keepAlive = setInterval(() => void stream.write(': keep-alive\n\n'), 15_000);
        const done = () => {
          clearInterval(keepAlive);
          worker.events.off('activity', onActivity);
          worker.events.off('stop', done);
          resolve();
        };
        worker.events.on('activity', onActivity);
        worker.events.once('stop', done);
        stream.onAbort(done);
        void stream.writeSSE({ event: 'ready', data: JSON.stringify({ platformId }) });
      });
    });
  });

  return app;
}
