import * as z from 'zod';
import { paginationQuery } from '../../core/pagination.js';

const dateTime = z.iso.datetime({ offset: true });

/** Query of `GET /transactions`. */
export const listTransactionsQuery = z.object({
  ...paginationQuery,
  customerId: z.string().optional(),
  platformCustomerId: z.string().optional(),
  accountIdentifier: z.string().optional(),
  senderAccountIdentifier: z.string().optional(),
  receiverAccountIdentifier: z.string().optional(),
  status: z.enum(['CREATED', 'PENDING', 'PENDING_AUTHORIZATION', 'PROCESSING', 'COMPLETED', 'REJECTED', 'FAILED', 'REFUNDED', 'EXPIRED']).optional(),
  type: z.enum(['INCOMING', 'OUTGOING', 'CARD']).optional(),
  reference: z.string().optional(),
  startDate: dateTime.optional(),
  endDate: dateTime.optional(),
  sortOrder: z.enum(['asc', 'desc']).default('desc'),
});
