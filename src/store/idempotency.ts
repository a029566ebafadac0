import type { Db, Migration } from './db.js';

/** Stored responses of requests made with an `Idempotency-Key`. */
export const idempotencyMigrations: Migration[] = [
  {
    id: 'idempotency-001',
    sql: `CREATE TABLE idempotency_keys (
      platform_id TEXT NOT NULL,
      operation_id TEXT NOT NULL,
      key TEXT NOT NULL,
      request_hash TEXT NOT NULL,
      status INTEGER NOT NULL,
      body TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (platform_id, operation_id, key)
    );
    CREATE INDEX idempotency_created ON idempotency_keys (created_at);`,
  },
];

/** A stored response. */
export interface StoredResponse {
  requestHash: string;
  status: number;
  body: string;
  createdAt: number;
}

/** SQL for idempotency keys. */
export class IdempotencyRepo {
  private readonly getStmt;
  private readonly putStmt;
  private readonly expireStmt;
  private readonly removePlatformStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare(
      `SELECT request_hash AS requestHash, status, body, created_at AS createdAt
       FROM idempotency_keys WHERE platform_id = ? AND operation_id = ? AND key = ? AND created_at > ?`,
    );
    this.putStmt = db.prepare(
      `INSERT INTO idempotency_keys (platform_id, operation_id, key, request_hash, status, body, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (platform_id, operation_id, key) DO UPDATE SET
         request_hash = excluded.request_hash, status = excluded.status, body = excluded.body,
         created_at = excluded.created_at`,
    );
    this.expireStmt = db.prepare('DELETE FROM idempotency_keys WHERE created_at <= ?');
    this.removePlatformStmt = db.prepare('DELETE FROM idempotency_keys WHERE platform_id = ?');
  }

  /** The live record for a key (created after `notBefore`), if any. */
  get(platformId: string, operationId: string, key: string, notBefore: number): StoredResponse | undefined {
    return this.getStmt.get(platformId, operationId, key, notBefore) as StoredResponse | undefined;
  }

  put(platformId: string, operationId: string, key: string, record: StoredResponse): void {
    this.putStmt.run(platformId, operationId, key, record.requestHash, record.status, record.body, record.createdAt);
  }

  /** Deletes records created at or before `cutoff`. */
  expire(cutoff: number): void {
    this.expireStmt.run(cutoff);
  }

  removePlatform(platformId: string): void {
    this.removePlatformStmt.run(platformId);
  }
}
