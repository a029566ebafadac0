import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** The sandbox's database handle. */
export type Db = Database.Database;

/** One versioned schema change. `id` is unique across the project, e.g. `platform-001`. */
export interface Migration {
  id: string;
  sql: string;
  /** Fills what SQL cannot compute from the rows already there (e.g. a stored representation); runs after `sql`, in its transaction. */
  backfill?: (db: Db) => void;
}

/** Thrown when the database file cannot be opened; the CLI prints its message as one line. */
export class StoreOpenError extends Error {}

/**
 * Opens the sandbox database: a file (created with its folder) or `:memory:`, through one code
 * path. A file runs in WAL mode, locked exclusively by this process (no shared-memory index or
 * file locks per transaction, and a second sandbox on the same file is refused) and written
 * without fsync: a crash of the sandbox loses nothing it committed, while a power loss or an
 * operating-system crash may lose or damage the file. It is test data; speed wins.
 */
export function openDatabase(location: string): Db {
  const inMemory = location === ':memory:';
  let db: Db;
  try {
    if (!inMemory) mkdirSync(dirname(resolve(location)), { recursive: true });
    db = new Database(location);
    db.pragma('busy_timeout = 2000');
    if (!inMemory) {
      db.pragma('locking_mode = EXCLUSIVE');
      db.pragma('journal_mode = WAL');
      // Reads map the file instead of copying each page through read(): at a million rows a
      // list page touches pages the page cache does not hold. 1 GiB of address space, not memory.
      db.pragma('mmap_size = 1073741824');
      // A checkpoint copies each page changed since the last one into the file once: every 40 MB
      // of log rather than every 4 MB, a page written many times (an index's last page, a count)
      // is copied once for many commits. The log file stays at most this size.
      db.pragma('wal_autocheckpoint = 10000');
    }
    db.pragma('synchronous = OFF');
    // Sorts and temporary b-trees in memory, never in a temporary file.
    db.pragma('temp_store = MEMORY');
    db.pragma('foreign_keys = ON');
    // A small page cache (4 MiB; reads of the file go through the map above, not this cache):
    // SQLite's commit walks the whole cache's hash table whenever a b-tree page split renumbered
    // pages in it (balance_nonroot parks a page at the lock-byte page's number, which raises the
    // cache's highest key; pcache1Truncate at the end of the transaction then scans every
    // bucket). Nearly every group commit of a create splits some index page, so the walk's cost
    // grows with the cache: 32 MiB cost a create about 3-8 % more than 4 MiB (issue 26, part 6 of
    // bench/BASELINE-26.md), with no gain to reads or seeds at 300,000 customers.
    db.pragma('cache_size = -4096');
  } catch (error) {
    let reason = error instanceof Error ? error.message : String(error);
    if (/locked|busy/i.test(reason)) reason = 'it is in use by another running sandbox; stop that one, or pass another --db (or --memory)';
    throw new StoreOpenError(`cannot open database ${inMemory ? 'in memory' : resolve(location)}: ${reason}`);
  }
  return db;
}

/** Applies, in order and each in its own transaction, the migrations not yet recorded. */
export function migrate(db: Db, migrations: readonly Migration[]): string[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    id TEXT PRIMARY KEY,
    applied_at TEXT NOT NULL
  )`);
  const applied = new Set(
    (db.prepare('SELECT id FROM schema_migrations').all() as { id: string }[]).map((row) => row.id),
  );
  const record = db.prepare('INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)');
  const ran: string[] = [];
  const seen = new Set<string>();
  for (const migration of migrations) {
    if (seen.has(migration.id)) throw new Error(`migration ${migration.id} is listed twice`);
    seen.add(migration.id);
    if (applied.has(migration.id)) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      migration.backfill?.(db);
      record.run(migration.id, new Date().toISOString());
    })();
    ran.push(migration.id);
  }
  return ran;
}

/**
 * One statement per limit, the limit written into the SQL as a literal: a bound `LIMIT ?` makes
 * SQLite prepare the statement again on every run (the empty due-jobs read: 11 against 0.7 us,
 * issue 26). `sqlOf` makes the SQL for a limit; a limit is a positive integer.
 */
export function statementPerLimit(db: Db, sqlOf: (limit: number) => string): (limit: number) => Database.Statement<unknown[]> {
  const statements = new Map<number, Database.Statement<unknown[]>>();
  return (limit) => {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`a limit must be a positive integer, not ${limit}`);
    let statement = statements.get(limit);
    if (!statement) {
      statement = db.prepare<unknown[]>(sqlOf(limit));
      statements.set(limit, statement);
    }
    return statement;
  };
}

/** A SELECT whose rows come back as objects keyed by column, read as arrays (`keyedRows`). */
export interface KeyedRows<T> {
  get(...params: unknown[]): T | undefined;
  all(...params: unknown[]): T[];
}

/**
 * Runs `statement` (a SELECT) in raw mode and keys each row by its column names here: better-
 * sqlite3's own keyed rows cost about twice as much for a wide row (a customer's fifteen columns:
 * 9.6-11.9 us against 4.5-8 us read as an array and keyed in a loop, issue 26). The columns are
 * the statement's as prepared (after the migrations).
 */
export function keyedRows<T>(statement: Database.Statement<unknown[]>): KeyedRows<T> {
  const names = statement.columns().map((column) => column.name);
  statement.raw(true);
  const keyed = (values: unknown[]): T => {
    // The schema changes only when a database is opened (migrations), before any repo prepares.
    if (values.length !== names.length) throw new Error(`keyedRows: ${values.length} columns where ${names.length} were prepared (${statement.source})`);
    const row: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i += 1) row[names[i]!] = values[i];
    return row as T;
  };
  return {
    get: (...params) => {
      const values = statement.get(...params) as unknown[] | undefined;
      return values === undefined ? undefined : keyed(values);
    },
    all: (...params) => (statement.all(...params) as unknown[][]).map(keyed),
  };
}
