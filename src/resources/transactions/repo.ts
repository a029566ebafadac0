import { COUNT_CAP, ListQueries, maintainedCountDdl, PLATFORM_KEY, uuidv7Floor, Where, writerCountedTriggers, type WriterCount } from '../../core/list-query.js';
import { keyedRows, type Db, type Migration } from '../../store/db.js';
import type { DeferredCounts } from '../../store/deferred-counts.js';

/** The transactions' maintained count (platform id, type, status): new rows counted by the repo (`DeferredCounts`). */
export const TRANSACTION_COUNTS: WriterCount = { source: 'transactions', table: 'transaction_counts', columns: ['type', 'status'] };

/** The list indexes: each its filter's column (none for the platform's own), then the sort key `id`. */
const LIST_INDEXES: readonly (readonly [name: string, column: string])[] = [
  ['transactions_platform', ''],
  ['transactions_customer', 'customer_id'],
  ['transactions_list_pcid', 'platform_customer_id'],
  ['transactions_list_source', 'source_account'],
  ['transactions_list_destination', 'destination_account'],
  ['transactions_list_status', 'status'],
  ['transactions_list_type', 'type'],
  ['transactions_list_reference', 'reference'],
];

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
  {
    // Lists: one index per documented filter, each ending in the sort key; a maintained count per platform, type and status.
    id: 'transactions-lists-001',
    sql: `CREATE INDEX transactions_list_pcid ON transactions (platform_id, platform_customer_id, id);
    CREATE INDEX transactions_list_source ON transactions (platform_id, source_account, id);
    CREATE INDEX transactions_list_destination ON transactions (platform_id, destination_account, id);
    CREATE INDEX transactions_list_status ON transactions (platform_id, status, id);
    CREATE INDEX transactions_list_type ON transactions (platform_id, type, id);
    CREATE INDEX transactions_list_reference ON transactions (platform_id, reference, id);
    ${maintainedCountDdl('transactions', 'transaction_counts', ['type', 'status'])}`,
  },
  {
    // Issue 26: the eight list indexes keyed by the platform id's last eight characters instead
    // of its 45 (a card authorisation's transaction insert cost 133 us, 8 % of its CPU), and the
    // count of new rows written by the repo once a commit (`DeferredCounts`) instead of an upsert
    // by a trigger once a row (the trigger was two thirds of an insert's time). Status changes and
    // deletions are still counted by triggers.
    id: 'transactions-perf-001',
    sql: `${LIST_INDEXES.map(([name]) => `DROP INDEX ${name};`).join('\n    ')}
    ${LIST_INDEXES.map(([name, column]) => `CREATE INDEX ${name} ON transactions (${[PLATFORM_KEY, column, 'id'].filter(Boolean).join(', ')});`).join('\n    ')}
    ${writerCountedTriggers(TRANSACTION_COUNTS)}`,
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

/** The index whose leading equality serves the filter (every one ends in `id`, the sort key). */
function indexFor(filter: TransactionFilter): string {
  if (filter.reference !== undefined) return 'transactions_list_reference';
  if (filter.senderAccountIdentifier !== undefined) return 'transactions_list_source';
  if (filter.receiverAccountIdentifier !== undefined) return 'transactions_list_destination';
  if (filter.customerId !== undefined) return 'transactions_customer';
  if (filter.platformCustomerId !== undefined) return 'transactions_list_pcid';
  if (filter.status !== undefined) return 'transactions_list_status';
  if (filter.type !== undefined) return 'transactions_list_type';
  return 'transactions_platform';
}

/** The WHERE of the filters given, and only those. */
function whereOf(platformId: string, filter: TransactionFilter): Where {
  const where = new Where()
    .eq(PLATFORM_KEY, platformId.slice(-8))
    .eq('platform_id', platformId)
    .eq('reference', filter.reference)
    .eq('source_account', filter.senderAccountIdentifier)
    .eq('destination_account', filter.receiverAccountIdentifier)
    .eq('customer_id', filter.customerId)
    .eq('platform_customer_id', filter.platformCustomerId)
    .eq('status', filter.status)
    .eq('type', filter.type)
    .cmp('created_at', '>=', filter.startDate)
    .cmp('created_at', '<=', filter.endDate);
  // A transaction's id is drawn before its row is written (a quote draws it at quoting), so `endDate` also bounds the id range.
  if (filter.endDate !== undefined) where.cmp('id', '<', `Transaction:${uuidv7Floor(Date.parse(filter.endDate) + ID_TIME_SLACK_MS)}`);
  if (filter.accountIdentifier !== undefined) where.add('(source_account = ? OR destination_account = ?)', filter.accountIdentifier, filter.accountIdentifier);
  return where;
}

/** Slack for ids drawn in the same millisecond as thousands of others (UUIDv7 borrows the next millisecond). */
const ID_TIME_SLACK_MS = 60 * 60 * 1000;

/** `accountIdentifier` (either side) as two filters, one per side, each served by its side's index. */
function sidesOf(filter: TransactionFilter): [TransactionFilter, TransactionFilter] {
  const { accountIdentifier, ...rest } = filter;
  return [
    { ...rest, senderAccountIdentifier: accountIdentifier },
    { ...rest, receiverAccountIdentifier: accountIdentifier },
  ];
}

/** The only SQL of the transactions area. */
export class TransactionRepo {
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly byIdStmt;
  private readonly removePlatformStmt;

  private readonly lists;

  constructor(
    db: Db,
    private readonly counts: DeferredCounts,
  ) {
    this.lists = new ListQueries(db);
    this.insertStmt = db.prepare(
      `INSERT INTO transactions (id, platform_id, customer_id, platform_customer_id, type, status, source_account,
         destination_account, reference, quote_id, created_at, updated_at, body)
       VALUES (@id, @platform_id, @customer_id, @platform_customer_id, @type, @status, @source_account,
         @destination_account, @reference, @quote_id, @created_at, @updated_at, @body)`,
    );
    this.updateStmt = db.prepare('UPDATE transactions SET status = ?, updated_at = ?, body = ? WHERE id = ?');
    this.byIdStmt = keyedRows<TransactionRow>(db.prepare('SELECT * FROM transactions WHERE platform_id = ? AND id = ?'));
    this.removePlatformStmt = db.prepare(`DELETE FROM transactions WHERE ${PLATFORM_KEY} = substr(@platform, -8) AND platform_id = @platform`);
  }

  insert(row: TransactionRow): void {
    this.insertStmt.run(row);
    this.counts.add(TRANSACTION_COUNTS, [row.platform_id, row.type, row.status], 1);
  }

  update(id: string, status: string, updatedAt: string, body: string): void {
    this.updateStmt.run(status, updatedAt, body, id);
  }

  byId(platformId: string, id: string): TransactionRow | undefined {
    return this.byIdStmt.get(platformId, id);
  }

  /**
   * The stored bodies (the contract's Transaction JSON, as written) of a page in id order (`desc`
   * newest first), strictly after `afterKey` in that order, through the filter's index.
   */
  bodies(platformId: string, filter: TransactionFilter, afterKey: string | undefined, take: number, order: 'asc' | 'desc'): string[] {
    if (filter.accountIdentifier !== undefined) return this.page(platformId, filter, afterKey, take, order).map((row) => row.body);
    return this.lists.pageOf<string>('body', { table: 'transactions', where: whereOf(platformId, filter), index: indexFor(filter), order, afterKey, take });
  }

  /** A page of rows in id order (`desc` newest first), strictly after `afterKey` in that order, through the filter's index. */
  private page(platformId: string, filter: TransactionFilter, afterKey: string | undefined, take: number, order: 'asc' | 'desc'): TransactionRow[] {
    if (filter.accountIdentifier !== undefined) {
      // Either side: a page from each side's index, merged in key order (a transfer between two sides of one account once).
      const byId = new Map<string, TransactionRow>();
      for (const side of sidesOf(filter)) for (const row of this.page(platformId, side, afterKey, take, order)) byId.set(row.id, row);
      return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : 1) * (order === 'asc' ? 1 : -1)).slice(0, take);
    }
    return this.lists.page<TransactionRow>({ table: 'transactions', where: whereOf(platformId, filter), index: indexFor(filter), order, afterKey, take });
  }

  /**
   * `totalCount`: the maintained count when the filters are only `type` and `status`; otherwise
   * the filtered set counted through its index up to COUNT_CAP.
   */
  count(platformId: string, filter: TransactionFilter): number {
    const { type, status } = filter;
    const others = [filter.customerId, filter.platformCustomerId, filter.accountIdentifier, filter.senderAccountIdentifier, filter.receiverAccountIdentifier, filter.reference, filter.startDate, filter.endDate];
    if (others.every((value) => value === undefined)) {
      // With the counts of the open transaction's inserts not written yet.
      const held = this.counts.held(TRANSACTION_COUNTS, ([p, t, st]) => p === platformId && (type === undefined || t === type) && (status === undefined || st === status));
      return this.lists.maintained('transaction_counts', new Where().eq('platform_id', platformId).eq('type', type).eq('status', status)) + held;
    }
    if (filter.accountIdentifier !== undefined) {
      // Either side: each side's count less the transactions on both sides (each through its index, each bounded).
      const [sent, received] = sidesOf(filter);
      const both = { ...sent, receiverAccountIdentifier: filter.accountIdentifier };
      return Math.min(COUNT_CAP, this.count(platformId, sent) + this.count(platformId, received) - this.count(platformId, both));
    }
    return this.lists.countUpTo('transactions', whereOf(platformId, filter), indexFor(filter));
  }

  removePlatform(platformId: string): void {
    this.removePlatformStmt.run({ platform: platformId });
  }
}
