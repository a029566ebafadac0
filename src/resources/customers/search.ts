import type { Migration } from '../../store/db.js';
import { platformKeySql } from '../../tenancy/index.js';
import type { SandboxContext } from '../../store/context.js';
import { ApiError, ErrorCode } from '../../core/errors.js';
import { findCustomer, presentCustomer } from './service.js';
import { PLATFORM_KEY } from './repo.js';

/**
 * Customer search for the control plane (`GET /_sandbox/search/customers`, the terminal UI's
 * `/`): a prefix of a name, an email, a platform customer id or a UMA address, in any letter
 * case, over an index of its own, so one customer of a million is one index range read.
 *
 * The keys live in `customer_search`, written by triggers on `customers` (so every way a customer
 * is written, created, updated, deleted, reset, imported, keeps them, and the customers' own
 * storage stays the repo's business). One row per key: a customer matching on two keys (a name and
 * an email both starting with "jane") appears under both; the UI shows each customer once.
 * Deleted customers have no keys. An update that changes none of the keyed columns (a KYC
 * decision, a contact verification) leaves them alone.
 */
const KEYS: [kind: string, expression: (row: string) => string][] = [
  ['name', (r) => `lower(coalesce(json_extract(${r}.profile, '$.fullName'), json_extract(${r}.profile, '$.businessInfo.legalName')))`],
  ['email', (r) => `lower(json_extract(${r}.profile, '$.email'))`],
  ['platformCustomerId', (r) => `lower(${r}.platform_customer_id)`],
  ['umaAddress', (r) => `lower(${r}.uma_address)`],
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
const KIND_NAMES = Object.keys(KIND_CODES) as SearchKind[];
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
const badCursor = () =>
  new ApiError(400, ErrorCode.INVALID_INPUT, 'cursor is not one this search gave.', { errors: [{ field: 'cursor', constraint: 'format', message: 'use the nextCursor of the previous page' }] });

const statements = new WeakMap<SandboxContext, ReturnType<typeof prepare>>();
function prepare(ctx: SandboxContext) {
  const db = ctx.db;
  const range = (dir: 'asc' | 'desc', after: boolean) =>
    db.prepare(
      `SELECT s.key, s.kind, s.customer, c.id FROM customer_search s JOIN customers c ON c.rowid = s.customer
       WHERE s.platform = ${platformKeySql('@platform')} AND s.key >= @lo AND s.key < @hi
       ${after ? `AND (s.key, s.kind, s.customer) ${dir === 'asc' ? '>' : '<'} (@key, @kind, @customer)` : ''}
       ORDER BY s.key ${dir}, s.kind ${dir}, s.customer ${dir} LIMIT @limit`,
    );
  const all = (dir: 'asc' | 'desc', after: boolean) =>
    db.prepare(
      `SELECT id FROM customers WHERE ${PLATFORM_KEY} = substr(@platform, -8) AND platform_id = @platform AND is_deleted = 0 ${after ? `AND id ${dir === 'asc' ? '>' : '<'} @id` : ''}
       ORDER BY id ${dir} LIMIT @limit`,
    );
  return {
    range: { asc: range('asc', false), desc: range('desc', false), ascAfter: range('asc', true), descAfter: range('desc', true) },
    all: { asc: all('asc', false), desc: all('desc', false), ascAfter: all('asc', true), descAfter: all('desc', true) },
    // Customers, not keys: one matching on its name and its email counts once.
    countRange: db.prepare(
      `SELECT count(DISTINCT customer) AS n FROM (SELECT customer FROM customer_search WHERE platform = ${platformKeySql('@platform')} AND key >= @lo AND key < @hi LIMIT @cap)`,
    ),
    countAll: db.prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM customers WHERE ${PLATFORM_KEY} = substr(@platform, -8) AND platform_id = @platform AND is_deleted = 0 LIMIT @cap)`),
  };
}
const stmts = (ctx: SandboxContext) => {
  let s = statements.get(ctx);
  if (!s) statements.set(ctx, (s = prepare(ctx)));
  return s;
};

/** The customer of this id, if the text is one of this platform (`Customer:…`). */
function byId(ctx: SandboxContext, platformId: string, text: string): Record<string, unknown> | undefined {
  if (!/^Customer:[0-9a-f-]{36}$/i.test(text)) return undefined;
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
  let rows: { key: string; kind: number; customer: number; id: string }[];
  if (query.cursor === undefined) rows = s.range[query.order].all(params) as typeof rows;
  else {
    const [key, kind, customer] = decode(query.cursor, 3);
    const code = KIND_CODES[kind!];
    if (code === undefined || !/^[0-9]{1,15}$/.test(customer!)) throw badCursor();
    rows = s.range[`${query.order}After`].all({ ...params, key, kind: code, customer: Number(customer) }) as typeof rows;
  }
  const page = rows.slice(0, query.limit);
  // One customer matching on two keys of this page is shown once, naming both.
  const byCustomer = new Map<string, SearchKind[]>();
  for (const row of page) byCustomer.set(row.id, [...(byCustomer.get(row.id) ?? []), KIND_NAMES[row.kind]!]);
  const data = [...byCustomer].map(([id, kinds]) => ({ ...present(id), matchedOn: kinds }));
  const last = page.at(-1);
  const total = query.cursor === undefined ? (s.countRange.get({ ...params, cap: COUNT_CAP + 1 }) as { n: number }).n : undefined;
  return finish(data, rows.length > query.limit && last ? encode([last.key, KIND_NAMES[last.kind]!, String(last.customer)]) : undefined, total);
}

function finish(data: CustomerSearchPage['data'], nextCursor: string | undefined, total: number | undefined): CustomerSearchPage {
  const page: CustomerSearchPage = { data, hasMore: nextCursor !== undefined, totalCount: Math.min(total ?? -1, COUNT_CAP) };
  if (nextCursor) page.nextCursor = nextCursor;
  if (total === undefined) delete (page as Partial<CustomerSearchPage>).totalCount;
  else if (total > COUNT_CAP) page.totalCountCapped = true;
  return page;
}
