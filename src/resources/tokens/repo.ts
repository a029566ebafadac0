import type { Statement } from 'better-sqlite3';
import type { Db, Migration } from '../../store/db.js';

/**
 * API tokens: extra HTTP Basic credentials of a platform; only a hash of each secret is kept
 * (`secret_hash`: a salted scrypt string; tokens made before it hold their secret's raw SHA-256
 * digest, replaced on first use).
 */
export const tokenMigrations: Migration[] = [
  {
    id: 'tokens-001',
    sql: `CREATE TABLE api_tokens (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      name TEXT NOT NULL,
      permissions TEXT NOT NULL,
      client_id TEXT NOT NULL UNIQUE,
      secret_hash BLOB NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX api_tokens_platform ON api_tokens (platform_id, id);`,
  },
];

/** A token row as stored. */
export interface ApiTokenRow {
  id: string;
  platform_id: string;
  name: string;
  permissions: string;
  client_id: string;
  secret_hash: string | Buffer;
  created_at: string;
  updated_at: string;
}

/** Filters of `GET /tokens`; only the given ones reach the SQL. */
export interface TokenFilters {
  name?: string | undefined;
  createdAfter?: string | undefined;
  createdBefore?: string | undefined;
  updatedAfter?: string | undefined;
  updatedBefore?: string | undefined;
}

const filterColumns: [keyof TokenFilters, string][] = [
  ['name', 'name = ?'],
  ['createdAfter', 'created_at >= ?'],
  ['createdBefore', 'created_at <= ?'],
  ['updatedAfter', 'updated_at >= ?'],
  ['updatedBefore', 'updated_at <= ?'],
];

/** The only SQL of the tokens area. */
export class ApiTokenRepo {
  private readonly insertStmt;
  private readonly byIdStmt;
  private readonly byClientIdStmt;
  private readonly deleteStmt;
  private readonly replaceSecretStmt;
  private readonly listStmts = new Map<string, { page: Statement<unknown[]>; count: Statement<unknown[]> }>();

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO api_tokens (id, platform_id, name, permissions, client_id, secret_hash, created_at, updated_at)
       VALUES (@id, @platform_id, @name, @permissions, @client_id, @secret_hash, @created_at, @updated_at)`,
    );
    this.byIdStmt = db.prepare('SELECT * FROM api_tokens WHERE platform_id = ? AND id = ?');
    this.byClientIdStmt = db.prepare('SELECT * FROM api_tokens WHERE client_id = ?');
    this.deleteStmt = db.prepare('DELETE FROM api_tokens WHERE platform_id = ? AND id = ?');
    this.replaceSecretStmt = db.prepare('UPDATE api_tokens SET secret_hash = ? WHERE id = ? AND secret_hash = ?');
  }

  insert(row: ApiTokenRow): void {
    this.insertStmt.run(row);
  }

  byId(platformId: string, id: string): ApiTokenRow | undefined {
    return this.byIdStmt.get(platformId, id) as ApiTokenRow | undefined;
  }

  byClientId(clientId: string): ApiTokenRow | undefined {
    return this.byClientIdStmt.get(clientId) as ApiTokenRow | undefined;
  }

  /** Replaces a token's secret hash by another form of the same secret, only if it still is `from`; whether it did. */
  replaceSecretHash(id: string, from: string | Buffer, to: string): boolean {
    return this.replaceSecretStmt.run(to, id, from).changes > 0;
  }

  /** Deletes a token; false if it was not there. */
  delete(platformId: string, id: string): boolean {
    return this.deleteStmt.run(platformId, id).changes > 0;
  }

  private statementsFor(filters: TokenFilters) {
    const used = filterColumns.filter(([key]) => filters[key] !== undefined);
    const key = used.map(([k]) => k).join(',');
    let stmts = this.listStmts.get(key);
    if (!stmts) {
      const where = ['platform_id = ?', ...used.map(([, sql]) => sql)].join(' AND ');
      stmts = {
        page: this.db.prepare<unknown[]>(`SELECT * FROM api_tokens WHERE ${where} AND id > ? ORDER BY id LIMIT ?`),
        count: this.db.prepare<unknown[]>(`SELECT COUNT(*) AS n FROM api_tokens WHERE ${where}`),
      };
      this.listStmts.set(key, stmts);
    }
    return { stmts, values: used.map(([k]) => filters[k]!) };
  }

  /** One page of a platform's tokens in id (creation) order, strictly after `afterId`. */
  page(platformId: string, filters: TokenFilters, afterId: string | undefined, take: number): ApiTokenRow[] {
    const { stmts, values } = this.statementsFor(filters);
    return stmts.page.all(platformId, ...values, afterId ?? '', take) as ApiTokenRow[];
  }

  count(platformId: string, filters: TokenFilters): number {
    const { stmts, values } = this.statementsFor(filters);
    return (stmts.count.get(platformId, ...values) as { n: number }).n;
  }
}
