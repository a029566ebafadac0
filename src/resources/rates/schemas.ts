import { z } from 'zod';

const code = z.string().regex(/^[A-Z]{3,4}$/, 'a currency code such as USD');

/** Query of `GET /exchange-rates` (`destinationCurrency` may repeat). */
export const exchangeRatesQuery = z.object({
  sourceCurrency: code.optional(),
  destinationCurrency: z.union([code, z.array(code)]).optional().transform((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v])),
  sendingAmount: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(10_000),
});
