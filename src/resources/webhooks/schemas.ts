import * as z from 'zod';
import { paginationQuery } from '../../core/pagination.js';
import { DELIVERY_STATES, webhookTypeNames } from '../../events/index.js';

const eventType = z.enum(webhookTypeNames as [string, ...string[]], { error: 'an event type of the contract, such as CUSTOMER.KYC_APPROVED or TEST' });

/** Query of `GET /_sandbox/webhooks/deliveries`. */
export const deliveriesQuery = z.object({
  ...paginationQuery,
  type: eventType.optional(),
  resourceId: z.string().min(1).max(255).optional(),
  since: z.iso.datetime({ offset: true, error: 'an ISO 8601 date-time such as 2025-10-13T09:00:00Z' }).optional(),
  status: z.enum(DELIVERY_STATES).optional(),
});

/** Body of `POST /_sandbox/webhooks/trigger`. */
export const triggerBody = z.object({
  type: eventType,
  resourceId: z.string().min(1).max(255).optional(),
});

/** Query of `GET /_sandbox/webhooks/events/stream` (`webhooks listen`). */
export const eventStreamQuery = z.object({
  after: z.string().optional(),
  forwardTo: z.url({ protocol: /^https?$/, error: 'an http or https URL such as http://127.0.0.1:3000/webhooks' }).max(2048).optional(),
});

/** Body of `POST /_sandbox/webhooks/deliveries/{eventId}/forwarded`: what a listen session's forward got. */
export const forwardedBody = z
  .object({
    listenSession: z.string().min(1).max(255),
    responseStatus: z.number().int().min(100).max(599).nullable(),
    error: z.string().max(500).nullable().default(null),
    latencyMs: z.number().min(0).max(3_600_000),
    responseExcerpt: z.string().max(2000).nullable().default(null),
  })
  .refine((body) => body.responseStatus !== null || body.error !== null, { message: 'give the responseStatus, or the error when no answer came', path: ['responseStatus'] });

export type DeliveriesQuery = z.infer<typeof deliveriesQuery>;
export type ForwardedBody = z.infer<typeof forwardedBody>;
export type TriggerBody = z.infer<typeof triggerBody>;
