import { createHash } from 'node:crypto';
import { BoundedCache, deepFreeze } from '../../core/bounded-cache.js';
import { perContext } from '../../core/per-context.js';
import { ApiError, ErrorCode, notFound } from '../../core/errors.js';
import { paginate, type Page } from '../../core/pagination.js';
import type { SandboxContext } from '../../store/context.js';
import { getCustomer } from '../customers/index.js';
import {
  createExternalAccount,
  deleteExternalAccount,
  getExternalAccountFor,
  listExternalAccounts,
  type ExternalAccount,
} from '../external-accounts/index.js';
import { accountsOfCustomer, balancesOf, presentInternalAccount, type InternalAccountRow } from '../internal-accounts/index.js';
import { platformService, type Platform } from '../../tenancy/index.js';
import { createQuote, executeQuote, getQuote, type QuoteRequest } from '../quotes/index.js';
import { appliedRate, currencyInfo } from '../rates/index.js';
import { findTransaction, getTransaction, listTransactions, type TransactionBody } from '../transactions/index.js';
import { defaultTransferInAmount, internalAccountOf, transferIn, transferOut, type TransferInRequest, type TransferOutRequest } from '../transfers/index.js';
import { AgentRepo, type ActionFilter, type ActionRow, type AgentFilter, type AgentRow } from './repo.js';
import type { AgentPermission, AgentPolicy, AgentPolicyUpdate } from './schemas.js';

/** How long a device code can be redeemed, on the sandbox clock. */
export const DEVICE_CODE_TTL_MS = 24 * 60 * 60 * 1000;

/** The contract's one agent-action webhook type; sent on every transition of the approval state machine. */
export const AGENT_ACTION_EVENT = 'AGENT_ACTION.PENDING_APPROVAL';

/** The agent an AgentAuth bearer token authenticated, and its platform. */
export interface AuthenticatedAgent {
  agent: AgentRow;
  platform: Platform;
}

const repoOf = perContext((ctx: SandboxContext) => new AgentRepo(ctx.db));

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');
const entropy = (ctx: SandboxContext, salt: string) => createHash('sha256').update(`${ctx.ids.uuid()}:${ctx.ids.uuid()}:${salt}`).digest();

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const DEVICE_CODE = /^SERVICE-AGENT-[A-Z2-9]{4}-[A-Z2-9]{4}$/;

/** A human-readable device code such as `SERVICE-AGENT-X7K9-M2P4` (the contract's example format). */
function newDeviceCodeText(ctx: SandboxContext, agentId: string): string {
  const bytes = entropy(ctx, agentId);
  let chars = '';
  for (let i = 0; i < 8; i += 1) chars += CODE_ALPHABET[bytes[i]! & 31];
  return `SERVICE-AGENT-${chars.slice(0, 4)}-${chars.slice(4)}`;
}

const agentNotFound = (id: string) => notFound('REFERENCE_NOT_FOUND', `No agent ${id} on this platform.`);
const forbidden = (rule: string, message: string, details: Record<string, unknown> = {}) =>
  new ApiError(403, ErrorCode.FORBIDDEN, message, { rule, ...details });
const unauthorized = (reason: string) => new ApiError(401, ErrorCode.UNAUTHORIZED, `Agent authentication failed: ${reason}.`, { reason });

// ---------------------------------------------------------------------------------------------
// Money in the policy's currency
// ---------------------------------------------------------------------------------------------

/** Converts an amount (smallest units) to another currency at the current applied rate, rounding up. */
function convert(ctx: SandboxContext, amount: number, from: string, to: string): number {
  if (from === to || amount === 0) return amount;
  const source = currencyInfo(from);
  const target = currencyInfo(to);
  const rate = appliedRate(from, to, ctx.clock.now());
  return Math.ceil((amount * rate * 10 ** target.decimals) / 10 ** source.decimals);
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** When the UTC day and month (on the sandbox clock) that the period limits count end. */
function periodEnds(now: number): { nextDay: number; nextMonth: number } {
  const d = new Date(now);
  return {
    nextDay: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) + DAY_MS,
    nextMonth: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
  };
}

/** Usage counter keys of the UTC day and month containing `ms`. */
const dayKey = (ms: number) => `D${new Date(ms).toISOString().slice(0, 10)}`;
const monthKey = (ms: number) => `M${new Date(ms).toISOString().slice(0, 7)}`;

/** Counts an action in (or, with `sign` -1, out of) the usage of the day and month it was submitted in. */
function countUsage(ctx: SandboxContext, row: ActionRow, sign: 1 | -1): void {
  repoOf(ctx).addUsage(row.agent_id, row.platform_id, [dayKey(row.created_ms), monthKey(row.created_ms)], row.currency, sign, sign * row.amount);
}

interface Usage {
  dailyTransactionCount: number;
  dailySpend: number;
  dailyResetDate: string;
  monthlySpend: number;
  monthlyResetMonth: string;
}

/**
 * `AgentUsage`: actions pending approval or approved count; rejected and failed ones do not.
 * Amounts are converted into the policy's limit currency at evaluation time.
 */
function usageOf(ctx: SandboxContext, agent: AgentRow, policy: AgentPolicy): Usage {
  const repo = repoOf(ctx);
  const limitCurrency = policy.spendingLimits.currency;
  const total = (rows: { currency: string; count: number; amount: number }[]) =>
    rows.reduce((sum, row) => ({ count: sum.count + row.count, amount: sum.amount + convert(ctx, row.amount, row.currency, limitCurrency) }), { count: 0, amount: 0 });
  const now = ctx.clock.now();
  const p = periodEnds(now);
  const month = total(repo.usageOf(agent.id, monthKey(now)));
  const day = total(repo.usageOf(agent.id, dayKey(now)));
  return {
    dailyTransactionCount: day.count,
    dailySpend: day.amount,
    dailyResetDate: new Date(p.nextDay).toISOString().slice(0, 10),
    monthlySpend: month.amount,
    monthlyResetMonth: new Date(p.nextMonth).toISOString().slice(0, 7),
  };
}

// ---------------------------------------------------------------------------------------------
// Presentation
// ---------------------------------------------------------------------------------------------

/** Parsed policies by their stored text: an agent's request reads its policy three or four times (issue 26). */
const policies = new BoundedCache<AgentPolicy>(256);

/** The agent's policy, parsed once per policy text and frozen (shared by every caller). */
const policyOf = (agent: AgentRow): AgentPolicy => policies.get(agent.policy, () => deepFreeze(JSON.parse(agent.policy) as AgentPolicy));

/** The contract's Agent. */
export function presentAgent(ctx: SandboxContext, agent: AgentRow): Record<string, unknown> {
  const policy = policyOf(agent);
  return {
    id: agent.id,
    name: agent.name,
    customerId: agent.customer_id,
    isPaused: agent.is_paused === 1,
    isConnected: agent.is_connected === 1,
    policy,
    usage: usageOf(ctx, agent, policy),
    createdAt: agent.created_at,
    updatedAt: agent.updated_at,
  };
}

/**
 * The contract's AgentAction: the quote as it stands now (`quote`: as its service just presented
 * it, not read again), the resulting transaction once there is one.
 */
export function presentAction(ctx: SandboxContext, row: ActionRow, quote?: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {
    id: row.id,
    agentId: row.agent_id,
    customerId: row.customer_id,
    platformCustomerId: row.platform_customer_id,
    status: row.status,
    type: row.type,
  };
  if (row.quote_id !== null) body.quote = quote ?? getQuote(ctx, row.platform_id, row.quote_id);
  if (row.transfer_details !== null) body.transferDetails = JSON.parse(row.transfer_details) as unknown;
  if (row.transaction_id !== null) body.transaction = getTransaction(ctx, row.platform_id, row.transaction_id);
  if (row.status === 'REJECTED' && row.rejection_reason !== null) body.rejectionReason = row.rejection_reason;
  body.createdAt = row.created_at;
  body.updatedAt = row.updated_at;
  return body;
}

// ---------------------------------------------------------------------------------------------
// Management (platform credentials)
// ---------------------------------------------------------------------------------------------

function agentRow(ctx: SandboxContext, platformId: string, agentId: string): AgentRow {
  const row = repoOf(ctx).agentById(platformId, agentId);
  if (!row) throw agentNotFound(agentId);
  return row;
}

/**
 * A policy may only name internal accounts of the agent's own customer (400 otherwise), and its
 * limit and threshold currencies must be ones the sandbox can price.
 */
function checkPolicyAccounts(ctx: SandboxContext, platformId: string, customerId: string, policy: AgentPolicy, prefix: string): void {
  const own = new Set(accountsOfCustomer(ctx, platformId, customerId).map((a) => a.id));
  const errors: { field: string; constraint: Record<string, unknown>; message: string }[] = [];
  (policy.accountRestrictions?.allowedAccountIds ?? []).forEach((id, i) => {
    if (!own.has(id)) errors.push({ field: `${prefix}accountRestrictions.allowedAccountIds.${i}`, constraint: { rule: 'agent-customer' }, message: `${id} is not an internal account of customer ${customerId}.` });
  });
  (policy.accountRestrictions?.accountRules ?? []).forEach((rule, i) => {
    if (!own.has(rule.accountId)) errors.push({ field: `${prefix}accountRestrictions.accountRules.${i}.accountId`, constraint: { rule: 'agent-customer' }, message: `${rule.accountId} is not an internal account of customer ${customerId}.` });
  });
  if (errors.length) throw new ApiError(400, ErrorCode.INVALID_INPUT, 'The policy names accounts that are not the customer\'s.', { errors });
  currencyInfo(policy.spendingLimits.currency, `${prefix}spendingLimits.currency`);
  if (policy.approvalThresholds?.currency !== undefined) currencyInfo(policy.approvalThresholds.currency, `${prefix}approvalThresholds.currency`);
}

/** Issues a fresh device code for the agent (only its hash is stored) and invalidates the earlier ones. */
function issueDeviceCode(ctx: SandboxContext, agent: AgentRow): Record<string, unknown> {
  const repo = repoOf(ctx);
  const now = ctx.clock.now();
  repo.invalidateDeviceCodes(agent.id, ctx.clock.iso());
  const code = newDeviceCodeText(ctx, agent.id);
  const expiresAt = now + DEVICE_CODE_TTL_MS;
  repo.insertDeviceCode({ code_hash: sha256(code), agent_id: agent.id, platform_id: agent.platform_id, expires_at: expiresAt, redeemed_at: null, invalidated_at: null });
  return { code, agentId: agent.id, expiresAt: new Date(expiresAt).toISOString(), redeemed: false };
}

/** `POST /agents`: the agent (not connected) and its first device code. */
export function createAgent(ctx: SandboxContext, platform: Platform, request: { name: string; customerId: string; policy: AgentPolicy }): Record<string, unknown> {
  return ctx.tx(() => {
    try {
      getCustomer(ctx, platform.id, request.customerId);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) {
        throw new ApiError(400, ErrorCode.INVALID_INPUT, error.message, { errors: [{ field: 'customerId', constraint: { rule: 'exists' }, message: error.message }] });
      }
      throw error;
    }
    checkPolicyAccounts(ctx, platform.id, request.customerId, request.policy, 'policy.');
    const now = ctx.clock.iso();
    const agent: AgentRow = {
      id: ctx.ids.next('Agent'),
      platform_id: platform.id,
      customer_id: request.customerId,
      name: request.name,
      is_paused: 0,
      is_connected: 0,
      policy: JSON.stringify(request.policy),
      token_hash: null,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    };
    repoOf(ctx).insertAgent(agent);
    const deviceCode = issueDeviceCode(ctx, agent);
    return { agent: presentAgent(ctx, agent), deviceCode };
  });
}

/** `GET /agents`. */
export function listAgents(ctx: SandboxContext, platformId: string, query: AgentFilter & { limit: number; cursor?: string | undefined }): Page<Record<string, unknown>> {
  const repo = repoOf(ctx);
  const filter: AgentFilter = {
    ...query,
    createdAfter: query.createdAfter && new Date(query.createdAfter).toISOString(),
    createdBefore: query.createdBefore && new Date(query.createdBefore).toISOString(),
    updatedAfter: query.updatedAfter && new Date(query.updatedAfter).toISOString(),
    updatedBefore: query.updatedBefore && new Date(query.updatedBefore).toISOString(),
  };
  return paginate(query, (request) => repo.agentPage(platformId, filter, request), () => repo.agentCount(platformId, filter), (row) => row.id, (row) => presentAgent(ctx, row));
}

/** `GET /agents/{agentId}`. */
export function getAgent(ctx: SandboxContext, platformId: string, agentId: string): Record<string, unknown> {
  return presentAgent(ctx, agentRow(ctx, platformId, agentId));
}

/** `PATCH /agents/{agentId}`: name and paused state. */
export function updateAgent(ctx: SandboxContext, platformId: string, agentId: string, update: { name?: string | undefined; isPaused?: boolean | undefined }): Record<string, unknown> {
  return ctx.tx(() => {
    const agent = agentRow(ctx, platformId, agentId);
    const next: AgentRow = {
      ...agent,
      name: update.name ?? agent.name,
      is_paused: update.isPaused === undefined ? agent.is_paused : update.isPaused ? 1 : 0,
      updated_at: ctx.clock.iso(),
    };
    repoOf(ctx).updateAgent(next);
    return presentAgent(ctx, next);
  });
}

/** `DELETE /agents/{agentId}`: the agent's token stops working at once; its codes are invalidated. */
export function deleteAgent(ctx: SandboxContext, platformId: string, agentId: string): void {
  ctx.tx(() => {
    const agent = agentRow(ctx, platformId, agentId);
    const now = ctx.clock.iso();
    repoOf(ctx).invalidateDeviceCodes(agent.id, now);
    repoOf(ctx).updateAgent({ ...agent, token_hash: null, updated_at: now, deleted_at: now });
  });
}

/**
 * `PATCH /agents/{agentId}/policy`: a partial update, effective for the next request. A new
 * `spendingLimits.currency` recasts the limits not given in the same request into it.
 */
export function updatePolicy(ctx: SandboxContext, platformId: string, agentId: string, update: AgentPolicyUpdate): Record<string, unknown> {
  return ctx.tx(() => {
    const agent = agentRow(ctx, platformId, agentId);
    const current = policyOf(agent);
    const limits = { ...current.spendingLimits };
    const patch = update.spendingLimits ?? {};
    if (patch.currency !== undefined && patch.currency !== limits.currency) {
      currencyInfo(patch.currency, 'spendingLimits.currency');
      const recast = (n: number | null | undefined) => (n === null || n === undefined ? n : convert(ctx, n, limits.currency, patch.currency!));
      limits.perTransactionLimit = recast(limits.perTransactionLimit)!;
      limits.dailyLimit = recast(limits.dailyLimit);
      limits.monthlyLimit = recast(limits.monthlyLimit);
      limits.currency = patch.currency;
    }
    for (const [key, value] of Object.entries(patch)) {
      if (value !== undefined) (limits as Record<string, unknown>)[key] = value;
    }
    const policy: AgentPolicy = {
      permissions: update.permissions ?? current.permissions,
      defaultExecutionMode: update.defaultExecutionMode ?? current.defaultExecutionMode,
      spendingLimits: limits,
      ...(update.accountRestrictions ?? current.accountRestrictions ? { accountRestrictions: update.accountRestrictions ?? current.accountRestrictions } : {}),
      ...(update.approvalThresholds ?? current.approvalThresholds ? { approvalThresholds: update.approvalThresholds ?? current.approvalThresholds } : {}),
    };
    checkPolicyAccounts(ctx, platformId, agent.customer_id, policy, '');
    const next = { ...agent, policy: JSON.stringify(policy), updated_at: ctx.clock.iso() };
    repoOf(ctx).updateAgent(next);
    return presentAgent(ctx, next);
  });
}

/** `POST /agents/{agentId}/device-codes`: a new code; earlier unredeemed ones stop working. `409` once connected. */
export function regenerateDeviceCode(ctx: SandboxContext, platformId: string, agentId: string): Record<string, unknown> {
  return ctx.tx(() => {
    const agent = agentRow(ctx, platformId, agentId);
    if (agent.is_connected === 1) {
      throw new ApiError(409, ErrorCode.CONFLICT, `Agent ${agentId} is already connected; delete it and create a new one to reinstall.`);
    }
    return issueDeviceCode(ctx, agent);
  });
}

/** `GET /agents/device-codes/{code}/status` (platform credentials): whether the platform's code was redeemed. */
export function deviceCodeStatus(ctx: SandboxContext, platformId: string, code: string): Record<string, unknown> {
  const row = DEVICE_CODE.test(code) ? repoOf(ctx).deviceCode(sha256(code)) : undefined;
  if (!row || row.platform_id !== platformId) throw notFound('TOKEN_NOT_FOUND', 'No such device code on this platform.');
  return { code, redeemed: row.redeemed_at !== null };
}

/**
 * `POST /agents/device-codes/{code}/redeem` (no platform credentials: the code is the proof).
 * Single use, expiring on the sandbox clock; returns the bearer `accessToken` once and keeps
 * only its hash.
 */
export function redeemDeviceCode(ctx: SandboxContext, code: string): Record<string, unknown> {
  if (!DEVICE_CODE.test(code)) {
    throw new ApiError(400, ErrorCode.INVALID_INPUT, 'This is not a device code: expected SERVICE-AGENT-XXXX-XXXX.', {
      errors: [{ field: 'code', constraint: { pattern: DEVICE_CODE.source }, message: 'Use the code returned by POST /agents.' }],
    });
  }
  return ctx.tx(() => {
    const repo = repoOf(ctx);
    const hash = sha256(code);
    const row = repo.deviceCode(hash);
    if (!row) throw notFound('TOKEN_NOT_FOUND', 'No such device code.');
    if (row.redeemed_at !== null) throw new ApiError(400, ErrorCode.INVALID_INPUT, 'This device code was already redeemed.', { reason: 'DEVICE_CODE_ALREADY_REDEEMED' });
    if (row.invalidated_at !== null) throw new ApiError(400, ErrorCode.INVALID_INPUT, 'This device code was replaced by a newer one.', { reason: 'DEVICE_CODE_INVALIDATED' });
    if (ctx.clock.now() >= row.expires_at) throw new ApiError(400, ErrorCode.INVALID_INPUT, 'This device code has expired; regenerate one.', { reason: 'DEVICE_CODE_EXPIRED' });
    const agent = repo.agentById(row.platform_id, row.agent_id);
    if (!agent) throw notFound('TOKEN_NOT_FOUND', 'No such device code.');
    if (!repo.redeemDeviceCode(hash, ctx.clock.iso())) throw new ApiError(400, ErrorCode.INVALID_INPUT, 'This device code was already redeemed.', { reason: 'DEVICE_CODE_ALREADY_REDEEMED' });
    const accessToken = `sbx_agent_${entropy(ctx, agent.id).toString('base64url')}`;
    repo.updateAgent({ ...agent, is_connected: 1, token_hash: sha256(accessToken), updated_at: ctx.clock.iso() });
    return { agentId: agent.id, agentName: agent.name, accessToken, policy: policyOf(agent) };
  });
}

/**
 * AgentAuth: the agent of an `Authorization: Bearer <accessToken>` header and its platform, or
 * `401` naming the failed check. A deleted agent's token no longer matches anything.
 */
export function authenticateAgent(ctx: SandboxContext, header: string | undefined): AuthenticatedAgent {
  if (!header) throw unauthorized('missing Authorization header; send Bearer <accessToken> from the device code redemption');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized('agent operations take Bearer <accessToken>, not platform credentials');
  const agent = repoOf(ctx).agentByToken(sha256(match[1]!));
  if (!agent) throw unauthorized('unknown or revoked access token');
  const platform = platformService(ctx).byId(agent.platform_id);
  if (!platform) throw unauthorized('unknown or revoked access token');
  return { agent, platform };
}

// ---------------------------------------------------------------------------------------------
// Policy
// ---------------------------------------------------------------------------------------------

/**
 * A refusal by policy: `403 FORBIDDEN` naming the rule, or, on the operations whose contract
 * declares no 403 (transactions, external accounts), `401 UNAUTHORIZED` naming it: the agent's
 * credentials do not reach that far.
 */
const refused = (status: 401 | 403, rule: string, message: string, details: Record<string, unknown> = {}) =>
  status === 403 ? forbidden(rule, message, details) : new ApiError(401, ErrorCode.UNAUTHORIZED, message, { reason: message, rule, ...details });

function requirePermission(agent: AgentRow, permission: AgentPermission, status: 401 | 403 = 403): void {
  if (!policyOf(agent).permissions.includes(permission)) {
    throw refused(status, 'permissions', `The agent's policy does not grant ${permission}.`, { permission });
  }
}

function requireActive(agent: AgentRow, status: 401 | 403 = 403): void {
  if (agent.is_paused === 1) throw refused(status, 'isPaused', 'The agent is paused and cannot initiate actions.');
}

/** The internal account must be the agent's customer's and allowed by `accountRestrictions.allowedAccountIds`. */
function checkAllowedAccount(agent: AgentRow, accountId: string): void {
  const allowed = policyOf(agent).accountRestrictions?.allowedAccountIds;
  if (Array.isArray(allowed) && !allowed.includes(accountId)) {
    throw forbidden('accountRestrictions.allowedAccountIds', `The agent's policy does not allow account ${accountId}.`, { accountId });
  }
}

/**
 * Evaluates the policy for a money movement of `amount` `currency` on the internal account
 * `accountId`: per-transaction limit (an account rule overrides it, in the account's currency),
 * daily count, daily and monthly spend (UTC day and month on the sandbox clock), then the
 * execution mode: the account rule's or the default, forced to approval above
 * `approvalThresholds.amount`. Outside policy: `403 FORBIDDEN` with `details.rule`.
 */
function evaluate(ctx: SandboxContext, agent: AgentRow, accountId: string, amount: number, currency: string): 'AUTO' | 'APPROVAL_REQUIRED' {
  const policy = policyOf(agent);
  checkAllowedAccount(agent, accountId);
  const rule = policy.accountRestrictions?.accountRules?.find((r) => r.accountId === accountId);
  const limits = policy.spendingLimits;
  const inLimitCurrency = convert(ctx, amount, currency, limits.currency);
  if (rule?.perTransactionLimit !== undefined && rule.perTransactionLimit !== null) {
    if (amount > rule.perTransactionLimit) {
      throw forbidden('accountRestrictions.accountRules.perTransactionLimit', `${amount} ${currency} is above the per-transaction limit of ${rule.perTransactionLimit} for account ${accountId}.`, {
        limit: rule.perTransactionLimit,
        amount,
        currency,
      });
    }
  } else if (inLimitCurrency > limits.perTransactionLimit) {
    throw forbidden('spendingLimits.perTransactionLimit', `${inLimitCurrency} ${limits.currency} is above the per-transaction limit of ${limits.perTransactionLimit}.`, {
      limit: limits.perTransactionLimit,
      amount: inLimitCurrency,
      currency: limits.currency,
    });
  }
  const periodLimited = limits.dailyTransactionLimit !== undefined || (limits.dailyLimit ?? null) !== null || (limits.monthlyLimit ?? null) !== null;
  const usage = periodLimited ? usageOf(ctx, agent, policy) : undefined;
  if (usage && limits.dailyTransactionLimit !== undefined && usage.dailyTransactionCount + 1 > limits.dailyTransactionLimit) {
    throw forbidden('spendingLimits.dailyTransactionLimit', `The agent reached its ${limits.dailyTransactionLimit} transactions for today; the count resets on ${usage.dailyResetDate}.`, {
      limit: limits.dailyTransactionLimit,
      used: usage.dailyTransactionCount,
    });
  }
  if (usage && limits.dailyLimit !== undefined && limits.dailyLimit !== null && usage.dailySpend + inLimitCurrency > limits.dailyLimit) {
    throw forbidden('spendingLimits.dailyLimit', `${inLimitCurrency} ${limits.currency} would exceed the daily limit of ${limits.dailyLimit} (${usage.dailySpend} spent today).`, {
      limit: limits.dailyLimit,
      used: usage.dailySpend,
      amount: inLimitCurrency,
    });
  }
  if (usage && limits.monthlyLimit !== undefined && limits.monthlyLimit !== null && usage.monthlySpend + inLimitCurrency > limits.monthlyLimit) {
    throw forbidden('spendingLimits.monthlyLimit', `${inLimitCurrency} ${limits.currency} would exceed the monthly limit of ${limits.monthlyLimit} (${usage.monthlySpend} spent this month).`, {
      limit: limits.monthlyLimit,
      used: usage.monthlySpend,
      amount: inLimitCurrency,
    });
  }
  const mode = rule?.executionMode ?? policy.defaultExecutionMode;
  if (mode === 'APPROVAL_REQUIRED') return mode;
  const threshold = policy.approvalThresholds;
  if (threshold?.amount !== undefined && threshold.amount !== null && convert(ctx, amount, currency, threshold.currency ?? limits.currency) > threshold.amount) {
    return 'APPROVAL_REQUIRED';
  }
  return 'AUTO';
}

// ---------------------------------------------------------------------------------------------
// Actions
// ---------------------------------------------------------------------------------------------

type Submission =
  | { type: 'EXECUTE_QUOTE'; quoteId: string; transactionId: string }
  | { type: 'TRANSFER_OUT'; request: TransferOutRequest & { amount: number }; details: Record<string, unknown> }
  | { type: 'TRANSFER_IN'; request: TransferInRequest; details: Record<string, unknown> };

/**
 * Runs the underlying operation through its own area's service; returns the resulting
 * transaction's id, and the executed quote as the quotes service presented it (for an
 * EXECUTE_QUOTE: the action shows it as it stands, with nothing changed since).
 */
function execute(ctx: SandboxContext, platform: Platform, submission: Submission): { transactionId: string; quote?: Record<string, unknown> } {
  if (submission.type === 'EXECUTE_QUOTE') {
    const quote = executeQuote(ctx, platform, submission.quoteId);
    return { transactionId: submission.transactionId, quote };
  }
  if (submission.type === 'TRANSFER_OUT') return { transactionId: transferOut(ctx, platform, submission.request).id };
  return { transactionId: transferIn(ctx, platform, submission.request).id };
}

function appendTransition(ctx: SandboxContext, row: ActionRow): void {
  ctx.outbox.append(row.platform_id, AGENT_ACTION_EVENT, row.id, presentAction(ctx, row));
}

/**
 * Submits an action: within policy it executes at once (status `APPROVED`, with its
 * transaction); otherwise it waits in `PENDING_APPROVAL` and the agent-action webhook fires.
 */
function submit(ctx: SandboxContext, principal: AuthenticatedAgent, submission: Submission, mode: 'AUTO' | 'APPROVAL_REQUIRED', amount: number, currency: string): Record<string, unknown> {
  const { agent, platform } = principal;
  const customer = getCustomer(ctx, platform.id, agent.customer_id);
  const executed = mode === 'AUTO' ? execute(ctx, platform, submission) : undefined;
  const transactionId = executed?.transactionId ?? null;
  const now = ctx.clock.now();
  const row: ActionRow = {
    id: ctx.ids.next('AgentAction'),
    platform_id: platform.id,
    agent_id: agent.id,
    customer_id: agent.customer_id,
    platform_customer_id: customer.platformCustomerId,
    status: mode === 'AUTO' ? 'APPROVED' : 'PENDING_APPROVAL',
    type: submission.type,
    quote_id: submission.type === 'EXECUTE_QUOTE' ? submission.quoteId : null,
    // The transaction awaiting platform approval: a quote's transaction id is fixed at quote time.
    pending_transaction_id: submission.type === 'EXECUTE_QUOTE' ? submission.transactionId : null,
    transaction_id: transactionId,
    request: submission.type === 'EXECUTE_QUOTE' ? null : JSON.stringify(submission.request),
    transfer_details: submission.type === 'EXECUTE_QUOTE' ? null : JSON.stringify(submission.details),
    amount,
    currency,
    rejection_reason: null,
    created_ms: now,
    created_at: new Date(now).toISOString(),
    updated_at: new Date(now).toISOString(),
  };
  repoOf(ctx).insertAction(row);
  countUsage(ctx, row, 1);
  if (row.status === 'PENDING_APPROVAL') appendTransition(ctx, row);
  return presentAction(ctx, row, executed?.quote);
}

function submissionOf(row: ActionRow): Submission {
  if (row.type === 'EXECUTE_QUOTE') return { type: 'EXECUTE_QUOTE', quoteId: row.quote_id!, transactionId: row.pending_transaction_id! };
  const details = JSON.parse(row.transfer_details!) as Record<string, unknown>;
  if (row.type === 'TRANSFER_OUT') return { type: 'TRANSFER_OUT', request: JSON.parse(row.request!) as TransferOutRequest & { amount: number }, details };
  return { type: 'TRANSFER_IN', request: JSON.parse(row.request!) as TransferInRequest, details };
}

function pendingAction(ctx: SandboxContext, platformId: string, agentId: string, actionId: string): ActionRow {
  agentRow(ctx, platformId, agentId);
  const row = repoOf(ctx).actionById(platformId, actionId);
  if (!row || row.agent_id !== agentId) throw notFound('REFERENCE_NOT_FOUND', `No action ${actionId} of agent ${agentId}.`);
  if (row.status !== 'PENDING_APPROVAL') {
    throw new ApiError(409, ErrorCode.CONFLICT, `Action ${actionId} is ${row.status}, not PENDING_APPROVAL: it was already processed.`, { status: row.status });
  }
  return row;
}

/**
 * `POST /agents/{agentId}/actions/{actionId}/approve`: runs the underlying quote execution or
 * transfer through its own service. When that fails (the quote expired meanwhile, the funds
 * are short) the action becomes `FAILED` and nothing moves.
 */
export function approveAction(ctx: SandboxContext, platform: Platform, agentId: string, actionId: string): Record<string, unknown> {
  return approveWithOutcome(ctx, platform, agentId, actionId).action;
}

/** `approveAction`, also giving the error the execution failed with (when the action became `FAILED`). */
function approveWithOutcome(ctx: SandboxContext, platform: Platform, agentId: string, actionId: string): { action: Record<string, unknown>; failure?: ApiError } {
  return ctx.tx(() => {
    const row = pendingAction(ctx, platform.id, agentId, actionId);
    let status = 'APPROVED';
    let transactionId: string | null = null;
    let failure: ApiError | undefined;
    try {
      transactionId = execute(ctx, platform, submissionOf(row)).transactionId;
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      status = 'FAILED';
      failure = error;
    }
    const now = ctx.clock.iso();
    repoOf(ctx).decideAction(row.id, status, transactionId, null, now);
    if (status === 'FAILED') countUsage(ctx, row, -1);
    const next = { ...row, status, transaction_id: transactionId, updated_at: now };
    appendTransition(ctx, next);
    return { action: presentAction(ctx, next), ...(failure ? { failure } : {}) };
  });
}

/** `POST /agents/{agentId}/actions/{actionId}/reject`: nothing executes; the reason is kept. */
export function rejectAction(ctx: SandboxContext, platform: Platform, agentId: string, actionId: string, reason: string | undefined): Record<string, unknown> {
  return ctx.tx(() => {
    const row = pendingAction(ctx, platform.id, agentId, actionId);
    const now = ctx.clock.iso();
    repoOf(ctx).decideAction(row.id, 'REJECTED', null, reason ?? null, now);
    countUsage(ctx, row, -1);
    const next = { ...row, status: 'REJECTED', rejection_reason: reason ?? null, updated_at: now };
    appendTransition(ctx, next);
    return presentAction(ctx, next);
  });
}

/**
 * `POST /transactions/{id}/approve|reject` for an agent's transaction pending platform approval
 * (the quote's `transactionId` of a `PENDING_APPROVAL` EXECUTE_QUOTE action). Returns
 * `undefined` when the id is no such transaction, so the caller answers as before. Approving
 * answers the resulting transaction; rejecting answers the rejected AgentAction, since no
 * transaction was made. An approval whose execution fails leaves the action `FAILED` and answers
 * the execution's own 400 (a shortfall: `INVALID_AMOUNT`, reason `INSUFFICIENT_FUNDS`), or else
 * `409 TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL` (the quote expired meanwhile).
 */
export function decideAgentTransaction(
  ctx: SandboxContext,
  platform: Platform,
  transactionId: string,
  decision: 'APPROVE' | 'REJECT',
  reason?: string,
): Record<string, unknown> | undefined {
  const row = repoOf(ctx).pendingActionByTransaction(platform.id, transactionId);
  if (!row) return undefined;
  if (decision === 'REJECT') return rejectAction(ctx, platform, row.agent_id, row.id, reason);
  const { action, failure } = approveWithOutcome(ctx, platform, row.agent_id, row.id);
  if (action.status !== 'APPROVED') {
    // A shortfall (or another amount the execution refuses) is answered as the platform's own
    // execution answers it: one error code for one shortfall on every path (400 INVALID_AMOUNT,
    // reason INSUFFICIENT_FUNDS). The action is FAILED, as through /agents/{id}/actions/{id}/approve.
    if (failure?.status === 400) {
      throw new ApiError(400, failure.code, failure.message, { ...failure.details, agentActionId: row.id, actionStatus: action.status });
    }
    throw new ApiError(409, 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL', `Transaction ${transactionId} could not be executed (agent action ${row.id} is ${String(action.status)}).`, {
      agentActionId: row.id,
      actionStatus: action.status,
    });
  }
  return getTransaction(ctx, platform.id, transactionId);
}

/** `GET /agents/approvals`: actions waiting for the platform's decision. */
export function listApprovals(
  ctx: SandboxContext,
  platformId: string,
  query: ActionFilter & { limit: number; cursor?: string | undefined; sortOrder: 'asc' | 'desc' },
): Page<Record<string, unknown>> {
  const filter: ActionFilter = {
    agentId: query.agentId,
    customerId: query.customerId,
    status: 'PENDING_APPROVAL',
    startDate: query.startDate && new Date(query.startDate).toISOString(),
    endDate: query.endDate && new Date(query.endDate).toISOString(),
  };
  const repo = repoOf(ctx);
  return paginate(query, (r) => repo.actionPage(platformId, filter, r, query.sortOrder), () => repo.actionCount(platformId, filter), (row) => row.id, (row) => presentAction(ctx, row));
}

// ---------------------------------------------------------------------------------------------
// Agent operations (bearer)
// ---------------------------------------------------------------------------------------------

/** `GET /agents/me`. */
export function getMe(ctx: SandboxContext, principal: AuthenticatedAgent): Record<string, unknown> {
  return presentAgent(ctx, principal.agent);
}

/** An internal account of the agent's customer, or `404 REFERENCE_NOT_FOUND` (another customer's included). */
function ownInternalAccount(ctx: SandboxContext, principal: AuthenticatedAgent, accountId: string): InternalAccountRow {
  const account = internalAccountOf(ctx, principal.platform.id, accountId);
  if (account.customer_id !== principal.agent.customer_id) throw notFound('REFERENCE_NOT_FOUND', `No internal account ${accountId} of this agent's customer.`);
  return account;
}

/** An external account of the agent's customer, or `404` (another customer's included). */
function ownExternalAccount(ctx: SandboxContext, principal: AuthenticatedAgent, accountId: string): ExternalAccount {
  const account = getExternalAccountFor(ctx, principal.platform.id, accountId, 'customer');
  if (account.customerId !== principal.agent.customer_id) throw notFound('REFERENCE_NOT_FOUND', `No external account ${accountId} of this agent's customer.`);
  return account;
}

/** A 404 on a request field becomes 400 there (for operations without a 404). */
function asField<T>(field: string, lookup: () => T): T {
  try {
    return lookup();
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      throw new ApiError(400, ErrorCode.INVALID_INPUT, error.message, { errors: [{ field, constraint: { rule: 'agent-customer' }, message: error.message }] });
    }
    throw error;
  }
}

/** `GET /agents/me/internal-accounts`: the customer's accounts the policy lets the agent use. */
export function listOwnInternalAccounts(
  ctx: SandboxContext,
  principal: AuthenticatedAgent,
  query: { limit: number; cursor?: string | undefined; currency?: string | undefined; type?: string | undefined },
): Page<Record<string, unknown>> {
  const allowed = policyOf(principal.agent).accountRestrictions?.allowedAccountIds;
  const rows = accountsOfCustomer(ctx, principal.platform.id, principal.agent.customer_id)
    .filter((row) => (query.currency === undefined || row.currency === query.currency) && (query.type === undefined || row.type === query.type))
    .filter((row) => !Array.isArray(allowed) || allowed.includes(row.id))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return paginate(
    query,
    ({ afterKey, take }) => rows.filter((row) => afterKey === undefined || row.id > afterKey).slice(0, take),
    () => rows.length,
    (row) => row.id,
    (row) => presentInternalAccount(ctx, row),
  );
}

/** `GET /agents/me/external-accounts` (MANAGE_EXTERNAL_ACCOUNTS). */
export function listOwnExternalAccounts(ctx: SandboxContext, principal: AuthenticatedAgent, query: { limit: number; cursor?: string | undefined; currency?: string | undefined }): Page<ExternalAccount> {
  requirePermission(principal.agent, 'MANAGE_EXTERNAL_ACCOUNTS', 401);
  return listExternalAccounts(ctx, principal.platform, { ...query, customerId: principal.agent.customer_id }, 'customer');
}

/** `POST /agents/me/external-accounts` (MANAGE_EXTERNAL_ACCOUNTS): `customerId` is the agent's customer. */
export function createOwnExternalAccount(ctx: SandboxContext, principal: AuthenticatedAgent, input: Parameters<typeof createExternalAccount>[2]): ExternalAccount {
  requirePermission(principal.agent, 'MANAGE_EXTERNAL_ACCOUNTS', 401);
  requireActive(principal.agent, 401);
  if (input.customerId !== undefined && input.customerId !== principal.agent.customer_id) {
    throw new ApiError(400, ErrorCode.INVALID_INPUT, 'An agent adds external accounts for its own customer only.', {
      errors: [{ field: 'customerId', constraint: { enum: [principal.agent.customer_id] }, message: 'Omit customerId or send the agent\'s customer.' }],
    });
  }
  return createExternalAccount(ctx, principal.platform, { ...input, customerId: principal.agent.customer_id }, 'customer');
}

/** `GET /agents/me/external-accounts/{id}` (MANAGE_EXTERNAL_ACCOUNTS). */
export function getOwnExternalAccount(ctx: SandboxContext, principal: AuthenticatedAgent, id: string): ExternalAccount {
  requirePermission(principal.agent, 'MANAGE_EXTERNAL_ACCOUNTS', 401);
  return ownExternalAccount(ctx, principal, id);
}

/** `DELETE /agents/me/external-accounts/{id}` (MANAGE_EXTERNAL_ACCOUNTS). */
export function deleteOwnExternalAccount(ctx: SandboxContext, principal: AuthenticatedAgent, id: string): void {
  requirePermission(principal.agent, 'MANAGE_EXTERNAL_ACCOUNTS', 401);
  requireActive(principal.agent, 401);
  ctx.tx(() => {
    ownExternalAccount(ctx, principal, id);
    deleteExternalAccount(ctx, principal.platform.id, id, 'customer');
  });
}

/**
 * `POST /agents/me/quotes` (CREATE_QUOTES): every account named must be the customer's (and
 * allowed by the policy); the quote is made by the quotes service and remembered as this
 * agent's. `immediatelyExecute` goes through the same policy as `/execute`.
 */
export function createOwnQuote(ctx: SandboxContext, principal: AuthenticatedAgent, request: QuoteRequest): { status: number; body: unknown } {
  const { agent, platform } = principal;
  requirePermission(agent, 'CREATE_QUOTES');
  requireActive(agent);
  if (request.immediatelyExecute) requirePermission(agent, 'EXECUTE_QUOTES');
  return ctx.tx(() => {
    const source = request.source;
    if (source.sourceType === 'ACCOUNT') {
      asField('source.accountId', () => ownInternalAccount(ctx, principal, source.accountId));
      checkAllowedAccount(agent, source.accountId);
    } else if (source.customerId !== undefined && source.customerId !== agent.customer_id) {
      throw new ApiError(400, ErrorCode.INVALID_INPUT, 'An agent quotes for its own customer only.', {
        errors: [{ field: 'source.customerId', constraint: { enum: [agent.customer_id] }, message: 'Omit customerId or send the agent\'s customer.' }],
      });
    }
    const destination = request.destination;
    if (destination.destinationType === 'ACCOUNT') {
      if (destination.accountId.startsWith('InternalAccount:')) {
        asField('destination.accountId', () => ownInternalAccount(ctx, principal, destination.accountId));
        checkAllowedAccount(agent, destination.accountId);
      } else {
        asField('destination.accountId', () => ownExternalAccount(ctx, principal, destination.accountId));
      }
    }
    const forCustomer: QuoteRequest =
      source.sourceType === 'REALTIME_FUNDING' ? { ...request, source: { ...source, customerId: agent.customer_id }, immediatelyExecute: false } : { ...request, immediatelyExecute: false };
    const created = createQuote(ctx, platform, forCustomer);
    const quote = created.body as { id: string };
    repoOf(ctx).insertAgentQuote(quote.id, agent.id, platform.id);
    if (request.immediatelyExecute && source.sourceType === 'ACCOUNT') {
      executeOwnQuote(ctx, principal, quote.id);
      return { status: 201, body: getQuote(ctx, platform.id, quote.id) };
    }
    return created;
    // Its refusals and the quotes service's come before the first write, but for an immediate execution's.
  }, { checksFirst: !request.immediatelyExecute });
}

function ownQuote(ctx: SandboxContext, principal: AuthenticatedAgent, quoteId: string): Record<string, unknown> {
  if (!repoOf(ctx).isAgentQuote(quoteId, principal.agent.id)) throw notFound('QUOTE_NOT_FOUND', `No quote ${quoteId} created by this agent.`);
  return getQuote(ctx, principal.platform.id, quoteId);
}

/** Whether the quote's transaction exists, i.e. the quote was executed (by anyone). */
function isExecuted(ctx: SandboxContext, platformId: string, transactionId: string): boolean {
  return findTransaction(ctx, platformId, transactionId) !== undefined;
}

/** `GET /agents/me/quotes/{quoteId}`: only quotes this agent created. */
export function getOwnQuote(ctx: SandboxContext, principal: AuthenticatedAgent, quoteId: string): Record<string, unknown> {
  return ownQuote(ctx, principal, quoteId);
}

/**
 * `POST /agents/me/quotes/{quoteId}/execute` (EXECUTE_QUOTES): the policy decides between
 * executing now (through the quotes service) and waiting for the platform's approval.
 */
export function executeOwnQuote(ctx: SandboxContext, principal: AuthenticatedAgent, quoteId: string): Record<string, unknown> {
  const { agent } = principal;
  requirePermission(agent, 'EXECUTE_QUOTES');
  requireActive(agent);
  return ctx.tx(() => {
    const quote = ownQuote(ctx, principal, quoteId) as {
      status: string;
      transactionId: string;
      source: { sourceType: string; accountId?: string };
      totalSendingAmount: number;
      sendingCurrency: { code: string };
    };
    const open = repoOf(ctx).openActionForQuote(quoteId);
    if (open) throw new ApiError(409, ErrorCode.CONFLICT, `Quote ${quoteId} was already submitted as action ${open.id} (${open.status}).`, { agentActionId: open.id });
    if (isExecuted(ctx, principal.platform.id, quote.transactionId)) {
      throw new ApiError(409, ErrorCode.CONFLICT, `Quote ${quoteId} was already executed; its transaction is ${quote.transactionId}.`, { reason: 'QUOTE_ALREADY_EXECUTED' });
    }
    if (quote.status === 'EXPIRED') throw new ApiError(409, ErrorCode.CONFLICT, `Quote ${quoteId} has expired; request a new quote.`, { reason: 'QUOTE_EXPIRED' });
    if (quote.source.sourceType !== 'ACCOUNT' || quote.source.accountId === undefined) {
      throw new ApiError(400, ErrorCode.INVALID_INPUT, `Quote ${quoteId} is funded in real time: pay its paymentInstructions instead of executing it.`);
    }
    const mode = evaluate(ctx, agent, quote.source.accountId, quote.totalSendingAmount, quote.sendingCurrency.code);
    // The policy's refusals, then the quotes service's (before its first write): `checksFirst`.
    return submit(ctx, principal, { type: 'EXECUTE_QUOTE', quoteId, transactionId: quote.transactionId }, mode, quote.totalSendingAmount, quote.sendingCurrency.code);
  }, { checksFirst: true });
}

/** `POST /agents/me/transfer-out` (CREATE_TRANSFERS): from the customer's internal account to its external one. */
export function ownTransferOut(ctx: SandboxContext, principal: AuthenticatedAgent, request: TransferOutRequest): Record<string, unknown> {
  const { agent } = principal;
  requirePermission(agent, 'CREATE_TRANSFERS');
  requireActive(agent);
  return ctx.tx(() => {
    const source = ownInternalAccount(ctx, principal, request.source.accountId);
    ownExternalAccount(ctx, principal, request.destination.accountId);
    const amount = request.amount ?? balancesOf(ctx, source.id).available;
    const mode = evaluate(ctx, agent, source.id, amount, source.currency);
    const details = { amount, currency: source.currency, sourceAccountId: source.id, destinationAccountId: request.destination.accountId };
    return submit(ctx, principal, { type: 'TRANSFER_OUT', request: { ...request, amount }, details }, mode, amount, source.currency);
  });
}

/** `POST /agents/me/transfer-in` (CREATE_TRANSFERS): from the customer's external account into its internal one. */
export function ownTransferIn(ctx: SandboxContext, principal: AuthenticatedAgent, request: TransferInRequest): Record<string, unknown> {
  const { agent } = principal;
  requirePermission(agent, 'CREATE_TRANSFERS');
  requireActive(agent);
  return ctx.tx(() => {
    const destination = ownInternalAccount(ctx, principal, request.destination.accountId);
    ownExternalAccount(ctx, principal, request.source.accountId);
    // The contract makes `amount` optional: the same sandbox default as the platform's own transfer-in.
    const amount = request.amount ?? defaultTransferInAmount(principal.platform, destination.currency);
    const bound = { ...request, amount };
    const mode = evaluate(ctx, agent, destination.id, amount, destination.currency);
    const details = { amount, currency: destination.currency, sourceAccountId: request.source.accountId, destinationAccountId: destination.id };
    return submit(ctx, principal, { type: 'TRANSFER_IN', request: bound, details }, mode, amount, destination.currency);
  });
}

/** `GET /agents/me/transactions` (VIEW_TRANSACTIONS): the customer's transactions only. */
export function listOwnTransactions(
  ctx: SandboxContext,
  principal: AuthenticatedAgent,
  query: Parameters<typeof listTransactions>[2],
): Page<TransactionBody> {
  requirePermission(principal.agent, 'VIEW_TRANSACTIONS', 401);
  return listTransactions(ctx, principal.platform.id, {
    ...query,
    customerId: principal.agent.customer_id,
    platformCustomerId: undefined,
    startDate: query.startDate === undefined ? undefined : new Date(query.startDate).toISOString(),
    endDate: query.endDate === undefined ? undefined : new Date(query.endDate).toISOString(),
  });
}

/** `GET /agents/me/transactions/{id}` (VIEW_TRANSACTIONS): another customer's transaction is a 404. */
export function getOwnTransaction(ctx: SandboxContext, principal: AuthenticatedAgent, transactionId: string): TransactionBody {
  requirePermission(principal.agent, 'VIEW_TRANSACTIONS', 401);
  const transaction = getTransaction(ctx, principal.platform.id, transactionId);
  if (transaction.customerId !== principal.agent.customer_id) throw notFound('TRANSACTION_NOT_FOUND', `No transaction ${transactionId} of this agent's customer.`);
  return transaction;
}

/** `GET /agents/me/actions`. */
export function listOwnActions(ctx: SandboxContext, principal: AuthenticatedAgent, query: { limit: number; cursor?: string | undefined; status?: string | undefined }): Page<Record<string, unknown>> {
  const filter: ActionFilter = { agentId: principal.agent.id, status: query.status };
  const repo = repoOf(ctx);
  const platformId = principal.platform.id;
  return paginate(query, (r) => repo.actionPage(platformId, filter, r, 'desc'), () => repo.actionCount(platformId, filter), (row) => row.id, (row) => presentAction(ctx, row));
}

/** `GET /agents/me/actions/{actionId}`: only this agent's actions. */
export function getOwnAction(ctx: SandboxContext, principal: AuthenticatedAgent, actionId: string): Record<string, unknown> {
  const row = repoOf(ctx).actionById(principal.platform.id, actionId);
  if (!row || row.agent_id !== principal.agent.id) throw notFound('REFERENCE_NOT_FOUND', `No action ${actionId} of this agent.`);
  return presentAction(ctx, row);
}

/** Wipes a platform's agents, codes and actions (sandbox reset). */
export function removePlatformAgents(ctx: SandboxContext, platformId: string): void {
  repoOf(ctx).removePlatform(platformId);
}

