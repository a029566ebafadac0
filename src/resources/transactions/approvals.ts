import { ApiError } from '../../core/errors.js';
import { perContext } from '../../core/per-context.js';
import type { SandboxContext } from '../../store/context.js';
import { ApprovalRepo } from './approvals-repo.js';
import { getTransaction, type TransactionBody } from './service.js';

/** The contract's conflict for approve/reject of a transaction that is not waiting for the platform. */
export const TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL = 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL';

/** Job kind: a pending approval's window closes. */
export const APPROVAL_EXPIRY_JOB = 'transactions.approval.expire';

/** How a decision reached the transaction. */
export type ApprovalDecision =
  | { decision: 'APPROVE'; via: 'API' | 'WEBHOOK'; receiverCustomerInfo?: Record<string, unknown> | undefined }
  | { decision: 'REJECT'; via: 'API' | 'WEBHOOK' | 'EXPIRY'; reason?: string | undefined };

/**
 * What one kind of pending transaction does when the platform decides. Each function runs
 * inside the transaction that removes the pending approval, and returns the transaction as it
 * now is (status changes and their events through `updateTransaction`).
 */
export interface ApprovalKind {
  approve(ctx: SandboxContext, platformId: string, transaction: TransactionBody, data: unknown, decision: Extract<ApprovalDecision, { decision: 'APPROVE' }>): TransactionBody;
  reject(ctx: SandboxContext, platformId: string, transaction: TransactionBody, data: unknown, decision: Extract<ApprovalDecision, { decision: 'REJECT' }>): TransactionBody;
}

const kinds = new Map<string, ApprovalKind>();

/**
 * Registers the approve/reject handlers of a kind of pending transaction (e.g. `UMA_INCOMING`,
 * an agent's action). Call it once at module top level of the owning area's index.ts.
 */
export function registerApprovalKind(kind: string, handlers: ApprovalKind): void {
  const existing = kinds.get(kind);
  if (existing && existing !== handlers) throw new Error(`an approval kind ${kind} is already registered`);
  kinds.set(kind, handlers);
}

const repoOf = perContext((ctx: SandboxContext) => new ApprovalRepo(ctx.db));

/**
 * Marks a transaction as pending platform approval of a kind, with the data its handlers need.
 * With `expiresInMs`, a job on the sandbox clock rejects it (`via: 'EXPIRY'`) if nobody decided
 * by then. Call it inside the transaction that records the transaction.
 */
export function holdForApproval(ctx: SandboxContext, platformId: string, transactionId: string, kind: string, options: { data?: unknown; expiresInMs?: number } = {}): void {
  if (!kinds.has(kind)) throw new Error(`no approval kind ${kind}`);
  const job = options.expiresInMs === undefined ? undefined : ctx.scheduler.schedule(platformId, APPROVAL_EXPIRY_JOB, options.expiresInMs, { transactionId });
  repoOf(ctx).insert({
    transaction_id: transactionId,
    platform_id: platformId,
    kind,
    data: JSON.stringify(options.data ?? null),
    expiry_job_id: job?.id ?? null,
    created_at: ctx.clock.iso(),
  });
}

/** The kind of approval a transaction waits for, or undefined when it waits for none. */
export function pendingApprovalOf(ctx: SandboxContext, platformId: string, transactionId: string): { kind: string; data: unknown } | undefined {
  const row = repoOf(ctx).byId(platformId, transactionId);
  return row ? { kind: row.kind, data: JSON.parse(row.data) as unknown } : undefined;
}

/**
 * Decides a pending transaction: dispatches to its kind's handler and removes the pending
 * approval, in one transaction. `404 TRANSACTION_NOT_FOUND` for an unknown id, `409
 * TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL` when it waits for no approval (any more).
 */
export function decideTransaction(ctx: SandboxContext, platformId: string, transactionId: string, decision: ApprovalDecision): TransactionBody {
  return ctx.tx(() => {
    const transaction = getTransaction(ctx, platformId, transactionId);
    const repo = repoOf(ctx);
    const row = repo.byId(platformId, transactionId);
    const kind = row ? kinds.get(row.kind) : undefined;
    if (!row || !kind) {
      throw new ApiError(409, TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL, `Transaction ${transactionId} is not pending platform approval (it is ${transaction.status}).`, {
        transactionId,
        status: transaction.status,
      });
    }
    repo.remove(transactionId);
    if (row.expiry_job_id) ctx.jobs.remove(row.expiry_job_id);
    const data = JSON.parse(row.data) as unknown;
    return decision.decision === 'APPROVE'
      ? kind.approve(ctx, platformId, transaction, data, decision)
      : kind.reject(ctx, platformId, transaction, data, decision);
  });
}

/** The expiry job: rejects the transaction if it is still pending. */
export function expireApproval(ctx: SandboxContext, platformId: string, transactionId: string): void {
  if (!repoOf(ctx).byId(platformId, transactionId)) return;
  decideTransaction(ctx, platformId, transactionId, { decision: 'REJECT', via: 'EXPIRY' });
}

/** Wipes a platform's pending approvals (sandbox reset). */
export function removePlatformApprovals(ctx: SandboxContext, platformId: string): void {
  repoOf(ctx).removePlatform(platformId);
}
