import type { SandboxContext } from '../store/context.js';
import { WebhookDelivery, type DeliveryOptions } from './delivery.js';

export { DELIVERY_STATES, EVENT_COUNTS, Outbox, outboxMigrations, type OutboxEvent } from '../store/outbox.js';
export { WebhookDelivery, envelopeOf, RETRY_JOB_KIND, type AttemptResult, type DeliveryActivity, type DeliveryOptions, type ForwardOutcome, type ListenSession } from './delivery.js';
export { DeliveriesRepo, type AttemptRow, type DeliveryRow, type DeliveryState, type DeliveryFilter } from './deliveries-repo.js';
export { WebhookSigner, SIGNATURE_HEADER, SIGNATURE_HEADERS, signatureHeadersOf } from './signing.js';
export { ATTEMPT_TIMEOUT_MS, MAX_ATTEMPTS, RETRY_BASE_MS, retryDelayMs, acknowledges } from './retry-schedule.js';
export { WEBHOOK_TYPES, webhookTypeNames, isWebhookType } from './webhook-types.js';
export { registerResponseHandler, responseHandlerOf, type ResponseHandler, type WebhookResponse } from './responses.js';
export { registerTriggerProducer, triggerProducerOf, triggerableTypes, type TriggerProducer, type TriggerRequest } from './triggers.js';

const workers = new WeakMap<SandboxContext, WebhookDelivery>();

/**
 * Starts webhook delivery for a sandbox (once per context, at startup, before the scheduler
 * runs due jobs): loads or creates the signing key, registers the retry job, subscribes to the
 * outbox and resumes every pending delivery.
 */
export function startWebhookDelivery(ctx: SandboxContext, options: DeliveryOptions): WebhookDelivery {
  const existing = workers.get(ctx);
  if (existing) return existing;
  const worker = new WebhookDelivery(ctx, options);
  workers.set(ctx, worker);
  return worker;
}

/** The running delivery worker of a sandbox. */
export function webhookDelivery(ctx: SandboxContext): WebhookDelivery {
  const worker = workers.get(ctx);
  if (!worker) throw new Error('webhook delivery is not started for this sandbox');
  return worker;
}

/** Stops delivery (sandbox close): attempts in flight are aborted and stay due for the next start. */
export async function stopWebhookDelivery(ctx: SandboxContext): Promise<void> {
  await workers.get(ctx)?.stop();
}

/** The sandbox's webhook public key (SPKI PEM), for the start banner and `GET /_sandbox/webhooks/public-key`. */
export function webhookPublicKey(ctx: SandboxContext): string {
  return webhookDelivery(ctx).signer.publicKeyPem;
}
