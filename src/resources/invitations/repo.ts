import type { Db, Migration } from '../../store/db.js';

/** UMA invitations (keyed by their code, which the invitee's platform may be another one) and per-platform invitation settings. */
export const invitationMigrations: Migration[] = [
  {
    id: 'invitations-001',
    sql: `CREATE TABLE uma_invitations (
      code TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      inviter_customer_id TEXT NOT NULL,
      inviter_uma TEXT NOT NULL,
      invitee_uma TEXT,
      first_name TEXT,
      amount INTEGER,
      currency TEXT,
      status TEXT NOT NULL,
      url TEXT NOT NULL,
      expires_at TEXT,
      claimed_at TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX uma_invitations_platform ON uma_invitations (platform_id);
    CREATE TABLE invitation_settings (
      platform_id TEXT PRIMARY KEY,
      configured INTEGER NOT NULL
    );`,
  },
];

/** An invitation row as stored; `status` is PENDING, CLAIMED or CANCELLED (EXPIRED follows from the clock). */
export interface InvitationRow {
  code: string;
  platform_id: string;
  inviter_customer_id: string;
  inviter_uma: string;
  invitee_uma: string | null;
  first_name: string | null;
  amount: number | null;
  currency: string | null;
  status: string;
  url: string;
  expires_at: string | null;
  claimed_at: string | null;
  created_at: string;
  updated_at: string;
}

/** The only SQL of the invitations area. */
export class InvitationRepo {
  private readonly insertStmt;
  private readonly byCodeStmt;
  private readonly claimStmt;
  private readonly setStatusStmt;
  private readonly removePlatformStmt;
  private readonly settingStmt;
  private readonly setSettingStmt;
  private readonly removeSettingStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO uma_invitations (code, platform_id, inviter_customer_id, inviter_uma, invitee_uma, first_name, amount, currency, status, url, expires_at, claimed_at, created_at, updated_at)
       VALUES (@code, @platform_id, @inviter_customer_id, @inviter_uma, @invitee_uma, @first_name, @amount, @currency, @status, @url, @expires_at, @claimed_at, @created_at, @updated_at)`,
    );
    this.byCodeStmt = db.prepare('SELECT * FROM uma_invitations WHERE code = ?');
    this.claimStmt = db.prepare(
      "UPDATE uma_invitations SET status = 'CLAIMED', invitee_uma = ?, claimed_at = ?, updated_at = ? WHERE code = ? AND status = 'PENDING'",
    );
    this.setStatusStmt = db.prepare('UPDATE uma_invitations SET status = ?, updated_at = ? WHERE code = ?');
    this.removePlatformStmt = db.prepare('DELETE FROM uma_invitations WHERE platform_id = ?');
    this.settingStmt = db.prepare('SELECT configured FROM invitation_settings WHERE platform_id = ?');
    this.setSettingStmt = db.prepare(
      'INSERT INTO invitation_settings (platform_id, configured) VALUES (?, ?) ON CONFLICT (platform_id) DO UPDATE SET configured = excluded.configured',
    );
    this.removeSettingStmt = db.prepare('DELETE FROM invitation_settings WHERE platform_id = ?');
  }

  insert(row: InvitationRow): void {
    this.insertStmt.run(row);
  }

  byCode(code: string): InvitationRow | undefined {
    return this.byCodeStmt.get(code) as InvitationRow | undefined;
  }

  claim(code: string, inviteeUma: string, at: string): boolean {
    return this.claimStmt.run(inviteeUma, at, at, code).changes > 0;
  }

  setStatus(code: string, status: string, at: string): void {
    this.setStatusStmt.run(status, at, code);
  }

  /** Whether invitations are configured for a platform; undefined when never set. */
  configured(platformId: string): boolean | undefined {
    const row = this.settingStmt.get(platformId) as { configured: number } | undefined;
    return row === undefined ? undefined : row.configured === 1;
  }

  setConfigured(platformId: string, configured: boolean): void {
    this.setSettingStmt.run(platformId, configured ? 1 : 0);
  }

  removePlatform(platformId: string): void {
    this.removePlatformStmt.run(platformId);
    this.removeSettingStmt.run(platformId);
  }
}
