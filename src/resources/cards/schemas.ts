import * as z from 'zod';
import { paginationQuery } from '../../core/pagination.js';

const id = z.string().min(1).max(255);
const limit = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const cardStates = ['PENDING_KYC', 'PROCESSING', 'ACTIVE', 'FROZEN', 'CLOSED'] as const;

/** Body of `POST /cards` (the contract's CardCreateRequest; daily limits per API.md "Cards"). */
export const cardCreateRequest = z.object({
  cardholderId: id,
  platformCardId: z.string().min(1).max(255).optional(),
  threeDSecurePassword: z.string().min(1).max(255).optional(),
  form: z.enum(['VIRTUAL']),
  fundingSources: z.array(id).min(1).max(20),
  maxSpendPerTransaction: limit.optional(),
  maxSpendPerDay: limit.optional(),
  maxTransactionsPerDay: limit.optional(),
});
export type CardCreateRequest = z.infer<typeof cardCreateRequest>;

/** Body of `PATCH /cards/{id}` (the contract's CardUpdateRequest; daily limits per API.md "Cards"). */
export const cardUpdateRequest = z
  .object({
    state: z.enum(['ACTIVE', 'FROZEN', 'CLOSED']).optional(),
    fundingSources: z.array(id).min(1).max(20).optional(),
    maxSpendPerTransaction: limit.nullable().optional(),
    maxSpendPerDay: limit.nullable().optional(),
    maxTransactionsPerDay: limit.nullable().optional(),
  })
  .refine((body) => Object.values(body).some((v) => v !== undefined), { message: 'Supply at least one of state, fundingSources or a limit.' });
export type CardUpdateRequest = z.infer<typeof cardUpdateRequest>;

/** Query of `GET /cards`. */
export const listCardsQuery = z.object({
  ...paginationQuery,
  cardholderId: z.string().optional(),
  accountId: z.string().optional(),
  platformCardId: z.string().optional(),
  state: z.enum(cardStates).optional(),
  sortOrder: z.enum(['asc', 'desc']).default('desc'),
});
export type ListCardsQuery = z.infer<typeof listCardsQuery>;

const merchant = z.object({
  descriptor: z.string().min(1).max(255),
  mcc: z.string().regex(/^\d{4}$/).optional(),
  country: z.string().regex(/^[A-Z]{2}$/).optional(),
});
// A simulated network message carries at most 10^12 in the smallest unit (sandbox bound, keeps every running sum exact).
const amount = z.number().int().max(1_000_000_000_000);
const currency = z.object({ code: z.string().min(1).max(10) }).loose();

/** SandboxCardAuthorizationRequest: authorization, credit, financial and credit-advice simulations. */
export const simulateAuthorizationRequest = z.object({ amount: amount.positive(), currency, merchant });
export type SimulateAuthorizationRequest = z.infer<typeof simulateAuthorizationRequest>;

/** SandboxCardClearingRequest (`amount: 0` is an authorisation expiry). */
export const simulateClearingRequest = z.object({ cardTransactionId: id, amount: amount.min(0) });

/** SandboxCardReturnRequest. */
export const simulateReturnRequest = z.object({ cardTransactionId: id, amount: amount.positive() });

/** SandboxCardBalanceInquiryRequest. */
export const simulateBalanceInquiryRequest = z.object({ merchant });

/** SandboxCardAuthorizationAdviceRequest (`amount` is the new authorised total). */
export const simulateAdviceRequest = z.object({ cardTransactionId: id, amount: amount.positive() });

/** SandboxCardTransactionRefRequest. */
export const simulateReturnReversalRequest = z.object({ cardTransactionId: id });

/** Body of `PATCH /_sandbox/cards/settings`: the platform's card program settings. */
export const cardSettingsUpdate = z.object({
  maxLiveCards: z.number().int().min(0).max(1_000_000_000).optional(),
  oneCardPerCardholder: z.boolean().optional(),
  authorizationDecisions: z.enum(['SERVICE', 'ISSUER']).optional(),
  revealTtlSeconds: z.number().int().min(10).max(3600).optional(),
});
export type CardSettingsUpdate = z.infer<typeof cardSettingsUpdate>;
