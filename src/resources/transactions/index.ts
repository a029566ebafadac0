import type { Area } from '../area.js';
import { APPROVAL_EXPIRY_JOB, expireApproval, removePlatformApprovals } from './approvals.js';
import { approvalMigrations } from './approvals-repo.js';
import { TRANSACTION_COUNTS, transactionMigrations } from './repo.js';
import { handlers } from './routes.js';
import { removePlatformTransactions } from './service.js';

export { eventTypeOf, findTransaction, getTransaction, listTransactions, recordTransaction, updateTransaction } from './service.js';
export type { NewTransaction, TransactionBody, TransactionType } from './service.js';
export { decideTransaction, holdForApproval, pendingApprovalOf, registerApprovalKind, TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL } from './approvals.js';
export type { ApprovalDecision, ApprovalKind } from './approvals.js';

/**
 * Transactions: `GET /transactions`, `GET /transactions/{id}`, the record every money movement
 * writes, and `POST /transactions/{id}/approve|reject` for transactions pending platform
 * approval (a kind registered with `registerApprovalKind` decides what those do).
 */
export const transactionsArea: Area = {
  name: 'transactions',
  migrations: [...transactionMigrations, ...approvalMigrations],
  handlers,
  init: (ctx) =>
    ctx.scheduler.register(APPROVAL_EXPIRY_JOB, (job) => expireApproval(ctx, job.platformId, (job.payload as { transactionId: string }).transactionId)),
  resetPlatform: (ctx, platform) => {
    removePlatformApprovals(ctx, platform.id);
    removePlatformTransactions(ctx, platform.id);
  },
  // A snapshot import puts a platform's transactions back as rows: counted again (no trigger counts a new row).
  derived: { columns: {}, refill: (ctx, platformId) => ctx.counts.recountPlatform(TRANSACTION_COUNTS, platformId) },
};
