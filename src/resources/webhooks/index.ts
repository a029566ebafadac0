import { EVENT_COUNTS, registerTriggerProducer, startWebhookDelivery, webhookDelivery } from '../../events/index.js';
import type { Area } from '../area.js';
import { platformService } from '../../tenancy/index.js';
import { handlers } from './routes.js';

export { webhookControlRoutes } from './routes.js';
export { WebhooksService, webhooksService, WebhookErrorCode, type DeliveryView, type AttemptView } from './service.js';

// `webhooks trigger TEST`: a TEST event with the contract's empty data, delivered like any other.
registerTriggerProducer('TEST', (ctx, { platform }) => ctx.tx(() => ctx.outbox.append(platform.id, 'TEST', null, {})));

/**
 * Webhooks: starts the delivery worker at sandbox start, serves `POST /sandbox/webhooks/test`;
 * the control plane mounts `webhookControlRoutes` at `/_sandbox/webhooks`.
 */
export const webhooksArea: Area = {
  name: 'webhooks',
  migrations: [],
  handlers,
  init: (ctx) => {
    const platforms = platformService(ctx);
    startWebhookDelivery(ctx, { endpointOf: (platformId) => platforms.byId(platformId)?.config.webhookEndpoint });
  },
  resetPlatform: (ctx, platform) => webhookDelivery(ctx).repo.removePlatform(platform.id),
  // A snapshot import puts a platform's events back as rows, which the outbox did not count.
  derived: { columns: {}, refill: (ctx, platformId) => ctx.counts.recountPlatform(EVENT_COUNTS, platformId) },
};
