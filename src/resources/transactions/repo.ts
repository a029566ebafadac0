import type { Db, Migration } from '../../store/db.js';

/** Transactions: the contract's Transaction as JSON, with the columns its filters need. */
export const transactionMigrations: Migration[] = [
  {
    id: 'transactions-001',
    sql: `CREATE TABLE transactions (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      customer_id TEXT NOT NULL,
      platform_customer_id TEXT NOT NULL,
      type TEXT NOT NULL,
      status TEXT NOT NULL,
      source_account TEXT,
      destination_account TEXT,
      reference TEXT,
      quote_id TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      body TEXT NOT NULL
    );
    CREATE INDEX transactions_platform ON transactions (platform_id, id);
    CREATE INDEX transactions_customer ON transactions (platform_id, customer_id, id);`,
  },
];

/** A transaction row. */
export interface TransactionRow {
  id: string;
  platform_id: string;
  customer_id: string;
  platform_customer_id: string;
  type: string;
  status: string;
  source_account: string | null;
  destination_account: string | null;
  reference: string | null;
  quote_id: string | null;
  created_at: string;
  updated_at: string;
  body: string;
}

/** Filters of `GET /transactions`. */
export interface TransactionFilter {
  customerId?: string | undefined;
  platformCustomerId?: string | undefined;
  accountIdentifier?: string | undefined;
  senderAccountIdentifier?: string | undefined;
  receiverAccountIdentifier?: string | undefined;
  status?: string | undefined;
  type?: string | undefined;
  reference?: string | undefined;
  startDate?: string | undefined;
  endDate?: string | undefined;
}

function where(platformId: string, filter: TransactionFilter): { sql: string; params: unknown[] } {
  const clauses = ['platform_id = ?'];
  const params: unknown[] = [platformId];
  const eq = (column: string, value: string | undefined) => {
    if (value === undefined) return;
    clauses.push(`${column} = ?`);
    params.push(value);
  };
  eq('customer_id', filter.customerId);
  eq('platform_customer_id', filter.platformCustomerId);
  eq('source_account', filter.senderAccountIdentifier);
  eq('destination_account', filter.receiverAccountIdentifier);
  eq('status', filter.status);
  eq('type', filter.type);
  eq('reference', filter.reference);
  if (filter.accountIdentifier !== undefined) {
    clauses.push('(source_account = ? OR destination_account = ?)');
    params.push(filter.accountIdentifier, filter.accountIdentifier);
  }
  if (filter.startDate !== undefined) {
    clauses.push('created_at >= ?');
    params.push(filter.startDate);
  }
  if (filter.endDate !== undefined) {
    clauses.push('created_at <= ?');
    params.push(filter.endDate);
  }
  return { sql: clauses.join(' AND '), params };
}

/** The only SQL of the transactions area. */
export class TransactionRepo {
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly byIdStmt;
  private readonly removePlatformStmt;

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO transactions (id, platform_id, customer_id, platform_customer_id, type, status, source_account,
         destination_account, reference, quote_id, created_at, updated_at, body)
       VALUES (@id, @platform_id, @customer_id, @platform_customer_id, @type, @status, @source_account,
         @destination_account, @reference, @quote_id, @created_at, @updated_at, @body)`,
    );
    this.updateStmt = db.prepare('UPDATE transactions SET status = ?, updated_at = ?, body = ? WHERE id = ?');
    this.byIdStmt = db.prepare('SELECT * FROM transactions WHERE platform_id = ? AND id = ?');
    this.removePlatformStmt = db.prepare('DELETE FROM transactions WHERE platform_id = ?');
  }

  insert(row: TransactionRow): void {
    this.insertStmt.run(row);
  }

  update(id: string, status: string, updatedAt: string, body: string): void {
    this.updateStmt.run(status, updatedAt, body, id);
  }

  byId(platformId: string, id: string): TransactionRow | undefined {
    return this.byIdStmt.get(platformId, id) as TransactionRow | undefined;
  }

  /** A page in id order (`desc` newest first), strictly after `afterKey` in that order. */
  page(platformId: string, filter: TransactionFilter, afterKey: string | undefined, take: number, order: 'asc' | 'desc'): TransactionRow[] {
    const { sql, params } = where(platformId, filter);
    const keyClause = afterKey === undefined ? '' : ` AND id ${order === 'asc' ? '>' : '<'} ?`;
    const keyParams = afterKey === undefined ? [] : [afterKey];
    return this.db
      .prepare(`SELECT * FROM transactions WHERE ${sql}${keyClause} ORDER BY id ${order === 'asc' ? 'ASC' : 'DESC'} LIMIT ?`)
      .all(...params, ...keyParams, take) as TransactionRow[];
  }

  count(platformId: string, filter: TransactionFilter): number {
    const { sql, params } = where(platformId, filter);
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM transactions WHERE ${sql}`).get(...params) as { n: number }).n;
  }

  removePlatform(platformId: string): void {
    this.removePlatformStmt.run(platformId);
  }
}
