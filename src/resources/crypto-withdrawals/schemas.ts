import * as z from 'zod';

/** `EstimateCryptoWithdrawalFeeRequest`. */
export const estimateWithdrawalFeeRequest = z.object({
  internalAccountId: z.string().min(1),
  currency: z
    .string()
    .transform((value) => value.toUpperCase())
    .pipe(z.string().regex(/^[A-Z]{3,5}$/, 'a currency code such as USDC')),
  cryptoNetwork: z
    .string()
    .transform((value) => value.toUpperCase())
    .pipe(z.string().min(1)),
  amount: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  destinationAddress: z.string().trim().min(1).max(7089),
});

export type EstimateWithdrawalFeeRequest = z.infer<typeof estimateWithdrawalFeeRequest>;
