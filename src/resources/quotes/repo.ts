import { keyedRows, type Db, type Migration } from '../../store/db.js';

/** Quotes: the priced, rate-locked instruction a payment executes. */
export const quoteMigrations: Migration[] = [
  {
    id: 'quotes-001',
    sql: `CREATE TABLE quotes (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      status TEXT NOT NULL,
      expires_at INTEGER NOT NULL,
      executed_at TEXT,
      transaction_id TEXT NOT NULL UNIQUE,
      plan TEXT NOT NULL,
      body TEXT NOT NULL
    );
    CREATE INDEX quotes_platform ON quotes (platform_id, id);`,
  },
];

/** A stored quote: `body` is the contract's Quote; `plan` what execution needs. */
export interface QuoteRow {
  id: string;
  platform_id: string;
  status: string;
  expires_at: number;
  executed_at: string | null;
  transaction_id: string;
  plan: string;
  body: string;
}

/** The only SQL of the quotes area. */
export class QuoteRepo {
  private readonly insertStmt;
  private readonly byIdStmt;
  private readonly byTransactionStmt;
  private readonly markExecutedStmt;
  private readonly updateStmt;
  private readonly removePlatformStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO quotes (id, platform_id, status, expires_at, executed_at, transaction_id, plan, body)
       VALUES (@id, @platform_id, @status, @expires_at, @executed_at, @transaction_id, @plan, @body)`,
    );
    this.byIdStmt = keyedRows<QuoteRow>(db.prepare('SELECT * FROM quotes WHERE platform_id = ? AND id = ?'));
    this.byTransactionStmt = db.prepare('SELECT * FROM quotes WHERE platform_id = ? AND transaction_id = ?');
    // Only an unexecuted quote can be claimed: this is what makes concurrent executes run once.
    this.markExecutedStmt = db.prepare('UPDATE quotes SET executed_at = ? WHERE id = ? AND executed_at IS NULL');
    this.updateStmt = db.prepare('UPDATE quotes SET status = ?, body = ? WHERE id = ?');
    this.removePlatformStmt = db.prepare('DELETE FROM quotes WHERE platform_id = ?');
  }

  insert(row: QuoteRow): void {
    this.insertStmt.run(row);
  }

  byId(platformId: string, id: string): QuoteRow | undefined {
    return this.byIdStmt.get(platformId, id);
  }

  byTransaction(platformId: string, transactionId: string): QuoteRow | undefined {
    return this.byTransactionStmt.get(platformId, transactionId) as QuoteRow | undefined;
  }

  /** Claims the quote for execution; false when it was already executed. */
  markExecuted(id: string, at: string): boolean {
    return this.markExecutedStmt.run(at, id).changes === 1;
  }

  update(id: string, status: string, body: string): void {
    this.updateStmt.run(status, body, id);
  }

  removePlatform(platformId: string): void {
    this.removePlatformStmt.run(platformId);
  }
}
