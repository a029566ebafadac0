import { PLATFORM_KEY } from '../../core/list-query.js';
import type { Migration } from '../../store/db.js';
import { platformKeySql } from '../../tenancy/index.js';
import type { SandboxContext } from '../../store/context.js';
import { ApiError, ErrorCode } from '../../core/errors.js';
import { findCustomer, presentCustomer } from './service.js';
import { CUSTOMER_TYPES, KIND_INDEX, PCID_KEY, UMA_KEY } from './repo.js';

/**
 * Customer search for the control plane (`GET /_sandbox/search/customers`, the terminal UI's
 * `/`): a prefix of a name, an email, a platform customer id or a UMA address, in any letter
 * case, over indexes of `customers`, so one customer of a million is a few index range reads.
 *
 * Since customers-perf-004 the keys are expression indexes of the customers table (below,
 * `KEY_INDEXES`), kept by SQLite in every way a customer is written; the migrations before it
 * kept them in a table of their own, written by triggers. A customer matching on two keys (a
 * name and an email both starting with "jane") appears under both; the UI shows each customer
 * once. Deleted customers are never found.
 */
/** A column of row `r` (`new`, a table alias), or unqualified for an empty `r` (an index expression). */
const at = (r: string, column: string) => (r ? `${r}.${column}` : column);
const KEYS: [kind: string, expression: (row: string) => string][] = [
  ['name', (r) => `lower(coalesce(json_extract(${at(r, 'profile')}, '$.fullName'), json_extract(${at(r, 'profile')}, '$.businessInfo.legalName')))`],
  ['email', (r) => `lower(json_extract(${at(r, 'profile')}, '$.email'))`],
  ['platformCustomerId', (r) => `lower(${at(r, 'platform_customer_id')})`],
  ['umaAddress', (r) => `lower(${at(r, 'uma_address')})`],
];
/** The key rows of customer `row` (`new` in a trigger, a table alias with `from`), one SELECT per kind. */
const keysOf = (row: string, from = '') =>
  KEYS.map(([kind, expression]) => `SELECT ${row}.platform_id, ${expression(row)}, '${kind}', ${row}.id ${from} WHERE ${row}.is_deleted = 0 AND coalesce(${expression(row)}, '') <> ''`).join('\n      UNION ALL ');

export const customerSearchMigrations: Migration[] = [
  {
    id: 'customers-search-001',
    sql: `CREATE TABLE customer_search (
      platform_id TEXT NOT NULL,
      key TEXT NOT NULL,
      kind TEXT NOT NULL,
      customer_id TEXT NOT NULL,
      PRIMARY KEY (platform_id, key, kind, customer_id)
    ) WITHOUT ROWID;
    CREATE INDEX customer_search_customer ON customer_search (customer_id);
    CREATE TRIGGER customer_search_insert AFTER INSERT ON customers BEGIN
      INSERT OR IGNORE INTO customer_search (platform_id, key, kind, customer_id) ${keysOf('new')};
    END;
    CREATE TRIGGER customer_search_update AFTER UPDATE OF profile, platform_customer_id, uma_address, is_deleted, platform_id ON customers
    WHEN old.profile IS NOT new.profile OR old.platform_customer_id IS NOT new.platform_customer_id OR old.uma_address IS NOT new.uma_address
      OR old.is_deleted IS NOT new.is_deleted OR old.platform_id IS NOT new.platform_id
    BEGIN
      DELETE FROM customer_search WHERE customer_id = old.id;
      INSERT OR IGNORE INTO customer_search (platform_id, key, kind, customer_id) ${keysOf('new')};
    END;
    CREATE TRIGGER customer_search_delete AFTER DELETE ON customers BEGIN
      DELETE FROM customer_search WHERE customer_id = old.id;
    END;
    INSERT OR IGNORE INTO customer_search (platform_id, key, kind, customer_id) ${keysOf('c', 'FROM customers c')};`,
  },
];

/**
 * The search keys in compact rows (issue 26): the platform and the customer as integer row ids
 * (`platforms.rowid`, `customers.rowid`; neither changes while the row lives: platforms are
 * renamed in place by a snapshot import, never deleted, and the sandbox never VACUUMs), the
 * kind as a small integer in the order of its name (so pages keep the order they had), and no
 * index by customer: an update or a deletion removes the old row's keys, which it computes
 * from the old row itself. 880 bytes a customer become about 110.
 */
const KIND_CODES: Record<string, number> = { email: 0, name: 1, platformCustomerId: 2, umaAddress: 3 };
const keyExpression = (kind: string) => KEYS.find(([k]) => k === kind)![1];
/** The key rows of trigger row `new`: one platform lookup, one SELECT per kind. */
const compactKeysOf = (row: string) =>
  `SELECT p.rowid, k.key, k.kind, ${row}.rowid FROM platforms p, (${KEYS.map(([kind, expression]) => `SELECT ${expression(row)} AS key, ${KIND_CODES[kind]} AS kind`).join(' UNION ALL ')}) k
      WHERE p.id = ${row}.platform_id AND ${row}.is_deleted = 0 AND coalesce(k.key, '') <> ''`;
/** Removes the keys of trigger row `old` (computed from it; a deleted customer has none). */
const removeKeysOf = (row: string) =>
  `DELETE FROM customer_search WHERE platform = ${platformKeySql(`${row}.platform_id`)}
      AND key IN (${KEYS.map(([, expression]) => expression(row)).join(', ')}) AND customer = ${row}.rowid`;

export const customerSearchPerfMigrations: Migration[] = [
  {
    id: 'customers-perf-002',
    sql: `DROP TRIGGER customer_search_insert;
    DROP TRIGGER customer_search_update;
    DROP TRIGGER customer_search_delete;
    DROP TABLE customer_search;
    CREATE TABLE customer_search (
      platform INTEGER NOT NULL,
      key TEXT NOT NULL,
      kind INTEGER NOT NULL,
      customer INTEGER NOT NULL,
      PRIMARY KEY (platform, key, kind, customer)
    ) WITHOUT ROWID;
    CREATE TRIGGER customer_search_insert AFTER INSERT ON customers BEGIN
      INSERT OR IGNORE INTO customer_search (platform, key, kind, customer) ${compactKeysOf('new')};
    END;
    CREATE TRIGGER customer_search_update AFTER UPDATE OF profile, platform_customer_id, uma_address, is_deleted, platform_id ON customers
    WHEN old.profile IS NOT new.profile OR old.platform_customer_id IS NOT new.platform_customer_id OR old.uma_address IS NOT new.uma_address
      OR old.is_deleted IS NOT new.is_deleted OR old.platform_id IS NOT new.platform_id
    BEGIN
      ${removeKeysOf('old')};
      INSERT OR IGNORE INTO customer_search (platform, key, kind, customer) ${compactKeysOf('new')};
    END;
    CREATE TRIGGER customer_search_delete AFTER DELETE ON customers BEGIN
      ${removeKeysOf('old')};
    END;
    INSERT OR IGNORE INTO customer_search (platform, key, kind, customer)
      ${KEYS.map(([kind]) => `SELECT p.rowid, ${keyExpression(kind)('c')}, ${KIND_CODES[kind]}, c.rowid FROM customers c JOIN platforms p ON p.id = c.platform_id WHERE c.is_deleted = 0 AND coalesce(${keyExpression(kind)('c')}, '') <> ''`).join('\n      UNION ALL ')};`,
  },
];

/** What a search matched on. */
export type SearchKind = 'name' | 'email' | 'platformCustomerId' | 'umaAddress' | 'id';

export interface CustomerSearchQuery {
  /** The text typed; empty lists every live customer by id (creation order). */
  q: string;
  order: 'asc' | 'desc';
  limit: number;
  cursor?: string | undefined;
}

export interface CustomerSearchPage {
  data: (Record<string, unknown> & { matchedOn: SearchKind[] })[];
  hasMore: boolean;
  nextCursor?: string;
  /** Exact below `COUNT_CAP`; at the cap, `totalCountCapped` says there are more. */
  totalCount: number;
  totalCountCapped?: true;
}

/** Counts beyond this are not walked (a prefix matching most of a million rows would cost the walk). */
const COUNT_CAP = 10_000;
/** Above every character a key can hold: a prefix range's upper bound. */
const TOP = '\u{10FFFF}';

const encode = (parts: string[]) => Buffer.from(JSON.stringify(parts)).toString('base64url');
function decode(cursor: string, size: number): string[] {
  try {
    const parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(parts) && parts.length === size && parts.every((p) => typeof p === 'string')) return parts as string[];
  } catch {
    // below
  }
  throw badCursor();
}
/** A customer id as the sandbox makes them. */
const CUSTOMER_ID = /^Customer:[0-9a-f-]{36}$/i;
const badCursor = () =>
  new ApiError(400, ErrorCode.INVALID_INPUT, 'cursor is not one this search gave.', { errors: [{ field: 'cursor', constraint: 'format', message: 'use the nextCursor of the previous page' }] });

/**
 * The search keys as indexes of `customers` itself (issue 26), in place of the trigger-written
 * `customer_search` rows: SQLite keeps an expression index with the row in every write path
 * (create, update, delete, reset, import), without a trigger program and three more inserts a
 * create. The platform customer id and UMA address keys are the lists' own indexes, which
 * lead with the lower-case value (an exact filter adds the exact value, checked on the row); the
 * name and email keys are partial indexes of live customers. Each index ends in the id: within
 * one key, customers come in id order.
 */
const NAME_KEY = keyExpression('name')('');
const EMAIL_KEY = keyExpression('email')('');
const HAS_EMAIL = `json_extract(profile, '$.email') IS NOT NULL`;

/** One kind of key: its index, its expression, and what a row must be to be searched (the partial index's condition). */
interface KeyIndex {
  kind: SearchKind;
  index: string;
  key: string;
  live: string;
}
/** In the order of the kinds' names, which orders equal keys of different kinds. */
const KEY_INDEXES: KeyIndex[] = [
  { kind: 'email', index: 'customers_search_email', key: EMAIL_KEY, live: `is_deleted = 0 AND ${HAS_EMAIL}` },
  { kind: 'name', index: 'customers_search_name', key: NAME_KEY, live: 'is_deleted = 0' },
  { kind: 'platformCustomerId', index: 'customers_list_pcid', key: PCID_KEY, live: 'is_deleted = 0' },
  { kind: 'umaAddress', index: 'customers_list_uma', key: UMA_KEY, live: 'is_deleted = 0' },
];
const KIND_ORDER = new Map(KEY_INDEXES.map((k, i) => [k.kind, i]));

export const customerSearchIndexMigrations: Migration[] = [
  {
    id: 'customers-perf-004',
    sql: `DROP TRIGGER customer_search_insert;
    DROP TRIGGER customer_search_update;
    DROP TRIGGER customer_search_delete;
    DROP TABLE customer_search;
    DROP INDEX customers_list_pcid;
    DROP INDEX customers_list_uma;
    CREATE INDEX customers_list_pcid ON customers (${PLATFORM_KEY}, ${PCID_KEY}, id);
    CREATE INDEX customers_list_uma ON customers (${PLATFORM_KEY}, ${UMA_KEY}, id);
    CREATE INDEX customers_search_name ON customers (${PLATFORM_KEY}, ${NAME_KEY}, id) WHERE is_deleted = 0;
    CREATE INDEX customers_search_email ON customers (${PLATFORM_KEY}, ${EMAIL_KEY}, id) WHERE is_deleted = 0 AND ${HAS_EMAIL};`,
  },
];

type Dir = 'asc' | 'desc';
type Row = { id: string; key: string };

const statements = new WeakMap<SandboxContext, ReturnType<typeof prepare>>();
function prepare(ctx: SandboxContext) {
  const db = ctx.db;
  const scope = (k: KeyIndex) => `FROM customers INDEXED BY ${k.index} WHERE ${PLATFORM_KEY} = substr(@platform, -8) AND ${k.live} AND platform_id = @platform`;
  const inRange = (k: KeyIndex) => `${k.key} >= @lo AND ${k.key} < @hi`;
  /** Keys in the prefix range, optionally only past (`>`/`<`) or from (`>=`/`<=`) @key. */
  const range = (k: KeyIndex, dir: Dir, from?: '>' | '>=' | '<' | '<=') =>
    db.prepare(`SELECT id, ${k.key} AS key ${scope(k)} AND ${inRange(k)} ${from ? `AND ${k.key} ${from} @key` : ''} ORDER BY ${k.key} ${dir}, id ${dir} LIMIT @limit`);
  /** The rest of one key past @id. */
  const sameKey = (k: KeyIndex, dir: Dir) =>
    db.prepare(`SELECT id, ${k.key} AS key ${scope(k)} AND ${k.key} = @key AND id ${dir === 'asc' ? '>' : '<'} @id ORDER BY id ${dir} LIMIT @limit`);
  const byKind = KEY_INDEXES.map((k) => ({
    first: { asc: range(k, 'asc'), desc: range(k, 'desc') },
    past: { asc: range(k, 'asc', '>'), desc: range(k, 'desc', '<') },
    from: { asc: range(k, 'asc', '>='), desc: range(k, 'desc', '<=') },
    sameKey: { asc: sameKey(k, 'asc'), desc: sameKey(k, 'desc') },
  }));
  // Every live customer: the kind index's live range of each type, merged in id order.
  const live = (type: string) =>
    `FROM customers INDEXED BY ${KIND_INDEX} WHERE ${PLATFORM_KEY} = substr(@platform, -8) AND customer_type = '${type}' AND is_deleted = 0 AND platform_id = @platform`;
  const all = (dir: Dir, after: boolean) =>
    db.prepare(
      `${CUSTOMER_TYPES.map((type) => `SELECT id ${live(type)} ${after ? `AND id ${dir === 'asc' ? '>' : '<'} @id` : ''}`).join(' UNION ALL ')}
       ORDER BY 1 ${dir} LIMIT @limit`,
    );
  return {
    byKind,
    all: { asc: all('asc', false), desc: all('desc', false), ascAfter: all('asc', true), descAfter: all('desc', true) },
    // Customers, not keys: one matching on its name and its email counts once.
    countRange: db.prepare(
      `SELECT count(DISTINCT id) AS n FROM (${KEY_INDEXES.map((k) => `SELECT id FROM (SELECT id ${scope(k)} AND ${inRange(k)} LIMIT @cap)`).join(' UNION ALL ')})`,
    ),
    countAll: db.prepare(`SELECT count(*) AS n FROM (${CUSTOMER_TYPES.map((type) => `SELECT 1 ${live(type)}`).join(' UNION ALL ')} LIMIT @cap)`),
  };
}
const stmts = (ctx: SandboxContext) => {
  let s = statements.get(ctx);
  if (!s) statements.set(ctx, (s = prepare(ctx)));
  return s;
};

/** SQLite's order of text (its bytes in UTF-8), which JavaScript's differs from beyond the Basic Multilingual Plane. */
const compareText = (a: string, b: string) => (a === b ? 0 : Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));

/**
 * Up to `limit` keys of every kind in the prefix range `lo`..`hi`, after the cursor's (key, kind,
 * id) when given, merged in (key, kind, id) order (reversed for `desc`). Each kind reads one
 * index range (two when it resumes within the cursor's own key), so a page costs the same at
 * any depth.
 */
function keyPage(ctx: SandboxContext, params: { platform: string; lo: string; hi: string; limit: number }, dir: Dir, cursor?: { key: string; kind: number; id: string }) {
  const s = stmts(ctx);
  const rows: (Row & { kind: number })[] = [];
  KEY_INDEXES.forEach((_, kind) => {
    const q = s.byKind[kind]!;
    let found: Row[];
    if (!cursor) found = q.first[dir].all(params) as Row[];
    else if (kind === cursor.kind) {
      found = q.sameKey[dir].all({ ...params, key: cursor.key, id: cursor.id }) as Row[];
      if (found.length < params.limit) found = found.concat(q.past[dir].all({ ...params, key: cursor.key, limit: params.limit - found.length }) as Row[]);
    } else {
      // Equal keys order by kind: a later kind (in this direction) still has the cursor's key ahead of it.
      const later = dir === 'asc' ? kind > cursor.kind : kind < cursor.kind;
      found = (later ? q.from : q.past)[dir].all({ ...params, key: cursor.key }) as Row[];
    }
    for (const row of found) rows.push({ ...row, kind });
  });
  const sign = dir === 'asc' ? 1 : -1;
  rows.sort((a, b) => sign * (compareText(a.key, b.key) || a.kind - b.kind || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
  return rows.slice(0, params.limit);
}

/** The customer of this id, if the text is one of this platform (`Customer:…`). */
function byId(ctx: SandboxContext, platformId: string, text: string): Record<string, unknown> | undefined {
  if (!CUSTOMER_ID.test(text)) return undefined;
  try {
    const record = findCustomer(ctx, platformId, text);
    return record.isDeleted ? undefined : presentCustomer(record);
  } catch {
    return undefined;
  }
}

/**
 * A page of a platform's customers whose name, email, platform customer id or UMA address starts
 * with `q` (any letter case), ordered by the matched text, or, for an empty `q`, every live
 * customer by id (oldest or newest first). An exact customer id finds that customer.
 */
export function searchCustomers(ctx: SandboxContext, platformId: string, query: CustomerSearchQuery): CustomerSearchPage {
  const s = stmts(ctx);
  const q = query.q.trim().toLowerCase();
  const present = (id: string) => presentCustomer(findCustomer(ctx, platformId, id));
  if (q === '') {
    const after = query.cursor === undefined ? undefined : decode(query.cursor, 1)[0]!;
    const stmt = after === undefined ? s.all[query.order] : s.all[`${query.order}After`];
    const rows = stmt.all({ platform: platformId, id: after, limit: query.limit + 1 }) as { id: string }[];
    const page = rows.slice(0, query.limit);
    const total = query.cursor === undefined ? (s.countAll.get({ platform: platformId, cap: COUNT_CAP + 1 }) as { n: number }).n : undefined;
    return finish(page.map((r) => ({ ...present(r.id), matchedOn: [] })), rows.length > query.limit ? encode([page.at(-1)!.id]) : undefined, total);
  }
  const exact = query.cursor === undefined ? byId(ctx, platformId, query.q.trim()) : undefined;
  if (exact) return finish([{ ...exact, matchedOn: ['id'] }], undefined, 1);
  const params = { platform: platformId, lo: q, hi: q + TOP, limit: query.limit + 1 };
  let rows: (Row & { kind: number })[];
  if (query.cursor === undefined) rows = keyPage(ctx, params, query.order);
  else {
    const [key, kind, id] = decode(query.cursor, 3);
    const order = KIND_ORDER.get(kind as SearchKind);
    if (order === undefined || !CUSTOMER_ID.test(id!)) throw badCursor();
    rows = keyPage(ctx, params, query.order, { key: key!, kind: order, id: id! });
  }
  const page = rows.slice(0, query.limit);
  // One customer matching on two keys of this page is shown once, naming both.
  const byCustomer = new Map<string, SearchKind[]>();
  for (const row of page) byCustomer.set(row.id, [...(byCustomer.get(row.id) ?? []), KEY_INDEXES[row.kind]!.kind]);
  const data = [...byCustomer].map(([id, kinds]) => ({ ...present(id), matchedOn: kinds }));
  const last = page.at(-1);
  const total = query.cursor === undefined ? (s.countRange.get({ platform: platformId, lo: q, hi: q + TOP, cap: COUNT_CAP + 1 }) as { n: number }).n : undefined;
  return finish(data, rows.length > query.limit && last ? encode([last.key, KEY_INDEXES[last.kind]!.kind, last.id]) : undefined, total);
}

function finish(data: CustomerSearchPage['data'], nextCursor: string | undefined, total: number | undefined): CustomerSearchPage {
  const page: CustomerSearchPage = { data, hasMore: nextCursor !== undefined, totalCount: Math.min(total ?? -1, COUNT_CAP) };
  if (nextCursor) page.nextCursor = nextCursor;
  if (total === undefined) delete (page as Partial<CustomerSearchPage>).totalCount;
  else if (total > COUNT_CAP) page.totalCountCapped = true;
  return page;
}
