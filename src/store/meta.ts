import type { Db, Migration } from './db.js';

/** Key-value settings of the whole sandbox (clock offset, signing keys, ...). */
export const metaMigrations: Migration[] = [
  {
    id: 'meta-001',
    sql: `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
  },
];

/** Reads and writes the `meta` table. */
export class MetaRepo {
  private readonly getStmt;
  private readonly setStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare('SELECT value FROM meta WHERE key = ?');
    this.setStmt = db.prepare(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    );
  }

  get(key: string): string | undefined {
    return (this.getStmt.get(key) as { value: string } | undefined)?.value;
  }

  set(key: string, value: string): void {
    this.setStmt.run(key, value);
  }
}
