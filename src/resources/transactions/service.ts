import { perContext } from '../../core/per-context.js';
import { notFound } from '../../core/errors.js';
import { paginateJson, type Page } from '../../core/pagination.js';
import type { SandboxContext } from '../../store/context.js';
import { TransactionRepo, type TransactionFilter, type TransactionRow } from './repo.js';

/** The contract's Transaction (IncomingTransaction or OutgoingTransaction) as JSON. */
export type TransactionBody = Record<string, unknown> & {
  id: string;
  status: string;
  type: TransactionType;
  customerId: string;
  platformCustomerId: string;
};

/** `INCOMING`, `OUTGOING`, or `CARD` (a card transaction in the contract's CardTransaction shape, recorded by the cards area). */
export type TransactionType = 'INCOMING' | 'OUTGOING' | 'CARD';

/** What a new transaction is made of; id and timestamps are added here. */
export type NewTransaction = Record<string, unknown> & {
  /** Set when the caller needed the id first (ledger postings reference it). */
  id?: string;
  status: string;
  type: TransactionType;
  customerId: string;
  platformCustomerId: string;
  source?: { accountId?: string } & Record<string, unknown>;
  destination?: { accountId?: string } & Record<string, unknown>;
};

const repoOf = perContext((ctx: SandboxContext) => new TransactionRepo(ctx.db, ctx.counts));

/**
 * The webhook type of a transaction status: `OUTGOING_PAYMENT.<STATUS>` or
 * `INCOMING_PAYMENT.<STATUS>`, within the contract's enums (an incoming REJECTED is FAILED,
 * CREATED and PROCESSING are PENDING, REFUNDED is REFUND_COMPLETED).
 */
export function eventTypeOf(type: TransactionType, status: string): string {
  if (type === 'CARD') return `CARD_TRANSACTION.${status}`;
  if (type === 'OUTGOING') {
    const outgoing: Record<string, string> = { CREATED: 'PENDING', REJECTED: 'FAILED', REFUNDED: 'REFUND_COMPLETED' };
    return `OUTGOING_PAYMENT.${outgoing[status] ?? status}`;
  }
  const incoming: Record<string, string> = {
    CREATED: 'PENDING',
    PENDING: 'PENDING',
    PENDING_AUTHORIZATION: 'PENDING',
    PROCESSING: 'PENDING',
    COMPLETED: 'COMPLETED',
    REJECTED: 'FAILED',
    FAILED: 'FAILED',
    EXPIRED: 'FAILED',
    REFUNDED: 'REFUND_COMPLETED',
  };
  return `INCOMING_PAYMENT.${incoming[status] ?? 'PENDING'}`;
}

const referenceOf = (body: Record<string, unknown>) =>
  ((body.reconciliationInstructions as { reference?: string } | undefined)?.reference ?? null) as string | null;

/**
 * Records a transaction and its first `*_PAYMENT.<STATUS>` event. Call it inside the
 * transaction that moves the money.
 */
export function recordTransaction(ctx: SandboxContext, platformId: string, fields: NewTransaction): TransactionBody {
  const id = fields.id ?? ctx.ids.next('Transaction');
  const now = ctx.clock.iso();
  const body = { ...fields, id, createdAt: now, updatedAt: now } as TransactionBody;
  if (body.status === 'COMPLETED' && body.settledAt === undefined) body.settledAt = now;
  repoOf(ctx).insert({
    id,
    platform_id: platformId,
    customer_id: body.customerId,
    platform_customer_id: body.platformCustomerId,
    type: body.type,
    status: body.status,
    source_account: fields.source?.accountId ?? (typeof fields.accountId === 'string' ? fields.accountId : null),
    destination_account: fields.destination?.accountId ?? null,
    reference: referenceOf(body),
    quote_id: typeof body.quoteId === 'string' ? body.quoteId : null,
    created_at: now,
    updated_at: now,
    body: JSON.stringify(body),
  });
  ctx.outbox.append(platformId, eventTypeOf(body.type, body.status), id, body);
  return body;
}

/**
 * Applies a change to a transaction; a new status also appends its event. `undefined` values
 * in the patch remove the field. Call it inside the transaction that moves the money.
 */
export function updateTransaction(ctx: SandboxContext, platformId: string, id: string, patch: Record<string, unknown>): TransactionBody {
  const current = getTransaction(ctx, platformId, id);
  const now = ctx.clock.iso();
  const body = { ...current, ...patch, updatedAt: now } as TransactionBody;
  for (const [key, value] of Object.entries(patch)) if (value === undefined) delete body[key];
  if (body.status === 'COMPLETED' && current.status !== 'COMPLETED' && patch.settledAt === undefined) body.settledAt = now;
  repoOf(ctx).update(id, body.status, now, JSON.stringify(body));
  if (body.status !== current.status) ctx.outbox.append(platformId, eventTypeOf(body.type, body.status), id, body);
  const refund = body.refund as { status?: string } | undefined;
  if (patch.refund !== undefined && refund?.status) {
    ctx.outbox.append(platformId, `${body.type === 'OUTGOING' ? 'OUTGOING' : 'INCOMING'}_PAYMENT.REFUND_${refund.status}`, id, body);
  }
  return body;
}

const toBody = (row: TransactionRow) => JSON.parse(row.body) as TransactionBody;

/** The query of `GET /transactions`, dates normalised to ISO strings. */
export type TransactionListQuery = TransactionFilter & { limit: number; cursor?: string | undefined; sortOrder: 'asc' | 'desc' };

/** A transaction of the platform, or `404 TRANSACTION_NOT_FOUND`. */
export function getTransaction(ctx: SandboxContext, platformId: string, id: string): TransactionBody {
  const body = findTransaction(ctx, platformId, id);
  if (!body) throw notFound('TRANSACTION_NOT_FOUND', `No transaction ${id} on this platform.`);
  return body;
}

/** The platform's transaction `id`, or undefined: for callers to whom a missing one is no error (an error's stack costs more than the lookup). */
export function findTransaction(ctx: SandboxContext, platformId: string, id: string): TransactionBody | undefined {
  const row = repoOf(ctx).byId(platformId, id);
  return row ? toBody(row) : undefined;
}

/** `GET /transactions`: filters, cursor pagination, `sortOrder` (newest first by default); the page as JSON text, from the stored bodies. */
export function listTransactionsJson(ctx: SandboxContext, platformId: string, query: TransactionListQuery): string {
  const repo = repoOf(ctx);
  return paginateJson(
    query,
    ({ afterKey, take }) => repo.bodies(platformId, query, afterKey, take, query.sortOrder),
    () => repo.count(platformId, query),
  );
}

/** `listTransactionsJson` as objects. */
export function listTransactions(ctx: SandboxContext, platformId: string, query: TransactionListQuery): Page<TransactionBody> {
  return JSON.parse(listTransactionsJson(ctx, platformId, query)) as Page<TransactionBody>;
}

/** Wipes a platform's transactions (sandbox reset). */
export function removePlatformTransactions(ctx: SandboxContext, platformId: string): void {
  repoOf(ctx).removePlatform(platformId);
}
