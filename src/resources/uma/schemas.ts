import * as z from 'zod';
import { paginationQuery } from '../../core/pagination.js';

/** Query of `GET /receiver/uma/{address}` and `GET /receiver/external-account/{id}`: who is sending. */
export const receiverLookupQuery = z.object({
  senderUmaAddress: z.string().min(1).optional(),
  customerId: z.string().min(1).optional(),
});

const currencyCode = z
  .string()
  .transform((value) => value.toUpperCase())
  .pipe(z.string().regex(/^[A-Z]{3,4}$/, 'a currency code such as USD or USDC'));

/** `SandboxUmaReceiveRequest`. */
export const sandboxUmaReceiveRequest = z.object({
  senderUmaAddress: z.string().min(1),
  receiverUmaAddress: z.string().min(1).optional(),
  customerId: z.string().min(1).optional(),
  receivingCurrencyCode: currencyCode,
  receivingCurrencyAmount: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
});

/**
 * Query of `GET /uma-providers`. The contract lists no 400 for it, so every value its schema
 * allows is accepted: any `countryCode` / `currencyCode` string filters (no match: an empty
 * page), any `cursor` string pages (one this sandbox did not issue: an empty page).
 */
export const umaProvidersQuery = z.object({
  countryCode: z
    .string()
    .transform((value) => value.toUpperCase())
    .optional(),
  currencyCode: z
    .string()
    .transform((value) => value.toUpperCase())
    .optional(),
  hasBlockedProviders: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .default(true),
  limit: paginationQuery.limit,
  cursor: z.string().optional(),
  sortOrder: z.enum(['asc', 'desc']).default('desc'),
});

export type ReceiverLookupQuery = z.infer<typeof receiverLookupQuery>;
export type SandboxUmaReceiveRequest = z.infer<typeof sandboxUmaReceiveRequest>;
export type UmaProvidersQuery = z.infer<typeof umaProvidersQuery>;
