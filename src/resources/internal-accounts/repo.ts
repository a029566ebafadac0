import type { Db, Migration } from '../../store/db.js';
import type { PageRequest } from '../../core/pagination.js';

/** Internal accounts: the balances a customer (or the platform, `customer_id` null) holds with the service. */
export const internalAccountMigrations: Migration[] = [
  {
    id: 'internal-accounts-001',
    sql: `CREATE TABLE internal_accounts (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      customer_id TEXT,
      type TEXT NOT NULL,
      currency TEXT NOT NULL,
      status TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE UNIQUE INDEX internal_accounts_owner_currency ON internal_accounts (platform_id, IFNULL(customer_id, ''), currency, type);
    CREATE INDEX internal_accounts_platform ON internal_accounts (platform_id, id);
    CREATE INDEX internal_accounts_customer ON internal_accounts (customer_id, id);`,
  },
];

/** An internal account row as stored. */
export interface InternalAccountRow {
  id: string;
  platform_id: string;
  customer_id: string | null;
  type: string;
  currency: string;
  status: string;
  created_at: string;
  updated_at: string;
}

/** Filters of the internal-account lists; undefined means "any". */
export interface InternalAccountFilter {
  platformId: string;
  /** `true`: only customer accounts; `false`: only platform-owned accounts. */
  customerOwned: boolean;
  customerId?: string | undefined;
  currency?: string | undefined;
  type?: string | undefined;
}

const WHERE = `platform_id = @platformId
  AND ((@customerOwned = 1 AND customer_id IS NOT NULL) OR (@customerOwned = 0 AND customer_id IS NULL))
  AND (@customerId IS NULL OR customer_id = @customerId)
  AND (@currency IS NULL OR currency = @currency)
  AND (@type IS NULL OR type = @type)`;

/** The only SQL of the internal-accounts area. */
export class InternalAccountRepo {
  private readonly insertStmt;
  private readonly byIdStmt;
  private readonly byOwnerStmt;
  private readonly pageStmt;
  private readonly countStmt;
  private readonly removePlatformStmt;
  private readonly updateStatusStmt;
  private readonly closeOwnerStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO internal_accounts (id, platform_id, customer_id, type, currency, status, created_at, updated_at)
       VALUES (@id, @platform_id, @customer_id, @type, @currency, @status, @created_at, @updated_at)`,
    );
    this.byIdStmt = db.prepare('SELECT * FROM internal_accounts WHERE platform_id = ? AND id = ?');
    this.byOwnerStmt = db.prepare('SELECT * FROM internal_accounts WHERE platform_id = ? AND customer_id IS ? ORDER BY id');
    this.pageStmt = db.prepare(
      `SELECT * FROM internal_accounts WHERE ${WHERE} AND (@afterKey IS NULL OR id > @afterKey) ORDER BY id LIMIT @take`,
    );
    this.countStmt = db.prepare(`SELECT COUNT(*) AS n FROM internal_accounts WHERE ${WHERE}`).pluck();
    this.removePlatformStmt = db.prepare('DELETE FROM internal_accounts WHERE platform_id = ?');
    this.updateStatusStmt = db.prepare('UPDATE internal_accounts SET status = ?, updated_at = ? WHERE id = ?');
    this.closeOwnerStmt = db.prepare("UPDATE internal_accounts SET status = 'CLOSED', updated_at = ? WHERE platform_id = ? AND customer_id = ? AND status <> 'CLOSED'");
  }

  insert(row: InternalAccountRow): void {
    this.insertStmt.run(row);
  }

  byId(platformId: string, id: string): InternalAccountRow | undefined {
    return this.byIdStmt.get(platformId, id) as InternalAccountRow | undefined;
  }

  /** Accounts of one owner (`customerId` null: the platform's own), oldest first. */
  byOwner(platformId: string, customerId: string | null): InternalAccountRow[] {
    return this.byOwnerStmt.all(platformId, customerId) as InternalAccountRow[];
  }

  page(filter: InternalAccountFilter, request: PageRequest): InternalAccountRow[] {
    return this.pageStmt.all({ ...params(filter), afterKey: request.afterKey ?? null, take: request.take }) as InternalAccountRow[];
  }

  count(filter: InternalAccountFilter): number {
    return this.countStmt.get(params(filter)) as number;
  }

  updateStatus(id: string, status: string, updatedAt: string): void {
    this.updateStatusStmt.run(status, updatedAt, id);
  }

  /** Closes every open account of a customer. */
  closeOwner(platformId: string, customerId: string, updatedAt: string): void {
    this.closeOwnerStmt.run(updatedAt, platformId, customerId);
  }

  removePlatform(platformId: string): void {
    this.removePlatformStmt.run(platformId);
  }
}

function params(filter: InternalAccountFilter) {
  return {
    platformId: filter.platformId,
    customerOwned: filter.customerOwned ? 1 : 0,
    customerId: filter.customerId ?? null,
    currency: filter.currency ?? null,
    type: filter.type ?? null,
  };
}
