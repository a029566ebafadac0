import type { Database, Statement } from 'better-sqlite3';

/**
 * How many matches a list counts at most when no maintained count covers its filters: a larger
 * filtered set reports this number as `totalCount` (README, "Lists"). Pages, `hasMore` and
 * `nextCursor` stay exact.
 */
export const COUNT_CAP = 10_000;

/**
 * A platform's key in the list indexes keyed by platform: the last eight characters of its id (the
 * random tail of its UUID) instead of its 45; a query checks the whole id on the row as well. Written
 * the same in every index and query (an expression index serves the same expression only).
 */
export const PLATFORM_KEY = 'substr(platform_id, -8)';

/**
 * A WHERE built from the filters actually given (never `(@x IS NULL OR col = @x)`, which no
 * index can serve), with positional parameters. Its `sql` is also the key of the statement
 * cache, so each filter combination is prepared once.
 */
export class Where {
  readonly clauses: string[] = [];
  readonly params: unknown[] = [];

  /** `column = value`, when the value is given. */
  eq(column: string, value: unknown): this {
    if (value === undefined) return this;
    this.clauses.push(`${column} = ?`);
    this.params.push(value);
    return this;
  }

  /** `column <op> value`, when the value is given. */
  cmp(column: string, op: '<' | '<=' | '>' | '>=', value: unknown): this {
    if (value === undefined) return this;
    this.clauses.push(`${column} ${op} ?`);
    this.params.push(value);
    return this;
  }

  /** A clause of its own with its parameters (e.g. `customer_id IS NULL`). */
  add(sql: string, ...params: unknown[]): this {
    this.clauses.push(sql);
    this.params.push(...params);
    return this;
  }

  get sql(): string {
    return this.clauses.length ? this.clauses.join(' AND ') : '1';
  }
}

/** A LIMIT written into the SQL: a non-negative integer, checked (it becomes part of the statement text). */
function limitLiteral(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`a list limit must be a non-negative integer, not ${n}`);
  return String(n);
}

/** One page of a keyset list: rows strictly after `afterKey` in `order` of `key`. */
export interface KeysetPage {
  table: string;
  where: Where;
  /** The sort key: a unique, indexed column (`id`, time-ordered). */
  key?: string;
  order?: 'asc' | 'desc';
  afterKey: string | number | undefined;
  take: number;
  /** Forces the index whose columns end with `key` (e.g. `(platform_id, col, id)`), so the page is one index range. */
  index?: string | undefined;
}

/** One page of a keyset list over several ranges of one index (`ListQueries.mergedPageWith`). */
export interface MergedPage {
  table: string;
  /** The sort key: unique, and the last column of every entry of `index` (a row id, or an `id` the index ends in). */
  key: string;
  index: string;
  /** One WHERE per range: equalities on the index's leading columns, plus any test on the row. */
  arms: readonly Where[];
  afterKey: string | number | undefined;
  take: number;
  /** Ascending (the default) or descending `key`; each range is read in that order. */
  order?: 'asc' | 'desc';
}

/**
 * Prepared statements of a repo's lists, one per SQL text (one per filter combination), and the
 * three reads a list needs: a keyset page, a maintained count and a bounded count.
 */
export class ListQueries {
  private readonly statements = new Map<string, Statement<unknown[]>>();
  private readonly rowObjects = new Map<string, string>();

  constructor(private readonly db: Database) {}

  /** The statement for this SQL, prepared once. */
  statement(sql: string): Statement<unknown[]> {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare<unknown[]>(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Rows of one page, read through one index in key order (`take` is the page size plus one). */
  page<Row>(spec: KeysetPage): Row[] {
    return (this.pageValues(this.rowObject(spec.table), spec) as string[]).map((json) => JSON.parse(json) as Row);
  }

  /** One SQL expression over each row of a page (e.g. a `json_object` of a table with BLOB columns), in the same order and bounds as `page`. */
  pageWith<Value>(expression: string, spec: KeysetPage): Value[] {
    return this.pageValues(expression, spec) as Value[];
  }

  /** One column of each row of a page, in the same order and bounds as `page` (e.g. a row's stored wire JSON). */
  pageOf<Value>(column: string, spec: KeysetPage): Value[] {
    return this.pageValues(`"${column}"`, spec) as Value[];
  }

  /**
   * The values of one expression over a page. `take` is written into the SQL as a literal (one
   * statement per page size): SQLite's planner reads a bound `LIMIT ?`, so binding it marks the
   * statement expired and every run re-prepares it (about 20 us of a 21-row page).
   */
  private pageValues(expression: string, { table, where, key = 'id', order = 'asc', afterKey, take, index }: KeysetPage): unknown[] {
    const clauses = [where.sql];
    const params = [...where.params];
    if (afterKey !== undefined) {
      clauses.push(`${key} ${order === 'asc' ? '>' : '<'} ?`);
      params.push(afterKey);
    }
    const from = index ? `${table} INDEXED BY ${index}` : table;
    const sql = `SELECT ${expression} FROM ${from} WHERE ${clauses.join(' AND ')} ORDER BY ${key} ${order === 'asc' ? 'ASC' : 'DESC'} LIMIT ${limitLiteral(take)}`;
    return this.statement(sql).pluck().all(...params);
  }

  /**
   * The values of one expression over a page read from several ranges of one index, merged in
   * key order (ascending unless `order` says otherwise): a filter that stands for a few keys of an
   * index (an account type for its currencies, no filter for every currency) reads one range per
   * key. SQLite merges the arms of a compound SELECT that each come in key order (`MERGE (UNION
   * ALL)`, no sort), each arm stopping after `take` rows; a page reads about `take` rows and one
   * seek per arm.
   */
  mergedPageWith<Value>(expression: string, { table, key, index, arms, afterKey, take, order = 'asc' }: MergedPage): Value[] {
    if (arms.length === 0) return [];
    const params: unknown[] = [];
    const after = afterKey === undefined ? '' : ` AND ${key} ${order === 'asc' ? '>' : '<'} ?`;
    const selects = arms.map((where) => {
      params.push(...where.params);
      if (afterKey !== undefined) params.push(afterKey);
      return `SELECT ${expression}, (${key}) FROM ${table} INDEXED BY ${index} WHERE ${where.sql}${after}`;
    });
    const sql = `${selects.join(' UNION ALL ')} ORDER BY 2${order === 'asc' ? '' : ' DESC'} LIMIT ${limitLiteral(take)}`;
    return (this.statement(sql).raw().all(...params) as unknown[][]).map((row) => row[0] as Value);
  }

  /** Rows of one merged page (`mergedPageWith`), each as `page` gives it. */
  mergedPage<Row>(spec: MergedPage): Row[] {
    return this.mergedPageWith<string>(this.rowObject(spec.table), spec).map((json) => JSON.parse(json) as Row);
  }

  /** Matches of several ranges of one index (the arms of a merged page), counted up to `cap` (COUNT_CAP by default). */
  mergedCountUpTo(table: string, index: string, arms: readonly Where[], cap = COUNT_CAP): number {
    if (arms.length === 0) return 0;
    const selects = arms.map((where) => `SELECT 1 FROM ${table} INDEXED BY ${index} WHERE ${where.sql}`);
    const sql = `SELECT COUNT(*) FROM (${selects.join(' UNION ALL ')} LIMIT ${limitLiteral(cap)})`;
    return this.statement(sql).pluck().get(...arms.flatMap((where) => where.params)) as number;
  }

  /**
   * `json_object(...)` of every column of a table: each row crosses into JavaScript as one string
   * and one `JSON.parse`, about half the cost of a `SELECT *` row's column-by-column conversion,
   * and gives the same object for TEXT, INTEGER and NULL columns (the list tables hold no BLOBs).
   */
  private rowObject(table: string): string {
    let expression = this.rowObjects.get(table);
    if (!expression) {
      const columns = (this.db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[]).map((name) => `'${name}', "${name}"`);
      expression = `json_object(${columns.join(', ')})`;
      this.rowObjects.set(table, expression);
    }
    return expression;
  }

  /** The sum of a maintained count table's `n` over the buckets matching `where` (a few rows). */
  maintained(countsTable: string, where: Where): number {
    return (this.statement(`SELECT COALESCE(SUM(n), 0) FROM ${countsTable} WHERE ${where.sql}`).pluck().get(...where.params) as number) ?? 0;
  }

  /** Matches of `where`, counted through an index up to `cap` (COUNT_CAP by default). */
  countUpTo(table: string, where: Where, index?: string | undefined, cap = COUNT_CAP): number {
    const from = index ? `${table} INDEXED BY ${index}` : table;
    const sql = `SELECT COUNT(*) FROM (SELECT 1 FROM ${from} WHERE ${where.sql} LIMIT ${limitLiteral(cap)})`;
    return this.statement(sql).pluck().get(...where.params) as number;
  }
}

/** A bucket column of a maintained count: a column name, or `[name, expression]` with `{row}` for the row. */
export type CountColumn = string | [name: string, expression: string];

/**
 * DDL of a maintained count: a table `counts` keyed by the platform (`platformColumn`, `platform_id` unless a table holds it otherwise) and the bucket columns,
 * filled from the rows already in `table`, and kept by triggers on insert, delete and on
 * updates of the bucket columns. A list whose filters are all bucket columns reads its
 * `totalCount` as the sum of a few counter rows (`ListQueries.maintained`) instead of a scan.
 * Bucket expressions must not be NULL (wrap nullable columns, e.g. `{row}.deleted_at IS NOT NULL`).
 */
export function maintainedCountDdl(table: string, counts: string, columns: readonly CountColumn[], platformColumn = 'platform_id'): string {
  const { keys, bucket, add, watched, changed } = countSql(counts, columns, platformColumn);
  const decrement = (row: string) => `UPDATE ${counts} SET n = n - 1 WHERE ${keys.map((key, i) => `${key} = ${bucket(row)[i]}`).join(' AND ')};`;
  return `CREATE TABLE ${counts} (${keys.map((key) => `${key} NOT NULL`).join(', ')}, n INTEGER NOT NULL, PRIMARY KEY (${keys.join(', ')})) WITHOUT ROWID;
    INSERT INTO ${counts} (${keys.join(', ')}, n) SELECT ${bucket(table).join(', ')}, COUNT(*) FROM ${table} GROUP BY ${keys.map((_, i) => i + 1).join(', ')};
    CREATE TRIGGER ${counts}_insert AFTER INSERT ON ${table} BEGIN ${add('new', 1)} END;
    CREATE TRIGGER ${counts}_delete AFTER DELETE ON ${table} BEGIN ${decrement('old')} END;
    CREATE TRIGGER ${counts}_update AFTER UPDATE OF ${watched.join(', ')} ON ${table} WHEN ${changed} BEGIN ${decrement('old')} ${add('new', 1)} END;`;
}

/**
 * A maintained count (`maintainedCountDdl`) whose new rows its writer counts (`DeferredCounts`):
 * the table counted, its count table, the bucket columns after the platform's, and the platform's
 * column (`platform_id` unless given). The one description its triggers, its recount and the
 * writer's upserts are made from.
 */
export interface WriterCount {
  source: string;
  table: string;
  columns: readonly CountColumn[];
  platformColumn?: string;
}

/** The key columns of a writer-kept count table, the platform's first, in the order of a bucket's values. */
export function countKeys(count: WriterCount): string[] {
  return countSql(count.table, count.columns, count.platformColumn ?? 'platform_id').keys;
}

/**
 * The triggers of a maintained count whose rows are counted by the writer instead
 * (`DeferredCounts`, which holds a transaction's deltas and writes them before it commits): no
 * insert trigger, and the delete and update triggers add their -1 (and +1) as upserts, so a
 * bucket whose deltas are still held gets its row either way and the changes add up in any order
 * (a row created and deleted in one transaction counts 0, not 1).
 */
export function writerCountedTriggers({ source: table, table: counts, columns, platformColumn = 'platform_id' }: WriterCount): string {
  const { add, watched, changed } = countSql(counts, columns, platformColumn);
  return `DROP TRIGGER IF EXISTS ${counts}_insert;
    DROP TRIGGER IF EXISTS ${counts}_delete;
    DROP TRIGGER IF EXISTS ${counts}_update;
    CREATE TRIGGER ${counts}_delete AFTER DELETE ON ${table} BEGIN ${add('old', -1)} END;
    CREATE TRIGGER ${counts}_update AFTER UPDATE OF ${watched.join(', ')} ON ${table} WHEN ${changed} BEGIN ${add('old', -1)} ${add('new', 1)} END;`;
}

/**
 * The two statements that count one platform's rows of a maintained count again (its buckets
 * deleted, then filled from the rows), the platform bound to each as `?`: the buckets are the
 * triggers' own (`maintainedCountDdl`).
 */
export function recountPlatformSql({ source: table, table: counts, columns, platformColumn = 'platform_id' }: WriterCount): [remove: string, fill: string] {
  const { keys, bucket } = countSql(counts, columns, platformColumn);
  return [
    `DELETE FROM ${counts} WHERE ${platformColumn} = ?`,
    `INSERT INTO ${counts} (${keys.join(', ')}, n) SELECT ${bucket(table).join(', ')}, COUNT(*) FROM ${table} WHERE ${platformColumn} = ? GROUP BY ${keys.map((_, i) => i + 1).join(', ')}`,
  ];
}

/** The SQL pieces of a maintained count's triggers. */
function countSql(counts: string, columns: readonly CountColumn[], platformColumn: string) {
  const names = columns.map((column) => (typeof column === 'string' ? column : column[0]));
  const exprs = (row: string) => columns.map((column) => (typeof column === 'string' ? `${row}.${column}` : `(${column[1].replaceAll('{row}', row)})`));
  const keys = [platformColumn, ...names];
  const bucket = (row: string) => [`${row}.${platformColumn}`, ...exprs(row)];
  const add = (row: string, delta: 1 | -1) =>
    `INSERT INTO ${counts} (${keys.join(', ')}, n) VALUES (${bucket(row).join(', ')}, ${delta}) ON CONFLICT (${keys.join(', ')}) DO UPDATE SET n = n ${delta > 0 ? '+' : '-'} 1;`;
  const changed = bucket('old')
    .map((expr, i) => `(${expr}) IS NOT (${bucket('new')[i]})`)
    .join(' OR ');
  const watched = [...new Set([platformColumn, ...columns.flatMap((column) => (typeof column === 'string' ? [column] : [...column[1].matchAll(/\{row\}\.(\w+)/g)].map((m) => m[1]!)))])];
  return { keys, bucket, add, watched, changed };
}

/**
 * The smallest UUIDv7 (as in `core/ids.ts`) of a millisecond: ids drawn at or after `ms` sort
 * at or after it. Lets a list turn a creation-time filter into a key range of its id index.
 */
export function uuidv7Floor(ms: number): string {
  const hex = Math.max(0, Math.min(ms, 0xffffffffffff)).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-0000-000000000000`;
}
