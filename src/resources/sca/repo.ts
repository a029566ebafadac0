import type { Db, Migration } from '../../store/db.js';

/**
 * Strong Customer Authentication: enrolled factors, each customer's login-security state
 * (session, failed-login lockout, risk flag), challenges, beneficiary trust, recorded security
 * events and 2FA resets.
 */
export const scaMigrations: Migration[] = [
  {
    id: 'sca-001',
    sql: `CREATE TABLE sca_factors (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      customer_id TEXT NOT NULL,
      factor TEXT NOT NULL,
      status TEXT NOT NULL,
      secret TEXT,
      credential_id TEXT,
      public_key TEXT,
      counter INTEGER NOT NULL DEFAULT 0,
      challenge TEXT,
      recovery_codes TEXT,
      expires_at INTEGER,
      created_at TEXT NOT NULL
    );
    CREATE INDEX sca_factors_customer ON sca_factors (platform_id, customer_id, factor, status);
    CREATE TABLE sca_customers (
      platform_id TEXT NOT NULL,
      customer_id TEXT NOT NULL,
      failed_attempts INTEGER NOT NULL DEFAULT 0,
      locked_until INTEGER,
      suspended INTEGER NOT NULL DEFAULT 0,
      session_expires_at INTEGER,
      step_up INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (platform_id, customer_id)
    );
    CREATE TABLE sca_challenges (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      customer_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      subject_id TEXT NOT NULL,
      factor TEXT NOT NULL,
      available_factors TEXT NOT NULL,
      purpose TEXT,
      remaining_steps TEXT NOT NULL,
      passkey_challenge TEXT,
      status TEXT NOT NULL,
      expires_at INTEGER NOT NULL,
      last_sent_at INTEGER NOT NULL,
      failed_attempts INTEGER NOT NULL DEFAULT 0,
      last_failed_at INTEGER,
      created_at TEXT NOT NULL
    );
    CREATE INDEX sca_challenges_subject ON sca_challenges (platform_id, subject_id, status);
    CREATE TABLE sca_trust (
      platform_id TEXT NOT NULL,
      external_account_id TEXT NOT NULL,
      customer_id TEXT NOT NULL,
      trusted INTEGER NOT NULL,
      updated_at TEXT NOT NULL,
      PRIMARY KEY (platform_id, external_account_id)
    );
    CREATE INDEX sca_trust_customer ON sca_trust (platform_id, customer_id, trusted);
    CREATE TABLE sca_events (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      customer_id TEXT NOT NULL,
      event_type TEXT NOT NULL,
      created_at TEXT NOT NULL
    );
    CREATE INDEX sca_events_customer ON sca_events (platform_id, customer_id, id);
    CREATE TABLE sca_resets (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      customer_id TEXT NOT NULL,
      factor TEXT NOT NULL,
      status TEXT NOT NULL,
      token_hash TEXT NOT NULL,
      started_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      completed_at TEXT
    );
    CREATE INDEX sca_resets_customer ON sca_resets (platform_id, customer_id, started_at);`,
  },
  {
    // Issue 26: a login wrote five b-tree entries into challenges and read the login state
    // through two b-trees. Challenges and login states are kept in their primary keys (WITHOUT
    // ROWID: one b-tree each, not a table and a key index), and only OPEN challenges are indexed
    // by their subject (a subject id names one customer, account or quote of one platform; the
    // platform is checked on the row): answering a challenge takes its entry out instead of
    // moving it, and the index holds the challenges still open, not every one ever made. A
    // platform's reset reads the challenges table through (rare; jobs' reset does too).
    id: 'sca-perf-001',
    sql: `CREATE TABLE sca_challenges_new (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      customer_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      subject_id TEXT NOT NULL,
      factor TEXT NOT NULL,
      available_factors TEXT NOT NULL,
      purpose TEXT,
      remaining_steps TEXT NOT NULL,
      passkey_challenge TEXT,
      status TEXT NOT NULL,
      expires_at INTEGER NOT NULL,
      last_sent_at INTEGER NOT NULL,
      failed_attempts INTEGER NOT NULL DEFAULT 0,
      last_failed_at INTEGER,
      created_at TEXT NOT NULL
    ) WITHOUT ROWID;
    INSERT INTO sca_challenges_new SELECT id, platform_id, customer_id, kind, subject_id, factor, available_factors, purpose, remaining_steps,
      passkey_challenge, status, expires_at, last_sent_at, failed_attempts, last_failed_at, created_at FROM sca_challenges;
    DROP TABLE sca_challenges;
    ALTER TABLE sca_challenges_new RENAME TO sca_challenges;
    CREATE INDEX sca_challenges_open ON sca_challenges (subject_id, kind, id) WHERE status = 'OPEN';
    CREATE TABLE sca_customers_new (
      platform_id TEXT NOT NULL,
      customer_id TEXT NOT NULL,
      failed_attempts INTEGER NOT NULL DEFAULT 0,
      locked_until INTEGER,
      suspended INTEGER NOT NULL DEFAULT 0,
      session_expires_at INTEGER,
      step_up INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (platform_id, customer_id)
    ) WITHOUT ROWID;
    INSERT INTO sca_customers_new SELECT platform_id, customer_id, failed_attempts, locked_until, suspended, session_expires_at, step_up FROM sca_customers;
    DROP TABLE sca_customers;
    ALTER TABLE sca_customers_new RENAME TO sca_customers;`,
  },
];

/** An enrolled (ACTIVE) or enrolling (PENDING) TOTP or passkey factor. */
export interface FactorRow {
  id: string;
  platform_id: string;
  customer_id: string;
  factor: 'TOTP' | 'PASSKEY';
  status: 'PENDING' | 'ACTIVE';
  /** TOTP: the shared secret, hex (kept in clear: the HMAC needs it, as on any TOTP server). */
  secret: string | null;
  credential_id: string | null;
  public_key: string | null;
  counter: number;
  /** PASSKEY enrollment: the registration challenge, base64url. */
  challenge: string | null;
  /** TOTP: SHA-256 hashes of the unused recovery codes, JSON. */
  recovery_codes: string | null;
  expires_at: number | null;
  created_at: string;
}

/** A customer's login-security state. */
export interface CustomerStateRow {
  platform_id: string;
  customer_id: string;
  failed_attempts: number;
  locked_until: number | null;
  suspended: number;
  session_expires_at: number | null;
  step_up: number;
}

/** One challenge: of a login, a trust change or one step of a quote's authorization sequence. */
export interface ChallengeRow {
  id: string;
  platform_id: string;
  customer_id: string;
  kind: 'LOGIN' | 'TRUST' | 'UNTRUST' | 'QUOTE';
  /** The customer (LOGIN), external account (TRUST/UNTRUST) or quote (QUOTE). */
  subject_id: string;
  factor: string;
  available_factors: string;
  purpose: string | null;
  /** Purposes of the steps still to come after this one, JSON. */
  remaining_steps: string;
  passkey_challenge: string | null;
  status: 'OPEN' | 'DONE' | 'SUPERSEDED';
  expires_at: number;
  last_sent_at: number;
  /** Wrong proofs against this challenge, and when the last one came (authorize back-off). */
  failed_attempts?: number;
  last_failed_at?: number | null;
  created_at: string;
}

/** A 2FA reset. */
export interface ResetRow {
  id: string;
  platform_id: string;
  customer_id: string;
  factor: string;
  status: string;
  token_hash: string;
  started_at: number;
  expires_at: number;
  completed_at: string | null;
}

/** The OPEN challenges of a subject and kind (through `sca_challenges_open`); parameters: subject, kind, platform. */
const OPEN_OF_SUBJECT = `subject_id = ? AND kind = ? AND status = 'OPEN' AND platform_id = ?`;

/** The only SQL of the SCA area. */
export class ScaRepo {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = {
      insertFactor: db.prepare(
        `INSERT INTO sca_factors (id, platform_id, customer_id, factor, status, secret, credential_id, public_key, counter, challenge, recovery_codes, expires_at, created_at)
         VALUES (@id, @platform_id, @customer_id, @factor, @status, @secret, @credential_id, @public_key, @counter, @challenge, @recovery_codes, @expires_at, @created_at)`,
      ),
      factors: db.prepare('SELECT * FROM sca_factors WHERE platform_id = ? AND customer_id = ? ORDER BY id'),
      updateFactor: db.prepare(
        `UPDATE sca_factors SET status = @status, secret = @secret, credential_id = @credential_id, public_key = @public_key, counter = @counter,
         challenge = @challenge, recovery_codes = @recovery_codes, expires_at = @expires_at WHERE id = @id`,
      ),
      deleteFactor: db.prepare('DELETE FROM sca_factors WHERE id = ?'),
      state: db.prepare('SELECT * FROM sca_customers WHERE platform_id = ? AND customer_id = ?'),
      upsertState: db.prepare(
        `INSERT INTO sca_customers (platform_id, customer_id, failed_attempts, locked_until, suspended, session_expires_at, step_up)
         VALUES (@platform_id, @customer_id, @failed_attempts, @locked_until, @suspended, @session_expires_at, @step_up)
         ON CONFLICT (platform_id, customer_id) DO UPDATE SET failed_attempts = excluded.failed_attempts, locked_until = excluded.locked_until,
         suspended = excluded.suspended, session_expires_at = excluded.session_expires_at, step_up = excluded.step_up`,
      ),
      setSession: db.prepare(
        `INSERT INTO sca_customers (platform_id, customer_id, session_expires_at) VALUES (?, ?, ?)
         ON CONFLICT (platform_id, customer_id) DO UPDATE SET session_expires_at = excluded.session_expires_at`,
      ),
      insertChallenge: db.prepare(
        `INSERT INTO sca_challenges (id, platform_id, customer_id, kind, subject_id, factor, available_factors, purpose, remaining_steps, passkey_challenge, status, expires_at, last_sent_at, created_at)
         VALUES (@id, @platform_id, @customer_id, @kind, @subject_id, @factor, @available_factors, @purpose, @remaining_steps, @passkey_challenge, @status, @expires_at, @last_sent_at, @created_at)`,
      ),
      openChallenge: db.prepare(
        `SELECT * FROM sca_challenges WHERE ${OPEN_OF_SUBJECT} ORDER BY id DESC LIMIT 1`,
      ),
      challenge: db.prepare('SELECT * FROM sca_challenges WHERE platform_id = ? AND id = ?'),
      hasOpen: db
        .prepare(`SELECT 1 FROM sca_challenges WHERE ${OPEN_OF_SUBJECT} LIMIT 1`)
        .pluck(),
      closeChallenge: db.prepare(`UPDATE sca_challenges SET status = 'DONE' WHERE id = ? AND status = 'OPEN'`),
      supersede: db.prepare(`UPDATE sca_challenges SET status = 'SUPERSEDED' WHERE ${OPEN_OF_SUBJECT}`),
      markSent: db.prepare('UPDATE sca_challenges SET last_sent_at = ? WHERE id = ?'),
      markFailed: db.prepare('UPDATE sca_challenges SET failed_attempts = failed_attempts + 1, last_failed_at = ? WHERE id = ?'),
      trust: db.prepare('SELECT trusted FROM sca_trust WHERE platform_id = ? AND external_account_id = ?'),
      trustedOf: db.prepare('SELECT external_account_id FROM sca_trust WHERE platform_id = ? AND customer_id = ? AND trusted = 1 ORDER BY external_account_id'),
      setTrust: db.prepare(
        `INSERT INTO sca_trust (platform_id, external_account_id, customer_id, trusted, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (platform_id, external_account_id) DO UPDATE SET trusted = excluded.trusted, updated_at = excluded.updated_at`,
      ),
      insertEvent: db.prepare('INSERT INTO sca_events (id, platform_id, customer_id, event_type, created_at) VALUES (?, ?, ?, ?, ?)'),
      events: db.prepare('SELECT event_type, created_at FROM sca_events WHERE platform_id = ? AND customer_id = ? ORDER BY id DESC LIMIT ?'),
      insertReset: db.prepare(
        `INSERT INTO sca_resets (id, platform_id, customer_id, factor, status, token_hash, started_at, expires_at, completed_at)
         VALUES (@id, @platform_id, @customer_id, @factor, @status, @token_hash, @started_at, @expires_at, @completed_at)`,
      ),
      reset: db.prepare('SELECT * FROM sca_resets WHERE platform_id = ? AND id = ?'),
      resetById: db.prepare('SELECT * FROM sca_resets WHERE id = ?'),
      updateReset: db.prepare('UPDATE sca_resets SET status = ?, completed_at = ? WHERE id = ?'),
      resetsSince: db.prepare('SELECT started_at FROM sca_resets WHERE platform_id = ? AND customer_id = ? AND started_at > ? ORDER BY started_at'),
    };
  }

  insertFactor(row: FactorRow): void {
    this.s.insertFactor.run(row);
  }

  factors(platformId: string, customerId: string): FactorRow[] {
    return this.s.factors.all(platformId, customerId) as FactorRow[];
  }

  updateFactor(row: FactorRow): void {
    this.s.updateFactor.run(row);
  }

  deleteFactor(id: string): void {
    this.s.deleteFactor.run(id);
  }

  state(platformId: string, customerId: string): CustomerStateRow {
    return (
      (this.s.state.get(platformId, customerId) as CustomerStateRow | undefined) ?? {
        platform_id: platformId,
        customer_id: customerId,
        failed_attempts: 0,
        locked_until: null,
        suspended: 0,
        session_expires_at: null,
        step_up: 0,
      }
    );
  }

  saveState(row: CustomerStateRow): void {
    this.s.upsertState.run(row);
  }

  /** Opens (or extends) a customer's SCA session until `expiresAt`, the rest of its state as it is. */
  setSession(platformId: string, customerId: string, expiresAt: number): void {
    this.s.setSession.run(platformId, customerId, expiresAt);
  }

  insertChallenge(row: ChallengeRow): void {
    this.s.insertChallenge.run(row);
  }

  /** The newest OPEN challenge of a subject and kind. */
  openChallenge(platformId: string, subjectId: string, kind: ChallengeRow['kind']): ChallengeRow | undefined {
    return this.s.openChallenge.get(subjectId, kind, platformId) as ChallengeRow | undefined;
  }

  challenge(platformId: string, id: string): ChallengeRow | undefined {
    return this.s.challenge.get(platformId, id) as ChallengeRow | undefined;
  }

  /** Marks an OPEN challenge answered; false when it was no longer open (answered or replaced meanwhile). */
  closeChallenge(id: string): boolean {
    return this.s.closeChallenge.run(id).changes === 1;
  }

  /**
   * Closes every OPEN challenge of a subject and kind (a new start replaces them). Usually there
   * is none: an update that finds nothing costs about four times the read that says so.
   */
  supersede(platformId: string, subjectId: string, kind: ChallengeRow['kind']): void {
    if (this.s.hasOpen.get(subjectId, kind, platformId) !== undefined) this.s.supersede.run(subjectId, kind, platformId);
  }

  markSent(id: string, at: number): void {
    this.s.markSent.run(at, id);
  }

  markFailed(id: string, at: number): void {
    this.s.markFailed.run(at, id);
  }

  isTrusted(platformId: string, externalAccountId: string): boolean {
    const row = this.s.trust.get(platformId, externalAccountId) as { trusted: number } | undefined;
    return row?.trusted === 1;
  }

  /** The external accounts a customer trusts (deleted ones included: deleting never removes trust). */
  trustedOf(platformId: string, customerId: string): string[] {
    return (this.s.trustedOf.all(platformId, customerId) as Array<{ external_account_id: string }>).map((r) => r.external_account_id);
  }

  setTrust(platformId: string, externalAccountId: string, customerId: string, trusted: boolean, at: string): void {
    this.s.setTrust.run(platformId, externalAccountId, customerId, trusted ? 1 : 0, at);
  }

  insertEvent(id: string, platformId: string, customerId: string, eventType: string, at: string): void {
    this.s.insertEvent.run(id, platformId, customerId, eventType, at);
  }

  events(platformId: string, customerId: string, limit: number): Array<{ event_type: string; created_at: string }> {
    return this.s.events.all(platformId, customerId, limit) as Array<{ event_type: string; created_at: string }>;
  }

  insertReset(row: ResetRow): void {
    this.s.insertReset.run(row);
  }

  reset(platformId: string, id: string): ResetRow | undefined {
    return this.s.reset.get(platformId, id) as ResetRow | undefined;
  }

  resetById(id: string): ResetRow | undefined {
    return this.s.resetById.get(id) as ResetRow | undefined;
  }

  updateReset(id: string, status: string, completedAt: string | null): void {
    this.s.updateReset.run(status, completedAt, id);
  }

  resetsSince(platformId: string, customerId: string, sinceMs: number): number[] {
    return (this.s.resetsSince.all(platformId, customerId, sinceMs) as Array<{ started_at: number }>).map((r) => r.started_at);
  }

  /** Deletes every SCA row of a platform (sandbox reset). */
  removePlatform(platformId: string): void {
    for (const table of ['sca_factors', 'sca_customers', 'sca_challenges', 'sca_trust', 'sca_events', 'sca_resets']) {
      this.db.prepare(`DELETE FROM ${table} WHERE platform_id = ?`).run(platformId);
    }
  }
}
