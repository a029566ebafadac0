import type { Db, Migration } from '../store/db.js';

/** Platforms: the tenants of the sandbox, with their credentials, settings and configuration. */
export const platformMigrations: Migration[] = [
  {
    id: 'platform-001',
    sql: `CREATE TABLE platforms (
      id TEXT PRIMARY KEY,
      client_id TEXT NOT NULL UNIQUE,
      client_secret TEXT NOT NULL,
      regulated INTEGER NOT NULL,
      settings TEXT NOT NULL,
      config_id TEXT NOT NULL,
      config TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
  },
];

/**
 * SQL for a platform's compact key (its row id) from the text id in `param` (`@platform`, `?`,
 * `new.platform_id`): what tables of many rows a platform (internal accounts) store
 * instead of the 45-character id. Stable, because platforms are renamed in place, never deleted,
 * and the sandbox never VACUUMs.
 */
export const platformKeySql = (param: string): string => `(SELECT rowid FROM platforms WHERE id = ${param})`;

/** A platform row as stored. */
export interface PlatformRow {
  id: string;
  client_id: string;
  client_secret: string;
  regulated: number;
  settings: string;
  config_id: string;
  config: string;
  created_at: string;
  updated_at: string;
}

/** The only SQL of the platform area. */
export class PlatformRepo {
  private readonly byClientIdStmt;
  private readonly byIdStmt;
  private readonly insertStmt;
  private readonly updateConfigStmt;
  private readonly updateSettingsStmt;
  private readonly listStmt;
  private readonly updateSecretStmt;
  private readonly replaceSecretStmt;

  constructor(db: Db) {
    this.byClientIdStmt = db.prepare('SELECT * FROM platforms WHERE client_id = ?');
    this.byIdStmt = db.prepare('SELECT * FROM platforms WHERE id = ?');
    this.insertStmt = db.prepare(
      `INSERT INTO platforms (id, client_id, client_secret, regulated, settings, config_id, config, created_at, updated_at)
       VALUES (@id, @client_id, @client_secret, @regulated, @settings, @config_id, @config, @created_at, @updated_at)`,
    );
    this.updateConfigStmt = db.prepare('UPDATE platforms SET config = ?, updated_at = ? WHERE id = ?');
    this.updateSettingsStmt = db.prepare('UPDATE platforms SET settings = ?, updated_at = ? WHERE id = ?');
    this.listStmt = db.prepare('SELECT * FROM platforms ORDER BY id');
    this.updateSecretStmt = db.prepare('UPDATE platforms SET client_secret = ?, updated_at = ? WHERE id = ?');
    this.replaceSecretStmt = db.prepare('UPDATE platforms SET client_secret = ? WHERE id = ? AND client_secret = ?');
  }

  byClientId(clientId: string): PlatformRow | undefined {
    return this.byClientIdStmt.get(clientId) as PlatformRow | undefined;
  }

  byId(id: string): PlatformRow | undefined {
    return this.byIdStmt.get(id) as PlatformRow | undefined;
  }

  list(): PlatformRow[] {
    return this.listStmt.all() as PlatformRow[];
  }

  insert(row: PlatformRow): void {
    this.insertStmt.run(row);
  }

  updateConfig(id: string, config: string, updatedAt: string): void {
    this.updateConfigStmt.run(config, updatedAt, id);
  }

  updateSecret(id: string, secret: string, updatedAt: string): void {
    this.updateSecretStmt.run(secret, updatedAt, id);
  }

  /** Replaces a stored secret hash by another form of the same secret, only if it still is `from`; whether it did. */
  replaceSecret(id: string, from: string, to: string): boolean {
    return this.replaceSecretStmt.run(to, id, from).changes > 0;
  }

  updateSettings(id: string, settings: string, updatedAt: string): void {
    this.updateSettingsStmt.run(settings, updatedAt, id);
  }
}
