import type { Statement } from 'better-sqlite3';
import type { PageRequest } from '../../core/pagination.js';
import { ListQueries, maintainedCountDdl, Where } from '../../core/list-query.js';
import { keyedRows, type Db, type Migration } from '../../store/db.js';

/** External accounts of platforms and their customers; deleted ones stay for history (`deleted_at`). */
export const externalAccountMigrations: Migration[] = [
  {
    id: 'external-accounts-001',
    sql: `CREATE TABLE external_accounts (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      customer_id TEXT,
      currency TEXT NOT NULL,
      account_type TEXT NOT NULL,
      status TEXT NOT NULL,
      platform_account_id TEXT,
      ownership_type TEXT,
      default_uma_deposit INTEGER NOT NULL DEFAULT 0,
      beneficiary_verification_status TEXT,
      beneficiary_verified_name TEXT,
      account_info TEXT NOT NULL,
      primary_identifier TEXT NOT NULL,
      identity_key TEXT NOT NULL,
      self_custody INTEGER NOT NULL DEFAULT 0,
      challenge_method TEXT,
      challenge_message TEXT,
      challenge_expires_at TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      deleted_at TEXT
    );
    CREATE INDEX external_accounts_platform ON external_accounts (platform_id, deleted_at, id);
    CREATE INDEX external_accounts_customer ON external_accounts (platform_id, customer_id, deleted_at, id);
    CREATE INDEX external_accounts_identity ON external_accounts (platform_id, identity_key);`,
  },
  {
    // Lists: the currency filter's index (ending in the sort key); a maintained count per platform, owner kind, currency and liveness.
    id: 'external-accounts-lists-001',
    sql: `CREATE INDEX external_accounts_list_currency ON external_accounts (platform_id, currency, deleted_at, id);
    ${maintainedCountDdl('external_accounts', 'external_account_counts', [['platform_owned', '{row}.customer_id IS NULL'], 'currency', ['live', '{row}.deleted_at IS NULL']])}`,
  },
];

/** An external account row as stored. */
export interface ExternalAccountRow {
  id: string;
  platform_id: string;
  customer_id: string | null;
  currency: string;
  account_type: string;
  status: string;
  platform_account_id: string | null;
  ownership_type: string | null;
  default_uma_deposit: number;
  beneficiary_verification_status: string | null;
  beneficiary_verified_name: string | null;
  account_info: string;
  primary_identifier: string;
  /** Type, currency and every identifying field: two live accounts of one owner never share it. */
  identity_key: string;
  self_custody: number;
  challenge_method: string | null;
  challenge_message: string | null;
  challenge_expires_at: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

/** Filters of a list: `scope` says whether platform-owned accounts only, or every account of the platform. */
export interface ListFilter {
  platformId: string;
  platformOwnedOnly: boolean;
  customerId?: string | undefined;
  currency?: string | undefined;
}

/** The index whose leading equalities serve the filter (every one ends in `id`, the sort key). */
function indexFor(filter: ListFilter): string {
  if (filter.customerId !== undefined || filter.platformOwnedOnly) return 'external_accounts_customer';
  if (filter.currency !== undefined) return 'external_accounts_list_currency';
  return 'external_accounts_platform';
}

/** The WHERE of the filters given (live accounts only). */
function whereOf(filter: ListFilter): Where {
  const where = new Where().eq('platform_id', filter.platformId);
  // A platform's own accounts: `customer_id IS NULL` is an equality the customer index serves.
  if (filter.platformOwnedOnly) where.add('customer_id IS NULL');
  return where.eq('customer_id', filter.customerId).add('deleted_at IS NULL').eq('currency', filter.currency);
}

/** The only SQL of the external-accounts area. */
export class ExternalAccountRepo {
  private readonly insertStmt;
  private readonly byIdStmt;
  private readonly byIdAnyPlatformStmt;
  private readonly duplicateStmt;
  private readonly clearDefaultStmt;
  private readonly softDeleteStmt;
  private readonly updateStatusStmt;
  private readonly setChallengeStmt;
  private readonly deletePlatformStmt;

  private readonly statements = new Map<string, Statement<unknown[]>>();


  private cached(sql: string): Statement<unknown[]> {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare<unknown[]>(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private readonly lists;

  constructor(private readonly db: Db) {
    this.lists = new ListQueries(db);
    this.insertStmt = db.prepare(
      `INSERT INTO external_accounts (id, platform_id, customer_id, currency, account_type, status, platform_account_id, ownership_type,
        default_uma_deposit, beneficiary_verification_status, beneficiary_verified_name, account_info, primary_identifier, identity_key, self_custody,
        challenge_method, challenge_message, challenge_expires_at, created_at, updated_at, deleted_at)
       VALUES (@id, @platform_id, @customer_id, @currency, @account_type, @status, @platform_account_id, @ownership_type,
        @default_uma_deposit, @beneficiary_verification_status, @beneficiary_verified_name, @account_info, @primary_identifier, @identity_key, @self_custody,
        @challenge_method, @challenge_message, @challenge_expires_at, @created_at, @updated_at, @deleted_at)`,
    );
    this.byIdStmt = keyedRows<ExternalAccountRow>(db.prepare('SELECT * FROM external_accounts WHERE id = ? AND platform_id = ?'));
    this.byIdAnyPlatformStmt = db.prepare('SELECT * FROM external_accounts WHERE id = ?');
    this.duplicateStmt = db.prepare(
      `SELECT id FROM external_accounts WHERE platform_id = ? AND customer_id IS ? AND identity_key = ? AND deleted_at IS NULL LIMIT 1`,
    );
    this.clearDefaultStmt = db.prepare(
      `UPDATE external_accounts SET default_uma_deposit = 0, updated_at = ?
        WHERE platform_id = ? AND customer_id = ? AND default_uma_deposit = 1 AND deleted_at IS NULL`,
    );
    this.softDeleteStmt = db.prepare('UPDATE external_accounts SET deleted_at = ?, updated_at = ?, default_uma_deposit = 0 WHERE id = ?');
    this.updateStatusStmt = db.prepare('UPDATE external_accounts SET status = ?, updated_at = ? WHERE id = ?');
    this.setChallengeStmt = db.prepare(
      'UPDATE external_accounts SET challenge_method = ?, challenge_message = ?, challenge_expires_at = ?, updated_at = ? WHERE id = ?',
    );
    this.deletePlatformStmt = db.prepare('DELETE FROM external_accounts WHERE platform_id = ?');
  }

  insert(row: ExternalAccountRow): void {
    this.insertStmt.run(row);
  }

  /** The row of this platform with this id, deleted or not. */
  byId(platformId: string, id: string): ExternalAccountRow | undefined {
    return this.byIdStmt.get(id, platformId);
  }

  /** The row with this id on any platform (hosted pages, whose link is the capability). */
  byIdAnyPlatform(id: string): ExternalAccountRow | undefined {
    return this.byIdAnyPlatformStmt.get(id) as ExternalAccountRow | undefined;
  }

  /** The id of a live account of the same owner with the same identity key. */
  duplicateOf(platformId: string, customerId: string | null, identityKey: string): string | undefined {
    const row = this.duplicateStmt.get(platformId, customerId, identityKey) as { id: string } | undefined;
    return row?.id;
  }

  /** The customer's live default UMA deposit account, if any. */
  defaultUmaDepositOf(platformId: string, customerId: string): ExternalAccountRow | undefined {
    return this.cached('SELECT * FROM external_accounts WHERE platform_id = ? AND customer_id = ? AND default_uma_deposit = 1 AND deleted_at IS NULL LIMIT 1').get(
      platformId,
      customerId,
    ) as ExternalAccountRow | undefined;
  }

  /** Unsets the customer's default UMA deposit account (at most one per customer). */
  clearDefaultUmaDeposit(platformId: string, customerId: string, now: string): void {
    this.clearDefaultStmt.run(now, platformId, customerId);
  }

  softDelete(id: string, now: string): void {
    this.softDeleteStmt.run(now, now, id);
  }

  updateStatus(id: string, status: string, now: string): void {
    this.updateStatusStmt.run(status, now, id);
  }

  setChallenge(id: string, method: string | null, message: string | null, expiresAt: string | null, now: string): void {
    this.setChallengeStmt.run(method, message, expiresAt, now, id);
  }

  /** Live rows after `afterKey` in id order, through the index of the filter given. */
  page(filter: ListFilter, request: PageRequest): ExternalAccountRow[] {
    return this.lists.page<ExternalAccountRow>({ table: 'external_accounts', where: whereOf(filter), index: indexFor(filter), afterKey: request.afterKey, take: request.take });
  }

  /**
   * `totalCount`: one customer's accounts counted through the customer index; every other
   * filter combination (owner kind, currency) from the maintained count.
   */
  count(filter: ListFilter): number {
    if (filter.customerId !== undefined) return this.lists.countUpTo('external_accounts', whereOf(filter), indexFor(filter));
    const buckets = new Where().eq('platform_id', filter.platformId).eq('live', 1).eq('platform_owned', filter.platformOwnedOnly ? 1 : undefined).eq('currency', filter.currency);
    return this.lists.maintained('external_account_counts', buckets);
  }

  deletePlatform(platformId: string): void {
    this.deletePlatformStmt.run(platformId);
  }
}
