import * as z from 'zod';

const purposeOfPayment = z.enum([
  'GIFT', 'SELF', 'GOODS_OR_SERVICES', 'EDUCATION', 'HEALTH_OR_MEDICAL', 'REAL_ESTATE_PURCHASE', 'TAX_PAYMENT', 'LOAN_PAYMENT',
  'UTILITY_BILL', 'DONATION', 'TRAVEL', 'FAMILY_SUPPORT', 'SALARY_PAYMENT', 'OTHER',
]);
const paymentRail = z.enum([
  'ACH', 'ACH_COLOMBIA', 'BANK_TRANSFER', 'BRE_B', 'CIPS', 'FAST', 'FASTER_PAYMENTS', 'FEDNOW', 'INSTAPAY', 'MOBILE_MONEY',
  'NEFT', 'PAYNOW', 'PESONET', 'PIX', 'RTGS', 'RTP', 'SEPA', 'SEPA_INSTANT', 'SPEI', 'SWIFT', 'UNIONPAY', 'UPI', 'WIRE',
]);
const currency = z.string().regex(/^[A-Z]{3,4}$/, 'a currency code such as USD');

/** `QuoteRequest`. */
export const quoteRequest = z.object({
  lookupId: z.string().optional(),
  source: z.discriminatedUnion('sourceType', [
    z.object({ sourceType: z.literal('ACCOUNT'), accountId: z.string().min(1), customerId: z.string().min(1).optional() }),
    z.object({ sourceType: z.literal('REALTIME_FUNDING'), currency, customerId: z.string().min(1).optional(), cryptoNetwork: z.string().optional() }),
  ]),
  destination: z.discriminatedUnion('destinationType', [
    z.object({ destinationType: z.literal('ACCOUNT'), accountId: z.string().min(1), paymentRail: paymentRail.optional() }),
    z.object({ destinationType: z.literal('UMA_ADDRESS'), umaAddress: z.string().min(1), currency: currency.optional() }),
  ]),
  lockedCurrencySide: z.enum(['SENDING', 'RECEIVING']),
  lockedCurrencyAmount: z.number().int().positive().max(9_000_000_000_000_000),
  immediatelyExecute: z.boolean().optional(),
  description: z.string().max(500).optional(),
  remittanceInformation: z.string().max(80).optional(),
  purposeOfPayment: purposeOfPayment.optional(),
  platformFeeOverride: z
    .object({
      platformFixedFee: z.object({ amount: z.number().int().min(0), currency }),
      platformVariableFeeBps: z.number().int().min(0).max(10_000),
    })
    .optional(),
  scaFactor: z.enum(['SMS_OTP', 'TOTP', 'PASSKEY']).optional(),
  senderCustomerInfo: z.record(z.string(), z.unknown()).optional(),
});

export type QuoteRequest = z.infer<typeof quoteRequest>;

/** `ExecuteQuoteRequest` (optional body). */
export const executeQuoteRequest = z.object({ scaFactor: z.enum(['SMS_OTP', 'TOTP', 'PASSKEY']).optional() });

/** `SandboxSendRequest`. */
export const sandboxSendRequest = z.object({
  quoteId: z.string().min(1),
  currencyCode: currency,
  currencyAmount: z.number().int().positive().optional(),
});

/** Bodies of the transaction actions (all optional). */
export const cancelTransactionRequest = z.object({ reason: z.string().max(500).optional() });
export const confirmReceiptRequest = z.object({ receiptDeliveryConfirmedAt: z.iso.datetime({ offset: true }).optional() });
export const approvePaymentRequest = z.object({ receiverCustomerInfo: z.record(z.string(), z.unknown()).optional() });
export const rejectPaymentRequest = z.object({ reason: z.string().max(500).optional() });
