import * as z from 'zod';
import { paginationQuery } from '../../core/pagination.js';
import { webhookTypeNames } from '../../events/index.js';

const eventType = z.enum(webhookTypeNames as [string, ...string[]], { error: 'an event type of the contract, such as CUSTOMER.KYC_APPROVED or TEST' });

/** Query of `GET /_sandbox/webhooks/deliveries`. */
export const deliveriesQuery = z.object({
  ...paginationQuery,
  type: eventType.optional(),
  resourceId: z.string().min(1).max(255).optional(),
  since: z.iso.datetime({ offset: true, error: 'an ISO 8601 date-time such as 2025-10-13T09:00:00Z' }).optional(),
  status: z.enum(['PENDING', 'SENDING', 'RETRYING', 'DELIVERED', 'FAILED', 'NO_ENDPOINT']).optional(),
});

/** Body of `POST /_sandbox/webhooks/trigger`. */
export const triggerBody = z.object({
  type: eventType,
  resourceId: z.string().min(1).max(255).optional(),
});

export type DeliveriesQuery = z.infer<typeof deliveriesQuery>;
export type TriggerBody = z.infer<typeof triggerBody>;
