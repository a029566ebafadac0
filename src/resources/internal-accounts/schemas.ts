import * as z from 'zod';
import { paginationQuery } from '../../core/pagination.js';

/** Query of `GET /customers/internal-accounts`. */
export const customerInternalAccountsQuery = z.object({
  currency: z.string().regex(/^[A-Z]{3,4}$/, 'a currency code such as USD').optional(),
  customerId: z.string().min(1).optional(),
  type: z.enum(['INTERNAL_FIAT', 'INTERNAL_CRYPTO', 'EMBEDDED_WALLET']).optional(),
  ...paginationQuery,
});

/** Query of `GET /platform/internal-accounts` (no pagination in the contract). */
export const platformInternalAccountsQuery = z.object({
  currency: z.string().regex(/^[A-Z]{3,4}$/, 'a currency code such as USD').optional(),
  type: z.enum(['INTERNAL_FIAT', 'INTERNAL_CRYPTO', 'EMBEDDED_WALLET']).optional(),
});
