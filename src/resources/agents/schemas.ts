import * as z from 'zod';
import { paginationQuery } from '../../core/pagination.js';

const currency = z.string().regex(/^[A-Z]{3,4}$/, 'a currency code such as USD');
const limit = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const dateTime = z.iso.datetime({ offset: true });
const booleanQuery = z.enum(['true', 'false']).transform((v) => v === 'true');

/** `AgentPermission`. */
export const agentPermission = z.enum(['VIEW_TRANSACTIONS', 'CREATE_TRANSFERS', 'CREATE_QUOTES', 'EXECUTE_QUOTES', 'MANAGE_EXTERNAL_ACCOUNTS']);
export type AgentPermission = z.infer<typeof agentPermission>;

/** `AgentExecutionMode`. */
export const executionMode = z.enum(['AUTO', 'APPROVAL_REQUIRED']);

/** `AgentSpendingLimits`: no limit may be negative. */
export const spendingLimits = z.object({
  currency,
  perTransactionLimit: limit,
  dailyLimit: limit.nullable().optional(),
  dailyTransactionLimit: limit.optional(),
  monthlyLimit: limit.nullable().optional(),
});

/** `AgentAccountRestrictions`. */
export const accountRestrictions = z.object({
  allowedAccountIds: z.array(z.string().min(1)).max(100).nullable().optional(),
  accountRules: z
    .array(z.object({ accountId: z.string().min(1), executionMode: executionMode.optional(), perTransactionLimit: limit.nullable().optional() }))
    .max(100)
    .optional(),
});

/** `AgentApprovalThresholds`: `currency` is required when `amount` is set. */
export const approvalThresholds = z
  .object({ currency: currency.optional(), amount: limit.nullable().optional() })
  .refine((t) => t.amount === undefined || t.amount === null || t.currency !== undefined, {
    message: 'currency is required when amount is set',
    path: ['currency'],
  });

/** `AgentPolicy`. */
export const agentPolicy = z.object({
  permissions: z.array(agentPermission).max(5),
  defaultExecutionMode: executionMode,
  spendingLimits,
  accountRestrictions: accountRestrictions.optional(),
  approvalThresholds: approvalThresholds.optional(),
});
export type AgentPolicy = z.infer<typeof agentPolicy>;

/** `AgentCreateRequest`. */
export const agentCreateRequest = z.object({
  name: z.string().min(1).max(255),
  customerId: z.string().min(1),
  policy: agentPolicy,
});

/** `AgentUpdateRequest`: at least one field. */
export const agentUpdateRequest = z
  .object({ name: z.string().min(1).max(255).optional(), isPaused: z.boolean().optional() })
  .refine((u) => u.name !== undefined || u.isPaused !== undefined, { message: 'Send name or isPaused.' });

/** `AgentPolicyUpdateRequest`: every field optional; `spendingLimits` is itself partial. */
export const agentPolicyUpdateRequest = z.object({
  permissions: z.array(agentPermission).max(5).optional(),
  defaultExecutionMode: executionMode.optional(),
  spendingLimits: spendingLimits.partial().optional(),
  accountRestrictions: accountRestrictions.optional(),
  approvalThresholds: approvalThresholds.optional(),
});
export type AgentPolicyUpdate = z.infer<typeof agentPolicyUpdateRequest>;

/** `AgentActionRejectRequest` (optional body). */
export const agentActionRejectRequest = z.object({ reason: z.string().max(1000).optional() });

/** Query of `GET /agents`. */
export const listAgentsQuery = z.object({
  ...paginationQuery,
  customerId: z.string().min(1).optional(),
  isPaused: booleanQuery.optional(),
  isConnected: booleanQuery.optional(),
  createdAfter: dateTime.optional(),
  createdBefore: dateTime.optional(),
  updatedAfter: dateTime.optional(),
  updatedBefore: dateTime.optional(),
});

/** Query of `GET /agents/approvals`. */
export const listApprovalsQuery = z.object({
  ...paginationQuery,
  agentId: z.string().min(1).optional(),
  customerId: z.string().min(1).optional(),
  startDate: dateTime.optional(),
  endDate: dateTime.optional(),
  sortOrder: z.enum(['asc', 'desc']).default('desc'),
});

/** `AgentActionStatus`. */
export const actionStatus = z.enum(['PENDING_APPROVAL', 'APPROVED', 'REJECTED', 'FAILED']);

/** Query of `GET /agents/me/actions`. */
export const listOwnActionsQuery = z.object({ ...paginationQuery, status: actionStatus.optional() });

/** Query of `GET /agents/me/internal-accounts`. */
export const ownInternalAccountsQuery = z.object({
  ...paginationQuery,
  currency: currency.optional(),
  type: z.enum(['INTERNAL_FIAT', 'INTERNAL_CRYPTO', 'EMBEDDED_WALLET']).optional(),
});

/** Query of `GET /agents/me/external-accounts`. */
export const ownExternalAccountsQuery = z.object({ ...paginationQuery, currency: currency.optional() });

/** Query of `GET /agents/me/transactions`: the transactions filters without any customer filter. */
export const ownTransactionsQuery = z.object({
  ...paginationQuery,
  accountIdentifier: z.string().optional(),
  senderAccountIdentifier: z.string().optional(),
  receiverAccountIdentifier: z.string().optional(),
  status: z.enum(['CREATED', 'PENDING', 'PENDING_AUTHORIZATION', 'PROCESSING', 'COMPLETED', 'REJECTED', 'FAILED', 'REFUNDED', 'EXPIRED']).optional(),
  type: z.enum(['INCOMING', 'OUTGOING']).optional(),
  reference: z.string().optional(),
  startDate: dateTime.optional(),
  endDate: dateTime.optional(),
  sortOrder: z.enum(['asc', 'desc']).default('desc'),
});
