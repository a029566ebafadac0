import * as z from 'zod';
import { queryArray } from '../../server/validate.js';

const code = z.string().regex(/^[A-Z]{3,4}$/, 'a currency code such as USD');

/** Query of `GET /exchange-rates` (`destinationCurrency` repeated or comma-separated). */
export const exchangeRatesQuery = z.object({
  sourceCurrency: code.optional(),
  destinationCurrency: queryArray(code).optional(),
  sendingAmount: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(10_000),
});
