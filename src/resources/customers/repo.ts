import { ListQueries, maintainedCountDdl, PLATFORM_KEY, uuidv7Floor, Where, writerCountedTriggers, type KeysetPage, type MergedPage, type WriterCount } from '../../core/list-query.js';
import type { DeferredCounts } from '../../store/deferred-counts.js';
import type { PageRequest } from '../../core/pagination.js';
import { keyedRows, type Db, type Migration } from '../../store/db.js';

/** Customers of a platform, individuals and businesses. */
export const customerMigrations: Migration[] = [
  {
    id: 'customers-001',
    sql: `CREATE TABLE customers (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      customer_type TEXT NOT NULL,
      platform_customer_id TEXT NOT NULL,
      uma_address TEXT NOT NULL,
      region TEXT,
      currencies TEXT NOT NULL,
      kyc_status TEXT NOT NULL,
      profile TEXT NOT NULL,
      consent TEXT,
      contact TEXT,
      is_deleted INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE UNIQUE INDEX customers_platform_customer_id ON customers (platform_id, platform_customer_id) WHERE is_deleted = 0;
    CREATE UNIQUE INDEX customers_uma_address ON customers (platform_id, uma_address) WHERE is_deleted = 0;
    CREATE INDEX customers_platform ON customers (platform_id, id);`,
  },
  {
    id: 'customers-002',
    sql: `CREATE TABLE customer_import_jobs (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      status TEXT NOT NULL,
      rows TEXT NOT NULL,
      total INTEGER NOT NULL,
      processed INTEGER NOT NULL,
      successful INTEGER NOT NULL,
      failed INTEGER NOT NULL,
      errors TEXT NOT NULL,
      created_at TEXT NOT NULL,
      completed_at TEXT
    );
    CREATE INDEX customer_import_jobs_platform ON customer_import_jobs (platform_id, id);`,
  },
  {
    // Bulk imports keep their rows in batches (one per tick) and their row errors one per row,
    // so a tick reads and writes what it handles, not the whole file. Jobs from before keep `rows`.
    id: 'customers-bulk-002',
    sql: `ALTER TABLE customer_import_jobs ADD COLUMN columns TEXT;
    CREATE TABLE customer_import_batches (
      job_id TEXT NOT NULL,
      platform_id TEXT NOT NULL,
      batch INTEGER NOT NULL,
      rows TEXT NOT NULL,
      PRIMARY KEY (job_id, batch)
    ) WITHOUT ROWID;
    CREATE INDEX customer_import_batches_platform ON customer_import_batches (platform_id);
    CREATE TABLE customer_import_errors (
      id INTEGER PRIMARY KEY,
      job_id TEXT NOT NULL,
      platform_id TEXT NOT NULL,
      error TEXT NOT NULL
    );
    CREATE INDEX customer_import_errors_job ON customer_import_errors (job_id, id);
    CREATE INDEX customer_import_errors_platform ON customer_import_errors (platform_id);`,
  },
  {
    // Lists: one index per documented filter, each ending in the sort key; a maintained count per platform, type and
    // deletion; UMA addresses looked up in any letter case through an index.
    id: 'customers-lists-001',
    sql: `CREATE INDEX customers_list_live ON customers (platform_id, is_deleted, id);
    CREATE INDEX customers_list_pcid ON customers (platform_id, platform_customer_id, id);
    CREATE INDEX customers_list_uma ON customers (platform_id, uma_address, id);
    CREATE INDEX customers_list_region ON customers (platform_id, region, id);
    CREATE INDEX customers_list_type ON customers (platform_id, customer_type, id);
    CREATE INDEX customers_uma_any_case ON customers (platform_id, lower(uma_address)) WHERE is_deleted = 0;
    ${maintainedCountDdl('customers', 'customer_counts', ['customer_type', 'is_deleted'])}`,
  },
];

/**
 * Issue 26: the unique partial indexes on (platform_id, platform_customer_id) and
 * (platform_id, uma_address) of active customers repeat the list indexes, which end in the id
 * and serve the same lookups (the deleted rows they also hold are filtered on the row). The
 * service checks both before every write that sets them, in the write's transaction; a create
 * updates two fewer indexes, each at a random place.
 */
export const customerPerfMigrations: Migration[] = [
  {
    id: 'customers-perf-001',
    sql: `DROP INDEX customers_platform_customer_id;
    DROP INDEX customers_uma_address;`,
  },
];

/**
 * Issue 26: the platform in the list indexes as the last eight characters of its id (the random
 * tail of its UUID) instead of the whole 45-character id, the row's whole platform id checked on
 * the row: 37 bytes fewer in each of six index entries a customer. The any-case UMA index goes:
 * the search keys (customers-perf-002; since customers-perf-004 the UMA list index) hold every
 * live customer's lower-case UMA address by platform, and the lookup reads them.
 */
export const customerShortKeyMigrations: Migration[] = [
  {
    id: 'customers-perf-003',
    sql: `DROP INDEX customers_platform;
    DROP INDEX customers_list_live;
    DROP INDEX customers_list_pcid;
    DROP INDEX customers_list_uma;
    DROP INDEX customers_list_region;
    DROP INDEX customers_list_type;
    DROP INDEX customers_uma_any_case;
    CREATE INDEX customers_platform ON customers (substr(platform_id, -8), id);
    CREATE INDEX customers_list_live ON customers (substr(platform_id, -8), is_deleted, id);
    CREATE INDEX customers_list_pcid ON customers (substr(platform_id, -8), platform_customer_id, id);
    CREATE INDEX customers_list_uma ON customers (substr(platform_id, -8), uma_address, id);
    CREATE INDEX customers_list_region ON customers (substr(platform_id, -8), region, id);
    CREATE INDEX customers_list_type ON customers (substr(platform_id, -8), customer_type, id);`,
  },
];
/**
 * Issue 26: one index of the kind of customer instead of three. The lists with no filter, with
 * `isIncludingDeleted` or with a `customerType` read the ranges of (platform, type, deletion) they
 * stand for, at most four, merged in id order (`ListQueries.mergedPageWith`); a create writes two
 * index entries fewer. The customer types are the contract's two.
 */
export const customerKindIndexMigrations: Migration[] = [
  {
    id: 'customers-perf-005',
    sql: `DROP INDEX customers_platform;
    DROP INDEX customers_list_live;
    DROP INDEX customers_list_type;
    CREATE INDEX customers_list_kind ON customers (substr(platform_id, -8), customer_type, is_deleted, id);`,
  },
];

/** The customers' maintained count (platform id, type, deletion), kept by the repo (`DeferredCounts`). */
export const CUSTOMER_COUNTS: WriterCount = { source: 'customers', table: 'customer_counts', columns: ['customer_type', 'is_deleted'] };

/**
 * Issue 26: the counts of customers written by the repo once a commit (`DeferredCounts`), a
 * transaction's creates summed by bucket, instead of an upsert by a trigger once a create.
 * Deletion and type changes are still counted by triggers, as upserts.
 */
export const customerCountMigrations: Migration[] = [
  { id: 'customers-perf-006', sql: writerCountedTriggers(CUSTOMER_COUNTS) },
];

/** The index of customers by platform, type and deletion (customers-perf-005), each range in id order. */
export const KIND_INDEX = 'customers_list_kind';
/** Every customer type (the contract's `CustomerType`): the ranges of the kind index a platform's customers fill. */
export const CUSTOMER_TYPES = ['INDIVIDUAL', 'BUSINESS'] as const;

/** The lower-case platform customer id and UMA address that lead their list indexes (customers-perf-004): the search keys of both, written as there. */
export const PCID_KEY = 'lower(platform_customer_id)';
export const UMA_KEY = 'lower(uma_address)';

/**
 * Each customer's wire JSON (what `GET /customers/{id}` answers) kept in its row, written with
 * every change of the row, so a list page is its rows' text joined. Rows already there get theirs
 * from `wireOf` (the service's presentation of a row).
 */
export function customerWireMigration(wireOf: (row: CustomerRow) => string): Migration {
  return { id: 'customers-lists-002', sql: 'ALTER TABLE customers ADD COLUMN wire TEXT;', backfill: (db) => writeWires(db, wireOf) };
}

/** Writes the `wire` of every customer (of one platform, when given) from `wireOf`, a thousand rows at a time. */
function writeWires(db: Db, wireOf: (row: CustomerRow) => string, platformId?: string): void {
  // The platform through whichever of its indexes this database has (the migration that adds `wire` runs before customers-perf-003).
  const shortKey = platformId !== undefined && (db.prepare("SELECT 1 FROM schema_migrations WHERE id = 'customers-perf-003'").get() as unknown) !== undefined;
  const platformWhere = platformId === undefined ? '' : shortKey ? `${PLATFORM_KEY} = substr(?, -8) AND platform_id = ? AND ` : 'platform_id = ? AND ';
  const scope = platformId === undefined ? [] : shortKey ? [platformId, platformId] : [platformId];
  const write = db.prepare('UPDATE customers SET wire = ? WHERE id = ?');
  // A platform's customers range by range of type and deletion (each in id order in the kind index), the whole table by its key.
  const ranges: unknown[][] = platformId === undefined ? [[]] : CUSTOMER_TYPES.flatMap((type) => [0, 1].map((deleted) => [type, deleted]));
  const batch = db.prepare(`SELECT * FROM customers WHERE ${platformWhere}${platformId === undefined ? '' : 'customer_type = ? AND is_deleted = ? AND '}id > ? ORDER BY id LIMIT 1000`);
  for (const range of ranges) {
    for (let rows = batch.all(...scope, ...range, '') as CustomerRow[]; rows.length > 0; rows = batch.all(...scope, ...range, rows[rows.length - 1]!.id) as CustomerRow[]) {
      for (const row of rows) write.run(wireOf(row), row.id);
    }
  }
}

/** A bulk CSV import job. `rows` holds the parsed rows (objects keyed by column). */
export interface ImportJobRow {
  id: string;
  platform_id: string;
  status: string;
  /** A job from before batches: all its rows as JSON objects; `[]` for later jobs. */
  rows: string;
  /** The CSV's header (JSON array); its rows are in `customer_import_batches`. Null for a job from before. */
  columns: string | null;
  total: number;
  processed: number;
  successful: number;
  failed: number;
  errors: string;
  created_at: string;
  completed_at: string | null;
}

/** The SQL of bulk import jobs. */
export class ImportJobRepo {
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly byIdStmt;
  private readonly removePlatformStmts;
  private readonly insertBatchStmt;
  private readonly batchStmt;
  private readonly deleteBatchStmt;
  private readonly insertErrorStmt;
  private readonly errorsStmt;
  private readonly orphanBatchesStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO customer_import_jobs (id, platform_id, status, rows, columns, total, processed, successful, failed, errors, created_at, completed_at)
       VALUES (@id, @platform_id, @status, @rows, @columns, @total, @processed, @successful, @failed, @errors, @created_at, @completed_at)`,
    );
    this.updateStmt = db.prepare(
      `UPDATE customer_import_jobs SET status = @status, processed = @processed, successful = @successful, failed = @failed,
       errors = @errors, completed_at = @completed_at WHERE id = @id`,
    );
    this.byIdStmt = db.prepare('SELECT * FROM customer_import_jobs WHERE platform_id = ? AND id = ?');
    this.removePlatformStmts = ['customer_import_jobs', 'customer_import_batches', 'customer_import_errors'].map((table) =>
      db.prepare(`DELETE FROM ${table} WHERE platform_id = ?`),
    );
    this.insertBatchStmt = db.prepare('INSERT INTO customer_import_batches (job_id, platform_id, batch, rows) VALUES (?, ?, ?, ?)');
    this.batchStmt = db.prepare('SELECT rows FROM customer_import_batches WHERE job_id = ? AND batch = ?');
    this.deleteBatchStmt = db.prepare('DELETE FROM customer_import_batches WHERE job_id = ? AND batch = ?');
    this.insertErrorStmt = db.prepare('INSERT INTO customer_import_errors (job_id, platform_id, error) VALUES (?, ?, ?)');
    this.errorsStmt = db.prepare('SELECT error FROM customer_import_errors WHERE job_id = ? ORDER BY id LIMIT ?').pluck();
    this.orphanBatchesStmt = db.prepare('DELETE FROM customer_import_batches WHERE job_id NOT IN (SELECT id FROM customer_import_jobs)');
  }

  insert(row: ImportJobRow): void {
    this.insertStmt.run(row);
  }
  /** Writes status, progress, errors and completion. */
  update(row: ImportJobRow): void {
    this.updateStmt.run(row);
  }
  byId(platformId: string, id: string): ImportJobRow | undefined {
    return this.byIdStmt.get(platformId, id) as ImportJobRow | undefined;
  }
  removePlatform(platformId: string): void {
    for (const statement of this.removePlatformStmts) statement.run(platformId);
  }
  /** Stores one batch of a job's rows (JSON: an array of rows, each an array of cells). */
  insertBatch(jobId: string, platformId: string, batch: number, rows: string): void {
    this.insertBatchStmt.run(jobId, platformId, batch, rows);
  }
  batch(jobId: string, batch: number): string | undefined {
    return (this.batchStmt.get(jobId, batch) as { rows: string } | undefined)?.rows;
  }
  deleteBatch(jobId: string, batch: number): void {
    this.deleteBatchStmt.run(jobId, batch);
  }
  appendError(jobId: string, platformId: string, error: string): void {
    this.insertErrorStmt.run(jobId, platformId, error);
  }
  /** The first `limit` row errors of a job (JSON each), in the order they were recorded. */
  errors(jobId: string, limit: number): string[] {
    return this.errorsStmt.all(jobId, limit) as string[];
  }
  /** Deletes batches no job owns (an upload that stopped between storing its rows and its job). */
  removeOrphanBatches(): void {
    this.orphanBatchesStmt.run();
  }
}

/**
 * A customer row as stored. `profile` is the JSON of the type's own fields; `contact` the
 * contact-verification state; `wire` the customer's wire JSON, written with every change (and
 * computed again for rows a snapshot import restores: snapshots leave it out).
 */
export interface CustomerRow {
  id: string;
  platform_id: string;
  customer_type: string;
  platform_customer_id: string;
  uma_address: string;
  region: string | null;
  currencies: string;
  kyc_status: string;
  profile: string;
  consent: string | null;
  contact: string | null;
  is_deleted: number;
  created_at: string;
  updated_at: string;
  wire: string | null;
}

/** A customer row without its stored answer. */
export type CustomerFields = Omit<CustomerRow, 'wire'>;

/** Filters of `GET /customers`. */
export interface CustomerFilter {
  platformId: string;
  platformCustomerId?: string | undefined;
  customerType?: string | undefined;
  createdAfter?: string | undefined;
  createdBefore?: string | undefined;
  updatedAfter?: string | undefined;
  updatedBefore?: string | undefined;
  region?: string | undefined;
  currency?: string | undefined;
  umaAddress?: string | undefined;
  includeDeleted: boolean;
}

/**
 * Slack between a customer's id time (UUIDv7 from the sandbox clock) and its `created_at`
 * (read from the same clock within one call): creation-time filters become an id range widened
 * by this much, and the exact `created_at` test still decides.
 */
const ID_TIME_SLACK_MS = 60 * 60 * 1000;

/**
 * The index whose leading equality serves the filter (every one ends in `id`, the sort key), or
 * undefined when none does but the kind index's ranges (`kindRanges`).
 */
function indexFor(filter: CustomerFilter): string | undefined {
  if (filter.platformCustomerId !== undefined) return 'customers_list_pcid';
  if (filter.umaAddress !== undefined) return 'customers_list_uma';
  if (filter.region !== undefined) return 'customers_list_region';
  return undefined;
}

/** The ranges of the kind index a filter reads: each customer type (or the one asked), live, and deleted too when included. */
function kindRanges(filter: CustomerFilter): Where[] {
  const types = filter.customerType !== undefined ? [filter.customerType] : CUSTOMER_TYPES;
  const deletion = filter.includeDeleted ? [0, 1] : [0];
  return types.flatMap((type) => deletion.map((deleted) => whereOf(filter, { type, deleted })));
}

/**
 * The WHERE of the filters given (only those), with the id range a creation-time filter implies;
 * for one range of the kind index, its type and deletion first.
 */
function whereOf(filter: CustomerFilter, range?: { type: string; deleted: number }): Where {
  const where = new Where().eq(PLATFORM_KEY, filter.platformId.slice(-8));
  if (range) where.eq('customer_type', range.type).eq('is_deleted', range.deleted);
  where.eq('platform_id', filter.platformId);
  if (!range && !filter.includeDeleted) where.eq('is_deleted', 0);
  // The pcid and UMA indexes lead with the lower-case value (the search keys, customers-perf-004); the exact value is checked on the row.
  if (filter.platformCustomerId !== undefined) where.add(`${PCID_KEY} = lower(?)`, filter.platformCustomerId);
  if (filter.umaAddress !== undefined) where.add(`${UMA_KEY} = lower(?)`, filter.umaAddress);
  where
    .eq('platform_customer_id', filter.platformCustomerId)
    .eq('uma_address', filter.umaAddress)
    .eq('region', filter.region)
    .eq('customer_type', range ? undefined : filter.customerType)
    .cmp('created_at', '>', filter.createdAfter)
    .cmp('created_at', '<', filter.createdBefore)
    .cmp('updated_at', '>', filter.updatedAfter)
    .cmp('updated_at', '<', filter.updatedBefore);
  if (filter.createdAfter !== undefined) where.cmp('id', '>=', `Customer:${uuidv7Floor(Date.parse(filter.createdAfter) - ID_TIME_SLACK_MS)}`);
  if (filter.createdBefore !== undefined) where.cmp('id', '<', `Customer:${uuidv7Floor(Date.parse(filter.createdBefore) + ID_TIME_SLACK_MS)}`);
  if (filter.currency !== undefined) where.add('EXISTS (SELECT 1 FROM json_each(customers.currencies) WHERE json_each.value = ?)', filter.currency);
  return where;
}

/** The only SQL of the customers area. */
export class CustomerRepo {
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly byIdStmt;
  private readonly activeByPlatformIdStmt;
  private readonly activeByUmaStmt;
  private readonly subjectStmt;
  private readonly activeByUmaAnyCaseStmt;
  private readonly lists;
  private readonly removePlatformStmt;

  constructor(
    private readonly db: Db,
    private readonly counts: DeferredCounts,
  ) {
    // Positional parameters: better-sqlite3 looks each named one up on the object by a name it
    // makes afresh, which cost a create about a microsecond for these fifteen.
    this.insertStmt = db.prepare(
      `INSERT INTO customers (id, platform_id, customer_type, platform_customer_id, uma_address, region, currencies, kyc_status, profile, consent, contact, is_deleted, created_at, updated_at, wire)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.updateStmt = db.prepare(
      `UPDATE customers SET uma_address = @uma_address, region = @region, currencies = @currencies, kyc_status = @kyc_status, profile = @profile,
       consent = @consent, contact = @contact, is_deleted = @is_deleted, updated_at = @updated_at, wire = @wire WHERE id = @id`,
    );
    // Every column but the stored answer (`wire`, about 600 bytes): who reads a customer by id
    // wants its fields, and each column read costs (an SCA login reads its customer twice, issue 26).
    this.byIdStmt = keyedRows<CustomerFields>(
      db.prepare(
        `SELECT id, platform_id, customer_type, platform_customer_id, uma_address, region, currencies, kyc_status, profile, consent, contact, is_deleted, created_at, updated_at
         FROM customers WHERE platform_id = ? AND id = ?`,
      ),
    );
    this.subjectStmt = db.prepare('SELECT platform_customer_id, region, profile, contact, is_deleted FROM customers WHERE platform_id = ? AND id = ?').raw(true);
    this.activeByPlatformIdStmt = db
      .prepare(`SELECT id FROM customers WHERE ${PLATFORM_KEY} = substr(?, -8) AND ${PCID_KEY} = lower(?) AND platform_id = ? AND platform_customer_id = ? AND is_deleted = 0`)
      .pluck();
    this.activeByUmaStmt = db
      .prepare(`SELECT id FROM customers WHERE ${PLATFORM_KEY} = substr(?, -8) AND ${UMA_KEY} = lower(?) AND platform_id = ? AND uma_address = ? AND is_deleted = 0`)
      .pluck();
    // Through the UMA list index, which leads with the lower-case address.
    this.activeByUmaAnyCaseStmt = db
      .prepare(
        `SELECT id FROM customers INDEXED BY customers_list_uma
         WHERE ${PLATFORM_KEY} = substr(@platform, -8) AND ${UMA_KEY} = lower(@value) AND is_deleted = 0 AND platform_id = @platform
         ORDER BY id LIMIT 1`,
      )
      .pluck();
    this.lists = new ListQueries(db);
    this.removePlatformStmt = db.prepare(`DELETE FROM customers WHERE ${PLATFORM_KEY} = substr(@platform, -8) AND platform_id = @platform`);
  }

  insert(row: CustomerRow): void {
    this.insertStmt.run(
      row.id, row.platform_id, row.customer_type, row.platform_customer_id, row.uma_address, row.region, row.currencies, row.kyc_status, row.profile,
      row.consent, row.contact, row.is_deleted, row.created_at, row.updated_at, row.wire,
    );
    this.counts.add(CUSTOMER_COUNTS, [row.platform_id, row.customer_type, row.is_deleted], 1);
  }

  /** Writes every mutable column of the row. */
  update(row: CustomerRow): void {
    this.updateStmt.run(row);
  }

  byId(platformId: string, id: string): CustomerFields | undefined {
    return this.byIdStmt.get(platformId, id);
  }

  /** Who an active customer is and how to reach it (`CustomerSubject`): five columns, not fourteen. */
  subjectById(platformId: string, id: string): [platformCustomerId: string, region: string | null, profile: string, contact: string | null, isDeleted: number] | undefined {
    return this.subjectStmt.get(platformId, id) as [string, string | null, string, string | null, number] | undefined;
  }

  /** Id of the active customer holding this platformCustomerId, if any. */
  activeIdByPlatformCustomerId(platformId: string, platformCustomerId: string): string | undefined {
    return this.activeByPlatformIdStmt.get(platformId, platformCustomerId, platformId, platformCustomerId) as string | undefined;
  }

  /** Id of the active customer holding this UMA address, if any. */
  activeIdByUmaAddress(platformId: string, umaAddress: string): string | undefined {
    return this.activeByUmaStmt.get(platformId, umaAddress, platformId, umaAddress) as string | undefined;
  }

  /** Id of the active customer holding this UMA address in any letter case (UMA addresses are case-insensitive). */
  activeIdByUmaAddressAnyCase(platformId: string, umaAddress: string): string | undefined {
    return this.activeByUmaAnyCaseStmt.get({ platform: platformId, value: umaAddress }) as string | undefined;
  }

  /** One page in id order through the index of the most selective filter given. */
  page(filter: CustomerFilter, request: PageRequest): CustomerRow[] {
    const index = indexFor(filter);
    if (index === undefined) return this.lists.mergedPage<CustomerRow>(this.mergedPageOf(filter, request));
    return this.lists.page<CustomerRow>(this.pageOf(filter, index, request));
  }

  /** The `wire` of each row of the same page as `page`. */
  pageWires(filter: CustomerFilter, request: PageRequest): (string | null)[] {
    const index = indexFor(filter);
    if (index === undefined) return this.lists.mergedPageWith<string | null>('wire', this.mergedPageOf(filter, request));
    return this.lists.pageOf<string | null>('wire', this.pageOf(filter, index, request));
  }

  private pageOf(filter: CustomerFilter, index: string, request: PageRequest): KeysetPage {
    return { table: 'customers', where: whereOf(filter), index, afterKey: request.afterKey, take: request.take };
  }

  private mergedPageOf(filter: CustomerFilter, request: PageRequest): MergedPage {
    return { table: 'customers', key: 'id', index: KIND_INDEX, arms: kindRanges(filter), afterKey: request.afterKey, take: request.take };
  }

  /**
   * `totalCount`: the maintained count when the filters are only `customerType` and
   * `isIncludingDeleted`; otherwise the filtered set counted through its index up to COUNT_CAP.
   */
  count(filter: CustomerFilter): number {
    const { platformId, customerType, includeDeleted, ...others } = filter;
    if (Object.values(others).every((value) => value === undefined)) {
      const buckets = new Where().eq('platform_id', platformId).eq('customer_type', customerType);
      if (!includeDeleted) buckets.eq('is_deleted', 0);
      // With the counts of the open transaction's creates not written yet.
      const held = this.counts.held(CUSTOMER_COUNTS, ([platform, type, deleted]) => platform === platformId && (customerType === undefined || type === customerType) && (includeDeleted || deleted === 0));
      return this.lists.maintained('customer_counts', buckets) + held;
    }
    const index = indexFor(filter);
    if (index === undefined) return this.lists.mergedCountUpTo('customers', KIND_INDEX, kindRanges(filter));
    return this.lists.countUpTo('customers', whereOf(filter), index);
  }

  removePlatform(platformId: string): void {
    this.removePlatformStmt.run({ platform: platformId });
  }

  /** Writes the `wire` of every customer of a platform (after a snapshot import restored its rows). */
  refillWires(platformId: string, wireOf: (row: CustomerRow) => string): void {
    writeWires(this.db, wireOf, platformId);
  }
}

