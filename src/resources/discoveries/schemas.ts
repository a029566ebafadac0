import * as z from 'zod';

/** Query of `GET /discoveries`: optional ISO 3166-1 alpha-2 country and ISO 4217 currency (case-insensitive). */
export const discoveriesQuery = z.object({
  country: z
    .string()
    .transform((value) => value.toUpperCase())
    .pipe(z.string().regex(/^[A-Z]{2}$/, 'an ISO 3166-1 alpha-2 country code such as PH'))
    .optional(),
  currency: z
    .string()
    .transform((value) => value.toUpperCase())
    .pipe(z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 currency code such as PHP'))
    .optional(),
});
