import type { Db, Migration } from '../../store/db.js';

/** Receiver lookups: each `GET /receiver/...` answer is kept, so a quote can name its `lookupId`. */
export const umaMigrations: Migration[] = [
  {
    id: 'uma-001',
    sql: `CREATE TABLE receiver_lookups (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      receiver TEXT NOT NULL,
      sender_customer_id TEXT,
      created_at TEXT NOT NULL,
      body TEXT NOT NULL
    );
    CREATE INDEX receiver_lookups_platform ON receiver_lookups (platform_id, id);`,
  },
];

/** A stored lookup: `kind` is `UMA_ADDRESS` or `EXTERNAL_ACCOUNT`, `receiver` the address or account id, `body` the response. */
export interface ReceiverLookupRow {
  id: string;
  platform_id: string;
  kind: 'UMA_ADDRESS' | 'EXTERNAL_ACCOUNT';
  receiver: string;
  sender_customer_id: string | null;
  created_at: string;
  body: string;
}

/** The only SQL of the UMA area. */
export class ReceiverLookupRepo {
  private readonly insertStmt;
  private readonly byIdStmt;
  private readonly removePlatformStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO receiver_lookups (id, platform_id, kind, receiver, sender_customer_id, created_at, body)
       VALUES (@id, @platform_id, @kind, @receiver, @sender_customer_id, @created_at, @body)`,
    );
    this.byIdStmt = db.prepare('SELECT * FROM receiver_lookups WHERE platform_id = ? AND id = ?');
    this.removePlatformStmt = db.prepare('DELETE FROM receiver_lookups WHERE platform_id = ?');
  }

  insert(row: ReceiverLookupRow): void {
    this.insertStmt.run(row);
  }

  byId(platformId: string, id: string): ReceiverLookupRow | undefined {
    return this.byIdStmt.get(platformId, id) as ReceiverLookupRow | undefined;
  }

  removePlatform(platformId: string): void {
    this.removePlatformStmt.run(platformId);
  }
}
