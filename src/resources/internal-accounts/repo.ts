import { ListQueries, maintainedCountDdl, Where } from '../../core/list-query.js';
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
  {
    // Lists: one index per documented filter, each ending in the sort key; a maintained count per platform, owner kind, currency and type.
    id: 'internal-accounts-lists-001',
    sql: `CREATE INDEX internal_accounts_list_currency ON internal_accounts (platform_id, currency, id);
    CREATE INDEX internal_accounts_list_type ON internal_accounts (platform_id, type, id);
    ${maintainedCountDdl('internal_accounts', 'internal_account_counts', [['platform_owned', '{row}.customer_id IS NULL'], 'currency', 'type'])}`,
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

/** The index whose leading equality serves the filter (every one ends in `id`, the sort key). */
function indexFor(filter: InternalAccountFilter): string {
  if (filter.customerId !== undefined || !filter.customerOwned) return 'internal_accounts_customer';
  if (filter.currency !== undefined) return 'internal_accounts_list_currency';
  if (filter.type !== undefined) return 'internal_accounts_list_type';
  return 'internal_accounts_platform';
}

/** The WHERE of the filters given, and only those. */
function whereOf(filter: InternalAccountFilter): Where {
  const where = new Where().eq('platform_id', filter.platformId);
  if (!filter.customerOwned) where.add('customer_id IS NULL');
  else if (filter.customerId === undefined) where.add('customer_id IS NOT NULL');
  return where.eq('customer_id', filter.customerOwned ? filter.customerId : undefined).eq('currency', filter.currency).eq('type', filter.type);
}

/** The only SQL of the internal-accounts area. */
export class InternalAccountRepo {
  private readonly insertStmt;
  private readonly byIdStmt;
  private readonly byOwnerStmt;
  private readonly lists;
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
    this.lists = new ListQueries(db);
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

  /** One page in id order through the index of the filter given. */
  page(filter: InternalAccountFilter, request: PageRequest): InternalAccountRow[] {
    return this.lists.page<InternalAccountRow>({ table: 'internal_accounts', where: whereOf(filter), index: indexFor(filter), afterKey: request.afterKey, take: request.take });
  }

  /**
   * `totalCount`: one customer's accounts counted through the customer index; every other
   * filter combination (owner kind, currency, type) from the maintained count.
   */
  count(filter: InternalAccountFilter): number {
    if (filter.customerOwned && filter.customerId !== undefined) return this.lists.countUpTo('internal_accounts', whereOf(filter), indexFor(filter));
    const buckets = new Where().eq('platform_id', filter.platformId).eq('platform_owned', filter.customerOwned ? 0 : 1).eq('currency', filter.currency).eq('type', filter.type);
    return this.lists.maintained('internal_account_counts', buckets);
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

