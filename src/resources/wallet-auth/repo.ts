import type { Db, Migration } from '../../store/db.js';

/**
 * Embedded-wallet authentication: the per-platform sandbox enclaves (OTP target keys), credentials, sessions,
 * pending signed requests, delegated keys and the per-wallet settings.
 */
export const walletAuthMigrations: Migration[] = [
  {
    id: 'wallet-auth-001',
    sql: `CREATE TABLE wallet_enclaves (
      platform_id TEXT PRIMARY KEY,
      organization_id TEXT NOT NULL,
      signer_secret TEXT NOT NULL,
      target_secret TEXT NOT NULL,
      otp_bundle TEXT NOT NULL,
      created_at TEXT NOT NULL
    );
    CREATE TABLE wallet_credentials (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      account_id TEXT NOT NULL,
      type TEXT NOT NULL,
      nickname TEXT NOT NULL,
      webauthn_id TEXT,
      webauthn_public_key TEXT,
      webauthn_counter INTEGER,
      webauthn_origin TEXT,
      webauthn_rp_id TEXT,
      registration_challenge TEXT,
      oidc_iss TEXT,
      oidc_aud TEXT,
      oidc_sub TEXT,
      otp_expires_at INTEGER,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX wallet_credentials_account ON wallet_credentials (account_id, id);
    CREATE INDEX wallet_credentials_challenge ON wallet_credentials (registration_challenge);
    CREATE TABLE wallet_sessions (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      account_id TEXT NOT NULL,
      credential_id TEXT NOT NULL,
      public_key TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      expires_at INTEGER NOT NULL,
      revoked_at TEXT
    );
    CREATE INDEX wallet_sessions_account ON wallet_sessions (account_id, expires_at);
    CREATE INDEX wallet_sessions_key ON wallet_sessions (public_key, account_id);
    CREATE TABLE wallet_requests (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      account_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      target_id TEXT NOT NULL,
      binding TEXT NOT NULL,
      payload TEXT NOT NULL,
      signer TEXT,
      exclude_credential_id TEXT,
      credential_set TEXT,
      state TEXT,
      expires_at INTEGER NOT NULL,
      consumed_at TEXT
    );
    CREATE TABLE wallet_delegated_keys (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      account_id TEXT NOT NULL,
      card_id TEXT NOT NULL,
      funding_source_id TEXT NOT NULL,
      public_key TEXT NOT NULL,
      secret TEXT NOT NULL,
      nickname TEXT NOT NULL,
      status TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX wallet_delegated_keys_account ON wallet_delegated_keys (platform_id, account_id, id);
    CREATE INDEX wallet_delegated_keys_source ON wallet_delegated_keys (platform_id, funding_source_id, id);
    CREATE TABLE wallet_settings (
      account_id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      private_enabled INTEGER NOT NULL DEFAULT 0,
      seed TEXT NOT NULL,
      bootstrapped INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX wallet_settings_platform ON wallet_settings (platform_id);`,
  },
];

/** A sandbox enclave of one platform: its organization id and the OTP encryption target. */
export interface EnclaveRow {
  platform_id: string;
  organization_id: string;
  /**
   * Retired (empty in rows made since): bundles are signed by the published sandbox enclave key
   * (walletRules.enclaveSigningSecret), not a per-platform one. The column stays so snapshots of
   * older sandboxes import.
   */
  signer_secret: string;
  target_secret: string;
  /** Retired like `signer_secret`: the OTP target bundle is signed when served. */
  otp_bundle: string;
  created_at: string;
}

/** A credential (`AuthMethod`). */
export interface CredentialRow {
  id: string;
  platform_id: string;
  account_id: string;
  type: string;
  nickname: string;
  webauthn_id: string | null;
  webauthn_public_key: string | null;
  webauthn_counter: number | null;
  webauthn_origin: string | null;
  webauthn_rp_id: string | null;
  registration_challenge: string | null;
  oidc_iss: string | null;
  oidc_aud: string | null;
  oidc_sub: string | null;
  /** When the outstanding OTP issuance lapses (ms), or null when none is outstanding. */
  otp_expires_at: number | null;
  created_at: string;
  updated_at: string;
}

/** A session; `public_key` is the compressed session API key. */
export interface SessionRow {
  id: string;
  platform_id: string;
  account_id: string;
  credential_id: string;
  public_key: string;
  created_at: string;
  updated_at: string;
  expires_at: number;
  revoked_at: string | null;
}

/** A pending signed request (the 202 leg), single use. */
export interface RequestRow {
  id: string;
  platform_id: string;
  account_id: string;
  kind: string;
  target_id: string;
  binding: string;
  payload: string;
  signer: string | null;
  exclude_credential_id: string | null;
  credential_set: string | null;
  state: string | null;
  expires_at: number;
  consumed_at: string | null;
}

/** A delegated key; `secret` is the custodied private scalar (never returned). */
export interface DelegatedKeyRow {
  id: string;
  platform_id: string;
  account_id: string;
  card_id: string;
  funding_source_id: string;
  public_key: string;
  secret: string;
  nickname: string;
  status: string;
  created_at: string;
  updated_at: string;
}

/** Per-wallet state: privacy and the wallet seed exported by `POST /internal-accounts/{id}/export`. */
export interface WalletSettingsRow {
  account_id: string;
  platform_id: string;
  private_enabled: number;
  seed: string;
  bootstrapped: number;
}

/** The only SQL of the wallet-auth area. */
export class WalletAuthRepo {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      enclave: db.prepare('SELECT * FROM wallet_enclaves WHERE platform_id = ?'),
      insertEnclave: db.prepare('INSERT INTO wallet_enclaves VALUES (@platform_id, @organization_id, @signer_secret, @target_secret, @otp_bundle, @created_at)'),
      credential: db.prepare('SELECT * FROM wallet_credentials WHERE platform_id = ? AND id = ?'),
      credentialsOf: db.prepare('SELECT * FROM wallet_credentials WHERE account_id = ? ORDER BY id'),
      emailOtpAccounts: db.prepare("SELECT account_id FROM wallet_credentials WHERE platform_id = ? AND type = 'EMAIL_OTP' AND nickname = ? COLLATE NOCASE").pluck(),
      credentialByChallenge: db.prepare('SELECT id FROM wallet_credentials WHERE registration_challenge = ? AND platform_id = ?').pluck(),
      insertCredential: db.prepare(
        `INSERT INTO wallet_credentials VALUES (@id, @platform_id, @account_id, @type, @nickname, @webauthn_id, @webauthn_public_key, @webauthn_counter,
         @webauthn_origin, @webauthn_rp_id, @registration_challenge, @oidc_iss, @oidc_aud, @oidc_sub, @otp_expires_at, @created_at, @updated_at)`,
      ),
      setOtp: db.prepare('UPDATE wallet_credentials SET otp_expires_at = ?, updated_at = ? WHERE id = ?'),
      setCounter: db.prepare('UPDATE wallet_credentials SET webauthn_counter = ?, updated_at = ? WHERE id = ?'),
      setNickname: db.prepare('UPDATE wallet_credentials SET nickname = ?, updated_at = ? WHERE id = ?'),
      deleteCredential: db.prepare('DELETE FROM wallet_credentials WHERE id = ?'),
      session: db.prepare('SELECT * FROM wallet_sessions WHERE platform_id = ? AND id = ?'),
      activeSessions: db.prepare('SELECT * FROM wallet_sessions WHERE account_id = ? AND revoked_at IS NULL AND expires_at > ? ORDER BY id'),
      sessionByKey: db.prepare('SELECT * FROM wallet_sessions WHERE public_key = ? AND account_id = ? AND revoked_at IS NULL AND expires_at > ? ORDER BY expires_at DESC LIMIT 1'),
      insertSession: db.prepare('INSERT INTO wallet_sessions VALUES (@id, @platform_id, @account_id, @credential_id, @public_key, @created_at, @updated_at, @expires_at, @revoked_at)'),
      revokeSession: db.prepare('UPDATE wallet_sessions SET revoked_at = ?, updated_at = ? WHERE id = ? AND revoked_at IS NULL'),
      revokeSessionsOf: db.prepare('UPDATE wallet_sessions SET revoked_at = ?, updated_at = ? WHERE credential_id = ? AND revoked_at IS NULL'),
      request: db.prepare('SELECT * FROM wallet_requests WHERE platform_id = ? AND id = ?'),
      insertRequest: db.prepare(
        `INSERT INTO wallet_requests VALUES (@id, @platform_id, @account_id, @kind, @target_id, @binding, @payload, @signer, @exclude_credential_id,
         @credential_set, @state, @expires_at, @consumed_at)`,
      ),
      consumeRequest: db.prepare('UPDATE wallet_requests SET consumed_at = ? WHERE id = ? AND consumed_at IS NULL'),
      delegatedKey: db.prepare('SELECT * FROM wallet_delegated_keys WHERE platform_id = ? AND id = ?'),
      delegatedByAccount: db.prepare('SELECT * FROM wallet_delegated_keys WHERE platform_id = ? AND account_id = ? ORDER BY id'),
      delegatedBySource: db.prepare('SELECT * FROM wallet_delegated_keys WHERE platform_id = ? AND funding_source_id = ? ORDER BY id'),
      activeDelegated: db.prepare("SELECT id FROM wallet_delegated_keys WHERE platform_id = ? AND funding_source_id = ? AND status = 'ACTIVE'").pluck(),
      insertDelegated: db.prepare(
        `INSERT INTO wallet_delegated_keys VALUES (@id, @platform_id, @account_id, @card_id, @funding_source_id, @public_key, @secret, @nickname, @status, @created_at, @updated_at)`,
      ),
      setDelegatedStatus: db.prepare('UPDATE wallet_delegated_keys SET status = ?, updated_at = ? WHERE id = ?'),
      settings: db.prepare('SELECT * FROM wallet_settings WHERE account_id = ?'),
      insertSettings: db.prepare('INSERT INTO wallet_settings VALUES (@account_id, @platform_id, @private_enabled, @seed, @bootstrapped)'),
      setPrivate: db.prepare('UPDATE wallet_settings SET private_enabled = ? WHERE account_id = ?'),
      removePlatform: [
        'wallet_enclaves',
        'wallet_credentials',
        'wallet_sessions',
        'wallet_requests',
        'wallet_delegated_keys',
        'wallet_settings',
      ].map((table) => db.prepare(`DELETE FROM ${table} WHERE platform_id = ?`)),
    };
  }

  enclave(platformId: string): EnclaveRow | undefined {
    return this.s.enclave.get(platformId) as EnclaveRow | undefined;
  }
  insertEnclave(row: EnclaveRow): void {
    this.s.insertEnclave.run(row);
  }

  credential(platformId: string, id: string): CredentialRow | undefined {
    return this.s.credential.get(platformId, id) as CredentialRow | undefined;
  }
  credentialsOf(accountId: string): CredentialRow[] {
    return this.s.credentialsOf.all(accountId) as CredentialRow[];
  }
  /** The accounts of a platform holding an EMAIL_OTP credential for this email (any letter case). */
  emailOtpAccounts(platformId: string, email: string): string[] {
    return this.s.emailOtpAccounts.all(platformId, email) as string[];
  }
  registrationChallengeUsed(platformId: string, challenge: string): boolean {
    return this.s.credentialByChallenge.get(challenge, platformId) !== undefined;
  }
  insertCredential(row: CredentialRow): void {
    this.s.insertCredential.run(row);
  }
  setOtp(id: string, expiresAt: number | null, updatedAt: string): void {
    this.s.setOtp.run(expiresAt, updatedAt, id);
  }
  setCounter(id: string, counter: number, updatedAt: string): void {
    this.s.setCounter.run(counter, updatedAt, id);
  }
  setNickname(id: string, nickname: string, updatedAt: string): void {
    this.s.setNickname.run(nickname, updatedAt, id);
  }
  deleteCredential(id: string): void {
    this.s.deleteCredential.run(id);
  }

  session(platformId: string, id: string): SessionRow | undefined {
    return this.s.session.get(platformId, id) as SessionRow | undefined;
  }
  activeSessions(accountId: string, now: number): SessionRow[] {
    return this.s.activeSessions.all(accountId, now) as SessionRow[];
  }
  /** The active session of `accountId` whose key is `publicKey`, if any. */
  sessionByKey(publicKey: string, accountId: string, now: number): SessionRow | undefined {
    return this.s.sessionByKey.get(publicKey, accountId, now) as SessionRow | undefined;
  }
  insertSession(row: SessionRow): void {
    this.s.insertSession.run(row);
  }
  revokeSession(id: string, at: string): void {
    this.s.revokeSession.run(at, at, id);
  }
  revokeSessionsOf(credentialId: string, at: string): void {
    this.s.revokeSessionsOf.run(at, at, credentialId);
  }

  request(platformId: string, id: string): RequestRow | undefined {
    return this.s.request.get(platformId, id) as RequestRow | undefined;
  }
  insertRequest(row: RequestRow): void {
    this.s.insertRequest.run(row);
  }
  /** Marks a pending request used; false when it already was. */
  consumeRequest(id: string, at: string): boolean {
    return this.s.consumeRequest.run(at, id).changes === 1;
  }

  delegatedKey(platformId: string, id: string): DelegatedKeyRow | undefined {
    return this.s.delegatedKey.get(platformId, id) as DelegatedKeyRow | undefined;
  }
  delegatedKeys(platformId: string, filter: { accountId?: string | undefined; fundingSourceId?: string | undefined }): DelegatedKeyRow[] {
    const rows = filter.accountId !== undefined
      ? (this.s.delegatedByAccount.all(platformId, filter.accountId) as DelegatedKeyRow[])
      : (this.s.delegatedBySource.all(platformId, filter.fundingSourceId) as DelegatedKeyRow[]);
    return filter.accountId !== undefined && filter.fundingSourceId !== undefined ? rows.filter((row) => row.funding_source_id === filter.fundingSourceId) : rows;
  }
  activeDelegatedKey(platformId: string, fundingSourceId: string): string | undefined {
    return this.s.activeDelegated.get(platformId, fundingSourceId) as string | undefined;
  }
  insertDelegatedKey(row: DelegatedKeyRow): void {
    this.s.insertDelegated.run(row);
  }
  setDelegatedStatus(id: string, status: string, updatedAt: string): void {
    this.s.setDelegatedStatus.run(status, updatedAt, id);
  }

  settings(accountId: string): WalletSettingsRow | undefined {
    return this.s.settings.get(accountId) as WalletSettingsRow | undefined;
  }
  insertSettings(row: WalletSettingsRow): void {
    this.s.insertSettings.run(row);
  }
  setPrivate(accountId: string, enabled: boolean): void {
    this.s.setPrivate.run(enabled ? 1 : 0, accountId);
  }

  removePlatform(platformId: string): void {
    for (const statement of this.s.removePlatform) statement.run(platformId);
  }
}
