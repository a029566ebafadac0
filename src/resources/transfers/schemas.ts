import * as z from 'zod';

const accountRef = z.object({ accountId: z.string().min(1) });
const amount = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

const paymentRail = z.enum([
  'ACH', 'ACH_COLOMBIA', 'BANK_TRANSFER', 'BRE_B', 'CIPS', 'FAST', 'FASTER_PAYMENTS', 'FEDNOW', 'INSTAPAY', 'MOBILE_MONEY',
  'NEFT', 'PAYNOW', 'PESONET', 'PIX', 'RTGS', 'RTP', 'SEPA', 'SEPA_INSTANT', 'SPEI', 'SWIFT', 'UNIONPAY', 'UPI', 'WIRE',
]);

/** `TransferInRequest`. Without `amount`, the sandbox default of `transfer-rules.ts` is pulled. */
export const transferInRequest = z.object({
  source: accountRef,
  destination: accountRef,
  amount: amount.optional(),
});

/** `TransferOutRequest`. Without `amount`, the whole available balance is sent. */
export const transferOutRequest = z.object({
  source: accountRef,
  destination: accountRef.extend({ paymentRail: paymentRail.optional() }),
  amount: amount.optional(),
  remittanceInformation: z.string().max(80).optional(),
  purposeOfPayment: z
    .enum(['GIFT', 'SELF', 'GOODS_OR_SERVICES', 'EDUCATION', 'HEALTH_OR_MEDICAL', 'REAL_ESTATE_PURCHASE', 'TAX_PAYMENT', 'LOAN_PAYMENT', 'UTILITY_BILL', 'DONATION', 'TRAVEL', 'FAMILY_SUPPORT', 'SALARY_PAYMENT', 'OTHER'])
    .optional(),
});

/** `SandboxFundRequest`. */
export const sandboxFundRequest = z.object({
  amount: z.number().int().positive().max(100_000_000_000),
});

export type TransferInRequest = z.infer<typeof transferInRequest>;
export type TransferOutRequest = z.infer<typeof transferOutRequest>;
