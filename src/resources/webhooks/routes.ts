import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { SandboxContext } from '../../store/context.js';
import { envelopeOf, SIGNATURE_HEADER, SIGNATURE_HEADERS, webhookDelivery, webhookPublicKey, type DeliveryActivity, type OutboxEvent } from '../../events/index.js';
import type { AppEnv } from '../../server/env.js';
import { jsonBody, queryOf } from '../../server/validate.js';
import type { OperationHandlers } from '../area.js';
import { deliveriesQuery, eventStreamQuery, forwardedBody, triggerBody } from './schemas.js';
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

  app.post('/deliveries/:eventId/forwarded', async (c) => c.json(service.recordForward(c.get('platform'), c.req.param('eventId'), await jsonBody(c, forwardedBody))));

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

  // Server-sent events for `webhooks listen`: every event of this platform as it is recorded,
  // with the exact delivered body and its signature (so a listener can forward it signed, under
  // every header name a delivery uses).
  // `?after=<seq>` (or Last-Event-ID) resumes after a reconnect; a seq beyond this database's
  // newest (a fresh in-memory sandbox) starts from now. `?forwardTo=<url>` opens a listen session
  // (its id in the ready message) for as long as the stream lasts: it reports each forward to
  // `POST /deliveries/{eventId}/forwarded`, recorded as an attempt of the event.
  app.get('/events/stream', (c) => {
    const platformId = c.get('platform').id;
    const worker = webhookDelivery(ctx);
    const { forwardTo } = queryOf(c, eventStreamQuery);
    const latest = ctx.outbox.latestSeq(platformId);
    const asked = Number(c.req.query('after') ?? c.req.header('Last-Event-ID') ?? latest);
    let after = Number.isSafeInteger(asked) && asked >= 0 && asked <= latest ? asked : latest;
    const session = forwardTo === undefined ? undefined : worker.openListenSession(platformId, forwardTo);
    return streamSSE(c, async (stream) => {
      const send = (event: OutboxEvent) => {
        if (event.seq <= after) return;
        after = event.seq;
        session?.pending.add(event.id);
        const body = envelopeOf({ id: event.id, type: event.type, created_at: event.createdAt, data: JSON.stringify(event.data) });
        void stream.writeSSE({
          event: 'webhook',
          id: String(event.seq),
          data: JSON.stringify({ seq: event.seq, id: event.id, type: event.type, resourceId: event.resourceId, timestamp: event.createdAt, body, signatureHeader: SIGNATURE_HEADER, signatureHeaders: SIGNATURE_HEADERS, signature: worker.signer.header(body) }),
        });
      };
      await new Promise<void>((resolve) => {
        const unsubscribe = ctx.outbox.subscribe((event) => {
          if (event.platformId === platformId) send(event);
        });
        const keepAlive = setInterval(() => void stream.write(': keep-alive\n\n'), 15_000);
        const done = () => {
          clearInterval(keepAlive);
          unsubscribe();
          worker.events.off('stop', done);
          if (session) worker.closeListenSession(session.id);
          resolve();
        };
        worker.events.once('stop', done);
        stream.onAbort(done);
        void stream.writeSSE({ event: 'ready', data: JSON.stringify({ platformId, after, ...(session ? { listenSession: session.id, forwardTo: session.url } : {}) }) });
        for (let batch = ctx.outbox.list(platformId, after, 500); batch.length > 0; batch = ctx.outbox.list(platformId, after, 500)) batch.forEach(send);
      });
    });
  });

  return app;
}
