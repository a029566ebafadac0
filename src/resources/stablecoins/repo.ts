import type { Statement } from 'better-sqlite3';
import type { Db, Migration } from '../../store/db.js';

/** Stablecoin provider account links, registered stablecoins and their issuer operations. */
export const stablecoinMigrations: Migration[] = [
  {
    id: 'stablecoins-001',
    sql: `CREATE TABLE stablecoin_provider_accounts (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      provider TEXT NOT NULL,
      provider_account_id TEXT NOT NULL,
      provider_environment TEXT NOT NULL,
      status TEXT NOT NULL,
      api_client_id TEXT NOT NULL,
      secret_hash TEXT NOT NULL,
      last_verified_at TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX stablecoin_provider_accounts_platform ON stablecoin_provider_accounts (platform_id, id);
    CREATE INDEX stablecoin_provider_accounts_platform_status ON stablecoin_provider_accounts (platform_id, status, id);
    CREATE TABLE stablecoins (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      provider_account_id TEXT NOT NULL,
      provider TEXT NOT NULL,
      provider_environment TEXT NOT NULL,
      provider_token_identifier TEXT NOT NULL,
      network TEXT NOT NULL,
      network_token_identifier TEXT NOT NULL,
      name TEXT NOT NULL,
      symbol TEXT NOT NULL,
      base_currency TEXT NOT NULL,
      decimals INTEGER NOT NULL,
      issuance_status TEXT NOT NULL,
      service_operations_status TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      UNIQUE (platform_id, network, network_token_identifier)
    );
    CREATE INDEX stablecoins_platform ON stablecoins (platform_id, id);
    CREATE TABLE stablecoin_operations (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      stablecoin_id TEXT NOT NULL,
      operation_type TEXT NOT NULL,
      status TEXT NOT NULL,
      body TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX stablecoin_operations_coin ON stablecoin_operations (stablecoin_id, id);
    CREATE INDEX stablecoin_operations_coin_type ON stablecoin_operations (stablecoin_id, operation_type, id);
    CREATE INDEX stablecoin_operations_platform ON stablecoin_operations (platform_id);`,
  },
];

/** A provider account link as stored (only a hash of the provider secret). */
export interface ProviderAccountRow {
  id: string;
  platform_id: string;
  provider: string;
  provider_account_id: string;
  provider_environment: string;
  status: string;
  api_client_id: string;
  secret_hash: string;
  last_verified_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A registered stablecoin as stored. */
export interface StablecoinRow {
  id: string;
  platform_id: string;
  provider_account_id: string;
  provider: string;
  provider_environment: string;
  provider_token_identifier: string;
  network: string;
  network_token_identifier: string;
  name: string;
  symbol: string;
  base_currency: string;
  decimals: number;
  issuance_status: string;
  service_operations_status: string;
  created_at: string;
  updated_at: string;
}

/** An issuer operation as stored: `body` is the presented `StablecoinOperation` plus internal fields. */
export interface OperationRow {
  id: string;
  platform_id: string;
  stablecoin_id: string;
  operation_type: string;
  status: string;
  body: string;
  created_at: string;
  updated_at: string;
}

type Stmt = Statement<unknown[]>;

/** A keyset page query over one table with optional equality filters; statements cached per filter set. */
class PagedQuery {
  private readonly cache = new Map<string, { page: Stmt; count: Stmt }>();
  constructor(
    private readonly db: Db,
    private readonly table: string,
    private readonly scope: string,
    private readonly descending = false,
  ) {}

  private stmts(columns: string[]) {
    const key = columns.join(',');
    let stmts = this.cache.get(key);
    if (!stmts) {
      const where = [`${this.scope} = ?`, ...columns.map((c) => `${c} = ?`)].join(' AND ');
      const after = this.descending ? 'id < ?' : 'id > ?';
      stmts = {
        page: this.db.prepare<unknown[]>(`SELECT * FROM ${this.table} WHERE ${where} AND ${after} ORDER BY id ${this.descending ? 'DESC' : 'ASC'} LIMIT ?`),
        count: this.db.prepare<unknown[]>(`SELECT COUNT(*) AS n FROM ${this.table} WHERE ${where}`),
      };
      this.cache.set(key, stmts);
    }
    return stmts;
  }

  page<Row>(scopeValue: string, filters: Record<string, string | undefined>, afterId: string | undefined, take: number): Row[] {
    const used = Object.entries(filters).filter(([, v]) => v !== undefined) as [string, string][];
    const first = this.descending ? '\uffff' : '';
    return this.stmts(used.map(([c]) => c)).page.all(scopeValue, ...used.map(([, v]) => v), afterId ?? first, take) as Row[];
  }

  count(scopeValue: string, filters: Record<string, string | undefined>): number {
    const used = Object.entries(filters).filter(([, v]) => v !== undefined) as [string, string][];
    return (this.stmts(used.map(([c]) => c)).count.get(scopeValue, ...used.map(([, v]) => v)) as { n: number }).n;
  }
}

/** The only SQL of the stablecoins area. */
export class StablecoinRepo {
  readonly accountPages: PagedQuery;
  readonly coinPages: PagedQuery;
  readonly operationPages: PagedQuery;
  private readonly s: Record<string, Stmt>;

  constructor(db: Db) {
    this.accountPages = new PagedQuery(db, 'stablecoin_provider_accounts', 'platform_id');
    this.coinPages = new PagedQuery(db, 'stablecoins', 'platform_id');
    this.operationPages = new PagedQuery(db, 'stablecoin_operations', 'stablecoin_id', true);
    const prep = (sql: string): Stmt => db.prepare<unknown[]>(sql);
    this.s = {
      insertAccount: prep(
        `INSERT INTO stablecoin_provider_accounts (id, platform_id, provider, provider_account_id, provider_environment, status, api_client_id, secret_hash, last_verified_at, created_at, updated_at)
         VALUES (@id, @platform_id, @provider, @provider_account_id, @provider_environment, @status, @api_client_id, @secret_hash, @last_verified_at, @created_at, @updated_at)`,
      ),
      accountById: prep('SELECT * FROM stablecoin_provider_accounts WHERE platform_id = ? AND id = ?'),
      activeAccountFor: prep(
        "SELECT * FROM stablecoin_provider_accounts WHERE platform_id = ? AND provider = ? AND provider_account_id = ? AND status = 'ACTIVE'",
      ),
      activeAccounts: prep("SELECT * FROM stablecoin_provider_accounts WHERE platform_id = ? AND status = 'ACTIVE' ORDER BY id LIMIT 2"),
      setAccountStatus: prep('UPDATE stablecoin_provider_accounts SET status = ?, updated_at = ? WHERE id = ?'),
      insertCoin: prep(
        `INSERT INTO stablecoins (id, platform_id, provider_account_id, provider, provider_environment, provider_token_identifier, network, network_token_identifier, name, symbol, base_currency, decimals, issuance_status, service_operations_status, created_at, updated_at)
         VALUES (@id, @platform_id, @provider_account_id, @provider, @provider_environment, @provider_token_identifier, @network, @network_token_identifier, @name, @symbol, @base_currency, @decimals, @issuance_status, @service_operations_status, @created_at, @updated_at)`,
      ),
      coinById: prep('SELECT * FROM stablecoins WHERE platform_id = ? AND id = ?'),
      coinByToken: prep('SELECT * FROM stablecoins WHERE platform_id = ? AND network = ? AND network_token_identifier = ?'),
      setCoinStatus: prep('UPDATE stablecoins SET service_operations_status = ?, updated_at = ? WHERE id = ?'),
      setIssuanceStatus: prep('UPDATE stablecoins SET issuance_status = ?, updated_at = ? WHERE id = ?'),
      insertOperation: prep(
        `INSERT INTO stablecoin_operations (id, platform_id, stablecoin_id, operation_type, status, body, created_at, updated_at)
         VALUES (@id, @platform_id, @stablecoin_id, @operation_type, @status, @body, @created_at, @updated_at)`,
      ),
      operationById: prep('SELECT * FROM stablecoin_operations WHERE platform_id = ? AND id = ?'),
      updateOperation: prep('UPDATE stablecoin_operations SET status = ?, body = ?, updated_at = ? WHERE id = ?'),
      removeOperations: prep('DELETE FROM stablecoin_operations WHERE platform_id = ?'),
      removeCoins: prep('DELETE FROM stablecoins WHERE platform_id = ?'),
      removeAccounts: prep('DELETE FROM stablecoin_provider_accounts WHERE platform_id = ?'),
    };
  }

  insertAccount(row: ProviderAccountRow): void {
    this.s.insertAccount!.run(row);
  }
  accountById(platformId: string, id: string): ProviderAccountRow | undefined {
    return this.s.accountById!.get(platformId, id) as ProviderAccountRow | undefined;
  }
  activeAccountFor(platformId: string, provider: string, providerAccountId: string): ProviderAccountRow | undefined {
    return this.s.activeAccountFor!.get(platformId, provider, providerAccountId) as ProviderAccountRow | undefined;
  }
  /** Up to two ACTIVE links of a platform (enough to tell none, one, several). */
  activeAccounts(platformId: string): ProviderAccountRow[] {
    return this.s.activeAccounts!.all(platformId) as ProviderAccountRow[];
  }
  setAccountStatus(id: string, status: string, at: string): void {
    this.s.setAccountStatus!.run(status, at, id);
  }
  insertCoin(row: StablecoinRow): void {
    this.s.insertCoin!.run(row);
  }
  coinById(platformId: string, id: string): StablecoinRow | undefined {
    return this.s.coinById!.get(platformId, id) as StablecoinRow | undefined;
  }
  coinByToken(platformId: string, network: string, token: string): StablecoinRow | undefined {
    return this.s.coinByToken!.get(platformId, network, token) as StablecoinRow | undefined;
  }
  setCoinStatus(id: string, status: string, at: string): void {
    this.s.setCoinStatus!.run(status, at, id);
  }
  setIssuanceStatus(id: string, status: string, at: string): void {
    this.s.setIssuanceStatus!.run(status, at, id);
  }
  insertOperation(row: OperationRow): void {
    this.s.insertOperation!.run(row);
  }
  operationById(platformId: string, id: string): OperationRow | undefined {
    return this.s.operationById!.get(platformId, id) as OperationRow | undefined;
  }
  updateOperation(id: string, status: string, body: string, at: string): void {
    this.s.updateOperation!.run(status, body, at, id);
  }
  removePlatform(platformId: string): void {
    this.s.removeOperations!.run(platformId);
    this.s.removeCoins!.run(platformId);
    this.s.removeAccounts!.run(platformId);
  }
}
