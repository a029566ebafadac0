import type { Db, Migration } from '../../store/db.js';

/**
 * Transactions pending platform approval: one row per transaction that waits for
 * `POST /transactions/{id}/approve|reject`, with the kind that decides what those do. Kept
 * beside the transactions table (not in it), so the list queries stay as they are.
 */
export const approvalMigrations: Migration[] = [
  {
    id: 'transaction-approvals-001',
    sql: `CREATE TABLE transaction_approvals (
      transaction_id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      data TEXT NOT NULL,
      expiry_job_id TEXT,
      created_at TEXT NOT NULL
    );
    CREATE INDEX transaction_approvals_platform ON transaction_approvals (platform_id);`,
  },
];

/** A pending approval row. */
export interface ApprovalRow {
  transaction_id: string;
  platform_id: string;
  kind: string;
  data: string;
  expiry_job_id: string | null;
  created_at: string;
}

/** The only SQL of pending approvals. */
export class ApprovalRepo {
  private readonly insertStmt;
  private readonly byIdStmt;
  private readonly removeStmt;
  private readonly removePlatformStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO transaction_approvals (transaction_id, platform_id, kind, data, expiry_job_id, created_at)
       VALUES (@transaction_id, @platform_id, @kind, @data, @expiry_job_id, @created_at)`,
    );
    this.byIdStmt = db.prepare('SELECT * FROM transaction_approvals WHERE platform_id = ? AND transaction_id = ?');
    this.removeStmt = db.prepare('DELETE FROM transaction_approvals WHERE transaction_id = ?');
    this.removePlatformStmt = db.prepare('DELETE FROM transaction_approvals WHERE platform_id = ?');
  }

  insert(row: ApprovalRow): void {
    this.insertStmt.run(row);
  }

  byId(platformId: string, transactionId: string): ApprovalRow | undefined {
    return this.byIdStmt.get(platformId, transactionId) as ApprovalRow | undefined;
  }

  remove(transactionId: string): void {
    this.removeStmt.run(transactionId);
  }

  removePlatform(platformId: string): void {
    this.removePlatformStmt.run(platformId);
  }
}
