import { ListQueries, maintainedCountDdl, Where, writerCountedTriggers, type CountColumn, type WriterCount } from '../../core/list-query.js';
import { IsoText } from '../../core/clock.js';
import type { DeferredCounts } from '../../store/deferred-counts.js';
import { platformKeySql } from '../../tenancy/index.js';
import type { Statement } from 'better-sqlite3';
import type { Db, Migration } from '../../store/db.js';
import type { PageRequest } from '../../core/pagination.js';

// Short index keys for long text values: a lookup matches the key, then the whole value on the row.
// Each is written out as it is in the indexes of internal-accounts-perf-001 (SQLite uses an index
// on an expression only for the same expression); a test checks the plans (lists-plans).
/** The UUIDv7 time and counter of an id or owner stored as bytes (internal-accounts-perf-002's index keys). */
const ID_KEY = 'substr(id, 1, 8)';
const OWNER_KEY = 'substr(customer_id, 1, 8)';
/** The account type of a currency, in SQL (the same table as the service's `accountTypeOf`). */
const typeOfSql = (currency: string) =>
  `CASE ${currency} WHEN 'USDB' THEN 'EMBEDDED_WALLET' WHEN 'USDC' THEN 'INTERNAL_CRYPTO' WHEN 'BTC' THEN 'INTERNAL_CRYPTO' WHEN 'USDT' THEN 'INTERNAL_CRYPTO' ELSE 'INTERNAL_FIAT' END`;

/** The contract's `InternalAccountType`. */
export type InternalAccountType = 'INTERNAL_FIAT' | 'INTERNAL_CRYPTO' | 'EMBEDDED_WALLET';

/** The account type a currency is held in (`typeOfSql` is the same table in SQL). */
export function accountTypeOf(currency: string): InternalAccountType {
  if (currency === 'USDB') return 'EMBEDDED_WALLET';
  if (currency === 'USDC' || currency === 'BTC' || currency === 'USDT') return 'INTERNAL_CRYPTO';
  return 'INTERNAL_FIAT';
}

/** The bucket columns of the accounts' maintained count (after the platform's row id). */
const COUNT_COLUMNS: CountColumn[] = [['platform_owned', '{row}.customer_id IS NULL'], 'currency', ['type', typeOfSql('{row}.currency')]];

/** The accounts' maintained count (platform row id, platform-owned, currency, type), kept by the repo (`DeferredCounts`). */
export const ACCOUNT_COUNTS: WriterCount = { source: 'internal_accounts', table: 'internal_account_counts', columns: COUNT_COLUMNS, platformColumn: 'platform' };

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
  {
    // Compact rows (issue 26): an integer row id behind the text id, the lists keyed by it (ids
    // are made in creation order, so row id order is id order; the copy below keeps it), `type`
    // derived from the currency instead of stored, ACTIVE and an unchanged `updated_at` stored as
    // NULL, and the long text keys of the lookups indexed by a short piece of themselves (the
    // UUID's time and counter, the platform id's last eight characters) with the whole value
    // checked on the row. Six indexes of 140-165 MB per million rows become five of 20-32 MB.
    id: 'internal-accounts-perf-001',
    sql: `CREATE TABLE internal_accounts_compact (
      rid INTEGER PRIMARY KEY,
      id TEXT NOT NULL,
      platform_id TEXT NOT NULL,
      customer_id TEXT,
      currency TEXT NOT NULL,
      status TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT
    );
    INSERT INTO internal_accounts_compact (id, platform_id, customer_id, currency, status, created_at, updated_at)
      SELECT id, platform_id, customer_id, currency, NULLIF(status, 'ACTIVE'), created_at, NULLIF(updated_at, created_at) FROM internal_accounts ORDER BY id;
    DROP TABLE IF EXISTS internal_account_counts;
    DROP TABLE internal_accounts;
    ALTER TABLE internal_accounts_compact RENAME TO internal_accounts;
    CREATE INDEX internal_accounts_by_id ON internal_accounts (substr(id, 17, 18));
    CREATE INDEX internal_accounts_by_owner ON internal_accounts (substr(customer_id, 10, 18));
    CREATE INDEX internal_accounts_by_platform ON internal_accounts (substr(platform_id, -8));
    CREATE INDEX internal_accounts_by_currency ON internal_accounts (substr(platform_id, -8), currency);
    CREATE INDEX internal_accounts_by_type ON internal_accounts (substr(platform_id, -8), (CASE currency WHEN 'USDB' THEN 2 WHEN 'USDC' THEN 1 WHEN 'BTC' THEN 1 WHEN 'USDT' THEN 1 ELSE 0 END));
    ${maintainedCountDdl('internal_accounts', 'internal_account_counts', COUNT_COLUMNS)}`,
  },
  {
    // Smaller rows still (issue 26): the account id and the customer id as their UUID's 16 bytes
    // (the type prefix is the same on every row), the creation time NULL where the id's UUIDv7
    // says it, and the id and owner indexes keyed by the first eight of those bytes (the UUIDv7's
    // time and counter, unique among the ids one sandbox makes; the row's whole id is checked),
    // and the platform as its row id (`platform`, platforms.rowid: platforms are renamed in place,
    // never deleted; snapshots carry such a table without the column) in the row, the platform
    // indexes and the count table. Rows are copied with their text ids and compacted by the
    // backfill, in rid order.
    id: 'internal-accounts-perf-002',
    sql: `CREATE TABLE internal_accounts_v3 (
      rid INTEGER PRIMARY KEY,
      id BLOB NOT NULL,
      platform INTEGER NOT NULL,
      customer_id BLOB,
      currency TEXT NOT NULL,
      status TEXT,
      created_at TEXT,
      updated_at TEXT
    );
    INSERT INTO internal_accounts_v3 (rid, id, platform, customer_id, currency, status, created_at, updated_at)
      SELECT a.rid, a.id, p.rowid, a.customer_id, a.currency, a.status, a.created_at, a.updated_at FROM internal_accounts a JOIN platforms p ON p.id = a.platform_id ORDER BY a.rid;
    DROP TABLE internal_account_counts;
    DROP TABLE internal_accounts;
    ALTER TABLE internal_accounts_v3 RENAME TO internal_accounts;
    ${maintainedCountDdl('internal_accounts', 'internal_account_counts', COUNT_COLUMNS, 'platform')}`,
    backfill: (db) => {
      compactTextRows(db);
      db.exec(`CREATE INDEX internal_accounts_by_id ON internal_accounts (substr(id, 1, 8));
        CREATE INDEX internal_accounts_by_owner ON internal_accounts (substr(customer_id, 1, 8));
        CREATE INDEX internal_accounts_by_platform ON internal_accounts (platform);
        CREATE INDEX internal_accounts_by_currency ON internal_accounts (platform, currency);
        CREATE INDEX internal_accounts_by_type ON internal_accounts (platform, (CASE currency WHEN 'USDB' THEN 2 WHEN 'USDC' THEN 1 WHEN 'BTC' THEN 1 WHEN 'USDT' THEN 1 ELSE 0 END));`);
    },
  },
  {
    // Issue 26: a customer's eleven accounts went into six b-trees each. The platform and type
    // indexes go: a page with no currency filter (or a type) reads the currency index's range of
    // each currency the platform's customers hold (of that type; the maintained counts say
    // which), merged in row id order (`page`). Five b-trees an account, a few seeks a page.
    id: 'internal-accounts-perf-003',
    sql: `DROP INDEX internal_accounts_by_platform;
    DROP INDEX internal_accounts_by_type;`,
  },
  {
    // Issue 26: the counts of accounts written by the repo, a transaction's deltas summed by
    // bucket (`DeferredCounts`): a group commit of nine creates with eleven accounts each writes
    // eleven count rows once, not ninety-nine times. No insert trigger; deletions and moves are
    // still counted by triggers, as upserts that add up with the held deltas in any order.
    id: 'internal-accounts-perf-004',
    sql: writerCountedTriggers(ACCOUNT_COUNTS),
  },
];

/**
 * The 16 bytes of the UUID of `<prefix><uuid>` (a lower-case UUID, as the id source makes them);
 * null for any other text (an id this sandbox never made matches no row).
 */
function uuidBytes(id: string | null | undefined, prefix: string): Buffer | null {
  if (typeof id !== 'string' || id.length !== prefix.length + 36 || !id.startsWith(prefix)) return null;
  const p = prefix.length;
  if (id.charCodeAt(p + 8) !== DASH || id.charCodeAt(p + 13) !== DASH || id.charCodeAt(p + 18) !== DASH || id.charCodeAt(p + 23) !== DASH) return null;
  // Digit by digit into the bytes (issue 26: twelve ids a default create), lower case only, as
  // the id source writes them (another spelling is not this id).
  const bytes = Buffer.allocUnsafe(16);
  for (let i = 0; i < 16; i += 1) {
    const at = p + HEX_PAIR_AT[i]!;
    const high = NIBBLE[id.charCodeAt(at)] ?? -1;
    const low = NIBBLE[id.charCodeAt(at + 1)] ?? -1;
    if (high < 0 || low < 0) return null;
    bytes[i] = (high << 4) | low;
  }
  return bytes;
}

const DASH = 0x2d;
/** Where each byte's two hex digits start in a UUID's text. */
const HEX_PAIR_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
/** The value of each lower-case hex digit by character code; -1 for any other character. */
const NIBBLE = Int8Array.from({ length: 128 }, (_, code) => (code >= 0x30 && code <= 0x39 ? code - 0x30 : code >= 0x61 && code <= 0x66 ? code - 0x57 : -1));
/** `<prefix><uuid>` of 32 hex digits (`hex()` of the stored bytes, or the bytes themselves). */
function uuidText(value: Buffer | string, prefix: string): string {
  const h = typeof value === 'string' ? value.toLowerCase() : value.toString('hex');
  return `${prefix}${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
/** The creation time a UUIDv7's first 48 bits say (what `created_at` holds when it is NULL). */
function uuidTimeIso(value: Buffer | string): string {
  const h = typeof value === 'string' ? value : value.toString('hex');
  return new Date(parseInt(h.slice(0, 12), 16)).toISOString();
}
const ACCOUNT = 'InternalAccount:';
const CUSTOMER = 'Customer:';

/**
 * Rows still in the text shape (copied by internal-accounts-perf-002, or imported from a snapshot
 * that an earlier sandbox took) into the compact one: ids as their UUID's bytes, a creation time
 * the id says as NULL. A thousand rows a statement.
 */
function compactTextRows(db: Db, platformId?: string): void {
  const scope = platformId === undefined ? '' : `AND platform = ${platformKeySql('@platform')}`;
  const batch = db.prepare(`SELECT rid, id, customer_id, created_at FROM internal_accounts WHERE rid > @after AND (typeof(id) = 'text' OR typeof(customer_id) = 'text') ${scope} ORDER BY rid LIMIT 1000`);
  const write = db.prepare('UPDATE internal_accounts SET id = ?, customer_id = ?, created_at = ? WHERE rid = ?');
  for (let after = 0; ; ) {
    const rows = batch.all({ after, platform: platformId }) as { rid: number; id: string | Buffer; customer_id: string | Buffer | null; created_at: string | null }[];
    if (rows.length === 0) return;
    for (const row of rows) {
      const id = typeof row.id === 'string' ? uuidBytes(row.id, ACCOUNT) : row.id;
      const customer = typeof row.customer_id === 'string' ? uuidBytes(row.customer_id, CUSTOMER) : row.customer_id;
      if (!id || (row.customer_id !== null && !customer)) throw new Error(`internal account ${String(row.id)} has an id this sandbox cannot store (not <type>:<uuid>)`);
      write.run(id, customer, row.created_at === uuidTimeIso(id) ? null : row.created_at, row.rid);
    }
    after = rows[rows.length - 1]!.rid;
  }
}

/** Snapshots carry the stored rows; rows of an earlier sandbox's snapshot come in as text and are compacted after the import. */
export function refillInternalAccounts(db: Db, counts: DeferredCounts, platformId: string): void {
  compactTextRows(db, platformId);
  // The restored rows were inserted as they are (no insert trigger counts them): counted again,
  // less the deltas still held for the platform (accounts made earlier in the transaction, whose
  // rows the import replaced), which its commit will add.
  const platform = db.prepare(`SELECT ${platformKeySql('?')}`).pluck().get(platformId) as number;
  counts.recountPlatform(ACCOUNT_COUNTS, platform);
}

/** An internal account as the service sees it (the stored row with its derived values filled in). */
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

/** A row as stored: `status` NULL is ACTIVE, `updated_at` NULL is `created_at`; `type` is not stored. */
interface StoredRow {
  rid: number;
  /** The UUID's bytes (or, from a page's `json_object`, their `hex()`). */
  id: Buffer | string;
  customer_id: Buffer | string | null;
  currency: string;
  status: string | null;
  created_at: string;
  updated_at: string | null;
}

const COLUMNS = 'rid, id, customer_id, currency, status, created_at, updated_at';
/** A page's rows as one JSON text each (`json_object` holds no BLOB: the ids as hex). */
const ROW_JSON =
  "json_object('rid', rid, 'id', hex(id), 'customer_id', hex(customer_id), 'currency', currency, 'status', status, 'created_at', created_at, 'updated_at', updated_at)";

/** The service's row of a stored one (every query reads one platform's rows: `platformId`). */
function fromStored(row: StoredRow, platformId: string): InternalAccountRow {
  const created = row.created_at ?? uuidTimeIso(row.id);
  return {
    id: uuidText(row.id, ACCOUNT),
    platform_id: platformId,
    customer_id: row.customer_id === null ? null : uuidText(row.customer_id, CUSTOMER),
    type: accountTypeOf(row.currency),
    currency: row.currency,
    status: row.status ?? 'ACTIVE',
    created_at: created,
    updated_at: row.updated_at ?? created,
  };
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

/**
 * The index whose leading equalities serve the filter (every one ends in the row id, the sort
 * key): an owner's few accounts, or one currency's range. The customers' accounts of every
 * currency, or of a type, are several ranges of the currency index (`page`).
 */
function indexFor(filter: InternalAccountFilter): string {
  return filter.customerId !== undefined || !filter.customerOwned ? 'internal_accounts_by_owner' : 'internal_accounts_by_currency';
}

/** The WHERE of the filters given, and only those: each short index key, then the whole value. */
function whereOf(filter: InternalAccountFilter, platform: number): Where {
  const where = new Where();
  if (!filter.customerOwned) where.add(`${OWNER_KEY} IS NULL AND customer_id IS NULL`);
  else if (filter.customerId !== undefined) {
    // An id this sandbox never made (not Customer:<uuid>) matches no row.
    const customer = uuidBytes(filter.customerId, CUSTOMER) ?? Buffer.alloc(8);
    where.eq(OWNER_KEY, customer.subarray(0, 8)).eq('customer_id', customer);
  }
  where.eq('platform', platform);
  if (filter.customerOwned && filter.customerId === undefined) where.add('customer_id IS NOT NULL');
  return where.eq('currency', filter.currency).eq(typeOfSql('currency'), filter.type);
}

/** The text of the instant accounts were last created at (the accounts of consecutive creates often share one). */
const createdIso = new IsoText();

/** The only SQL of the internal-accounts area. */
export class InternalAccountRepo {
  private readonly insertStmts = new Map<number, Statement<unknown[]>>();
  private readonly currenciesStmt;
  private readonly byIdStmt;
  private readonly ridStmt;
  private readonly byCustomerStmt;
  private readonly byPlatformOwnedStmt;
  private readonly lists;
  private readonly removePlatformStmt;
  private readonly updateStatusStmt;
  private readonly closeOwnerStmt;
  private readonly platformRowidStmt;
  /** Platform ids to their row ids (a platform's row id never changes: renamed in place, never deleted). */
  private readonly platformRowids = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly counts: DeferredCounts,
  ) {
    // The id is the one asked for: not read back. The owner as hex text (no Buffer made), the
    // values as an array (no keyed object): a third of the CPU of the keyed row (issue 26).
    this.byIdStmt = db.prepare(`SELECT hex(customer_id), currency, status, created_at, updated_at FROM internal_accounts WHERE ${ID_KEY} = substr(?, 1, 8) AND id = ? AND platform = ?`).raw();
    this.ridStmt = db.prepare(`SELECT rid FROM internal_accounts WHERE ${ID_KEY} = substr(@id, 1, 8) AND id = @id`).pluck();
    this.byCustomerStmt = db.prepare(`SELECT ${COLUMNS} FROM internal_accounts WHERE ${OWNER_KEY} = substr(@customer, 1, 8) AND customer_id = @customer AND platform = @platform ORDER BY rid`);
    this.byPlatformOwnedStmt = db.prepare(`SELECT ${COLUMNS} FROM internal_accounts WHERE ${OWNER_KEY} IS NULL AND customer_id IS NULL AND platform = ? ORDER BY rid`);
    this.lists = new ListQueries(db);
    this.currenciesStmt = db.prepare('SELECT currency, type, n FROM internal_account_counts WHERE platform = ? AND platform_owned = 0');
    this.removePlatformStmt = db.prepare(`DELETE FROM internal_accounts WHERE platform = ?`);
    this.platformRowidStmt = db.prepare(`SELECT ${platformKeySql('?')}`).pluck();
    // `updated_at` NULL is the creation time: `@created` is the id's when `created_at` is NULL.
    this.updateStatusStmt = db.prepare(
      `UPDATE internal_accounts SET status = NULLIF(@status, 'ACTIVE'), updated_at = NULLIF(@at, coalesce(created_at, @created)) WHERE ${ID_KEY} = substr(@id, 1, 8) AND id = @id`,
    );
    this.closeOwnerStmt = db.prepare(
      `UPDATE internal_accounts SET status = 'CLOSED', updated_at = @at
       WHERE ${OWNER_KEY} = substr(@customer, 1, 8) AND customer_id = @customer AND platform = @platform AND status IS NOT 'CLOSED'`,
    );
  }

  /** The platform's row id (`platform` of its rows); 0, which no platform has, for an unknown one. */
  private platform(platformId: string): number {
    let rowid = this.platformRowids.get(platformId);
    if (rowid === undefined) {
      rowid = this.platformRowidStmt.get(platformId) as number | undefined;
      if (rowid === undefined) return 0;
      this.platformRowids.set(platformId, rowid);
    }
    return rowid;
  }

  /** Writes one new account. */
  insert(row: InternalAccountRow): void {
    this.insertMany([row]);
  }

  /** Writes new accounts in one statement (a customer's eleven in one INSERT). */
  insertMany(rows: readonly InternalAccountRow[]): void {
    if (rows.length === 0) return;
    let statement = this.insertStmts.get(rows.length);
    if (!statement) {
      const values = Array.from({ length: rows.length }, () => '(?, ?, ?, ?, ?, ?, ?)').join(', ');
      statement = this.db.prepare<unknown[]>(`INSERT INTO internal_accounts (id, platform, customer_id, currency, status, created_at, updated_at) VALUES ${values}`);
      this.insertStmts.set(rows.length, statement);
    }
    const params: unknown[] = [];
    // The accounts of one create share their owner and creation time: each converted once.
    let owner: string | null | undefined;
    let customer: Buffer | null = null;
    let createdText: string | undefined;
    let createdMs = NaN;
    for (const row of rows) {
      const id = uuidBytes(row.id, ACCOUNT);
      if (row.customer_id !== owner) {
        owner = row.customer_id;
        customer = owner === null ? null : uuidBytes(owner, CUSTOMER);
      }
      if (!id || (row.customer_id !== null && !customer)) throw new Error(`internal account ${row.id} of ${String(row.customer_id)}: ids are <type>:<uuid>`);
      if (row.created_at !== createdText) {
        createdText = row.created_at;
        const ms = Date.parse(createdText);
        createdMs = createdIso.of(ms) === createdText ? ms : NaN;
      }
      const created = id.readUIntBE(0, 6) === createdMs ? null : row.created_at;
      const platform = this.platform(row.platform_id);
      if (platform === 0) throw new Error(`internal account ${row.id}: no platform ${row.platform_id}`);
      params.push(id, platform, customer, row.currency, row.status === 'ACTIVE' ? null : row.status, created, row.updated_at === row.created_at ? null : row.updated_at);
    }
    statement.run(...params);
    for (let i = 0; i < params.length; i += 7) {
      const currency = params[i + 3] as string;
      this.counts.add(ACCOUNT_COUNTS, [params[i + 1] as number, params[i + 2] === null ? 1 : 0, currency, accountTypeOf(currency)], 1);
    }
  }

  byId(platformId: string, id: string): InternalAccountRow | undefined {
    const key = uuidBytes(id, ACCOUNT);
    if (!key) return undefined;
    const row = this.byIdStmt.get(key, key, this.platform(platformId)) as [string, string, string | null, string | null, string | null] | undefined;
    if (!row) return undefined;
    const [customerHex, currency, status, createdAt, updatedAt] = row;
    // `id` is canonical (uuidBytes takes the lower-case spelling only): the stored id's text.
    const created = createdAt ?? uuidTimeIso(key);
    return {
      id,
      platform_id: platformId,
      // hex(NULL) is '': a platform's own account.
      customer_id: customerHex ? uuidText(customerHex, CUSTOMER) : null,
      type: accountTypeOf(currency),
      currency,
      status: status ?? 'ACTIVE',
      created_at: created,
      updated_at: updatedAt ?? created,
    };
  }

  /** Accounts of one owner (`customerId` null: the platform's own), oldest first. */
  byOwner(platformId: string, customerId: string | null): InternalAccountRow[] {
    const platform = this.platform(platformId);
    const customer = customerId === null ? null : uuidBytes(customerId, CUSTOMER);
    let rows: StoredRow[] = [];
    if (customerId === null) rows = this.byPlatformOwnedStmt.all(platform) as StoredRow[];
    else if (customer) rows = this.byCustomerStmt.all({ customer, platform }) as StoredRow[];
    return rows.map((row) => fromStored(row, platformId));
  }

  /**
   * One page in creation order (the row id; ids are made in the same order) through the index of
   * the filter given. The cursor's account id is looked up for its row id; an unknown one ends the list.
   */
  page(filter: InternalAccountFilter, request: PageRequest): InternalAccountRow[] {
    let afterKey: number | undefined;
    if (request.afterKey !== undefined) {
      const key = uuidBytes(request.afterKey, ACCOUNT);
      afterKey = key ? (this.ridStmt.get({ id: key }) as number | undefined) : undefined;
      if (afterKey === undefined) return [];
    }
    const platform = this.platform(filter.platformId);
    let json: string[];
    if (filter.customerOwned && filter.customerId === undefined && filter.currency === undefined) {
      // The customers' accounts of every currency (or of a type's): the currency index's range
      // of each currency the platform's customers hold (the counts say which), merged.
      const currencies = this.customerCurrencies(platform).filter((c) => filter.type === undefined || c.type === filter.type);
      const arms = currencies.map(({ currency }) => whereOf({ ...filter, type: undefined, currency }, platform));
      json = this.lists.mergedPageWith<string>(ROW_JSON, { table: 'internal_accounts', key: 'rid', index: 'internal_accounts_by_currency', arms, afterKey, take: request.take });
    } else {
      const spec = { table: 'internal_accounts', key: 'rid', where: whereOf(filter, platform), index: indexFor(filter), afterKey, take: request.take };
      json = this.lists.pageWith<string>(ROW_JSON, spec);
    }
    return json.map((text) => fromStored(JSON.parse(text) as StoredRow, filter.platformId));
  }

  /**
   * `totalCount`: one customer's accounts counted through the owner index; every other
   * filter combination (owner kind, currency, type) from the maintained count.
   */
  count(filter: InternalAccountFilter): number {
    if (filter.customerOwned && filter.customerId !== undefined) return this.lists.countUpTo('internal_accounts', whereOf(filter, this.platform(filter.platformId)), indexFor(filter));
    const platform = this.platform(filter.platformId);
    const owned = filter.customerOwned ? 0 : 1;
    const buckets = new Where().eq('platform', platform).eq('platform_owned', owned).eq('currency', filter.currency).eq('type', filter.type);
    // With the deltas of the open transaction not written yet.
    const held = this.counts.held(ACCOUNT_COUNTS, ([p, o, currency, type]) => p === platform && o === owned && (filter.currency === undefined || currency === filter.currency) && (filter.type === undefined || type === filter.type));
    return this.lists.maintained('internal_account_counts', buckets) + held;
  }

  /** The currencies (and their types) the platform's customers hold accounts in, by the counts and the deltas not written yet. */
  private customerCurrencies(platform: number): { currency: string; type: string }[] {
    const held = new Map<string, { currency: string; type: string; n: number }>();
    for (const row of this.currenciesStmt.all(platform) as { currency: string; type: string; n: number }[]) held.set(`${row.currency}\u0001${row.type}`, row);
    for (const { key, delta } of this.counts.pending(ACCOUNT_COUNTS)) {
      const [p, owned, currency, type] = key as [number, number, string, string];
      if (p !== platform || owned !== 0) continue;
      const bucket = held.get(`${currency}\u0001${type}`);
      if (bucket) bucket.n += delta;
      else held.set(`${currency}\u0001${type}`, { currency, type, n: delta });
    }
    return [...held.values()].filter((bucket) => bucket.n > 0).sort((a, b) => (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0));
  }

  updateStatus(id: string, status: string, updatedAt: string): void {
    const key = uuidBytes(id, ACCOUNT);
    if (key) this.updateStatusStmt.run({ status, at: updatedAt, id: key, created: uuidTimeIso(key) });
  }

  /** Closes every open account of a customer. */
  closeOwner(platformId: string, customerId: string, updatedAt: string): void {
    const customer = uuidBytes(customerId, CUSTOMER);
    if (customer) this.closeOwnerStmt.run({ at: updatedAt, platform: this.platform(platformId), customer });
  }

  removePlatform(platformId: string): void {
    this.removePlatformStmt.run(this.platform(platformId));
  }
}
