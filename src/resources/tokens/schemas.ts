import * as z from 'zod';
import { paginationQuery } from '../../core/pagination.js';

/** The contract's `Permission`. */
export const permission = z.enum(['VIEW', 'TRANSACT', 'MANAGE']);
export type Permission = z.infer<typeof permission>;

/** `ApiTokenCreateRequest`. */
export const apiTokenCreateRequest = z.object({
  name: z.string().min(1).max(255),
  permissions: z.array(permission).min(1),
});
export type ApiTokenCreateRequest = z.infer<typeof apiTokenCreateRequest>;

/** Query of `GET /tokens`. */
export const tokensQuery = z.object({
  name: z.string().min(1).optional(),
  createdAfter: z.iso.datetime({ offset: true }).optional(),
  createdBefore: z.iso.datetime({ offset: true }).optional(),
  updatedAfter: z.iso.datetime({ offset: true }).optional(),
  updatedBefore: z.iso.datetime({ offset: true }).optional(),
  ...paginationQuery,
});
export type TokensQuery = z.infer<typeof tokensQuery>;
