import type Database from 'better-sqlite3';
import { keyedRows, type Db, type KeyedRows, type Migration } from '../../store/db.js';
import type { PageRequest } from '../../core/pagination.js';

/**
 * Agents, their device codes, the quotes they made and the actions they submitted. Secrets are
 * stored as SHA-256 hashes only: `token_hash` (the bearer access token) and `code_hash` (a
 * device code).
 */
export const agentMigrations: Migration[] = [
  {
    id: 'agents-001',
    sql: `CREATE TABLE agents (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      customer_id TEXT NOT NULL,
      name TEXT NOT NULL,
      is_paused INTEGER NOT NULL DEFAULT 0,
      is_connected INTEGER NOT NULL DEFAULT 0,
      policy TEXT NOT NULL,
      token_hash TEXT UNIQUE,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      deleted_at TEXT
    );
    CREATE INDEX agents_platform ON agents (platform_id, id);
    CREATE INDEX agents_customer ON agents (platform_id, customer_id, id);
    CREATE TABLE agent_device_codes (
      code_hash TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      platform_id TEXT NOT NULL,
      expires_at INTEGER NOT NULL,
      redeemed_at TEXT,
      invalidated_at TEXT
    );
    CREATE INDEX agent_device_codes_agent ON agent_device_codes (agent_id);
    CREATE TABLE agent_quotes (
      quote_id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      platform_id TEXT NOT NULL
    );
    CREATE TABLE agent_actions (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      agent_id TEXT NOT NULL,
      customer_id TEXT NOT NULL,
      platform_customer_id TEXT NOT NULL,
      status TEXT NOT NULL,
      type TEXT NOT NULL,
      quote_id TEXT,
      pending_transaction_id TEXT,
      transaction_id TEXT,
      request TEXT,
      transfer_details TEXT,
      amount INTEGER NOT NULL,
      currency TEXT NOT NULL,
      rejection_reason TEXT,
      created_ms INTEGER NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX agent_actions_agent ON agent_actions (agent_id, id);
    CREATE INDEX agent_actions_agent_status ON agent_actions (agent_id, status, id);
    CREATE INDEX agent_actions_platform_status ON agent_actions (platform_id, status, id);
    CREATE INDEX agent_actions_pending_tx ON agent_actions (platform_id, pending_transaction_id);
    CREATE INDEX agent_actions_quote ON agent_actions (quote_id);
    CREATE TABLE agent_usage (
      agent_id TEXT NOT NULL,
      period TEXT NOT NULL,
      currency TEXT NOT NULL,
      platform_id TEXT NOT NULL,
      count INTEGER NOT NULL,
      amount INTEGER NOT NULL,
      PRIMARY KEY (agent_id, period, currency)
    ) WITHOUT ROWID;`,
  },
];

/** An agent row. `policy` is the contract's AgentPolicy as JSON. */
export interface AgentRow {
  id: string;
  platform_id: string;
  customer_id: string;
  name: string;
  is_paused: number;
  is_connected: number;
  policy: string;
  token_hash: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

/** A device code, by the hash of its text. */
export interface DeviceCodeRow {
  code_hash: string;
  agent_id: string;
  platform_id: string;
  expires_at: number;
  redeemed_at: string | null;
  invalidated_at: string | null;
}

/** An agent action row; `amount` in `currency` (smallest unit) is what it counts in the agent's usage. */
export interface ActionRow {
  id: string;
  platform_id: string;
  agent_id: string;
  customer_id: string;
  platform_customer_id: string;
  status: string;
  type: string;
  quote_id: string | null;
  pending_transaction_id: string | null;
  transaction_id: string | null;
  request: string | null;
  transfer_details: string | null;
  amount: number;
  currency: string;
  rejection_reason: string | null;
  created_ms: number;
  created_at: string;
  updated_at: string;
}

/** Filters of `GET /agents`. */
export interface AgentFilter {
  customerId?: string | undefined;
  isPaused?: boolean | undefined;
  isConnected?: boolean | undefined;
  createdAfter?: string | undefined;
  createdBefore?: string | undefined;
  updatedAfter?: string | undefined;
  updatedBefore?: string | undefined;
}

/** Filters of the action lists (`GET /agents/approvals`, `GET /agents/me/actions`). */
export interface ActionFilter {
  agentId?: string | undefined;
  customerId?: string | undefined;
  status?: string | undefined;
  startDate?: string | undefined;
  endDate?: string | undefined;
}

type Clause = { sql: string; params: unknown[] };

function agentWhere(platformId: string, f: AgentFilter): Clause {
  const clauses = ['platform_id = ?', 'deleted_at IS NULL'];
  const params: unknown[] = [platformId];
  const add = (sql: string, value: unknown) => {
    clauses.push(sql);
    params.push(value);
  };
  if (f.customerId !== undefined) add('customer_id = ?', f.customerId);
  if (f.isPaused !== undefined) add('is_paused = ?', f.isPaused ? 1 : 0);
  if (f.isConnected !== undefined) add('is_connected = ?', f.isConnected ? 1 : 0);
  if (f.createdAfter !== undefined) add('created_at >= ?', f.createdAfter);
  if (f.createdBefore !== undefined) add('created_at <= ?', f.createdBefore);
  if (f.updatedAfter !== undefined) add('updated_at >= ?', f.updatedAfter);
  if (f.updatedBefore !== undefined) add('updated_at <= ?', f.updatedBefore);
  return { sql: clauses.join(' AND '), params };
}

function actionWhere(platformId: string, f: ActionFilter): Clause {
  const clauses = ['platform_id = ?'];
  const params: unknown[] = [platformId];
  const add = (sql: string, value: unknown) => {
    clauses.push(sql);
    params.push(value);
  };
  if (f.agentId !== undefined) add('agent_id = ?', f.agentId);
  if (f.customerId !== undefined) add('customer_id = ?', f.customerId);
  if (f.status !== undefined) add('status = ?', f.status);
  if (f.startDate !== undefined) add('created_at >= ?', f.startDate);
  if (f.endDate !== undefined) add('created_at <= ?', f.endDate);
  return { sql: clauses.join(' AND '), params };
}

/** The only SQL of the agents area. */
export class AgentRepo {
  private readonly statements = new Map<string, Database.Statement<unknown[]>>();
  /** Every agent request looks its agent up by token: keyed here from the row's array (`keyedRows`). */
  private readonly byToken: KeyedRows<AgentRow>;

  constructor(private readonly db: Db) {
    this.byToken = keyedRows<AgentRow>(db.prepare('SELECT * FROM agents WHERE token_hash = ? AND deleted_at IS NULL'));
  }

  /** One prepared statement per distinct SQL text (filters build a handful of shapes). */
  private stmt(sql: string): Database.Statement<unknown[]> {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare<unknown[]>(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  insertAgent(row: AgentRow): void {
    this.stmt(
      `INSERT INTO agents (id, platform_id, customer_id, name, is_paused, is_connected, policy, token_hash, created_at, updated_at, deleted_at)
       VALUES (@id, @platform_id, @customer_id, @name, @is_paused, @is_connected, @policy, @token_hash, @created_at, @updated_at, @deleted_at)`,
    ).run(row);
  }

  agentById(platformId: string, id: string): AgentRow | undefined {
    return this.stmt('SELECT * FROM agents WHERE platform_id = ? AND id = ? AND deleted_at IS NULL').get(platformId, id) as AgentRow | undefined;
  }

  agentByToken(tokenHash: string): AgentRow | undefined {
    return this.byToken.get(tokenHash);
  }

  updateAgent(row: AgentRow): void {
    this.stmt(
      `UPDATE agents SET name = @name, is_paused = @is_paused, is_connected = @is_connected, policy = @policy,
       token_hash = @token_hash, updated_at = @updated_at, deleted_at = @deleted_at WHERE id = @id`,
    ).run(row);
  }

  agentPage(platformId: string, filter: AgentFilter, request: PageRequest): AgentRow[] {
    const where = agentWhere(platformId, filter);
    const after = request.afterKey === undefined ? '' : ' AND id > ?';
    const params = request.afterKey === undefined ? where.params : [...where.params, request.afterKey];
    return this.stmt(`SELECT * FROM agents WHERE ${where.sql}${after} ORDER BY id LIMIT ?`).all(...params, request.take) as AgentRow[];
  }

  agentCount(platformId: string, filter: AgentFilter): number {
    const where = agentWhere(platformId, filter);
    return (this.stmt(`SELECT COUNT(*) AS n FROM agents WHERE ${where.sql}`).get(...where.params) as { n: number }).n;
  }

  insertDeviceCode(row: DeviceCodeRow): void {
    this.stmt(
      `INSERT INTO agent_device_codes (code_hash, agent_id, platform_id, expires_at, redeemed_at, invalidated_at)
       VALUES (@code_hash, @agent_id, @platform_id, @expires_at, @redeemed_at, @invalidated_at)`,
    ).run(row);
  }

  deviceCode(codeHash: string): DeviceCodeRow | undefined {
    return this.stmt('SELECT * FROM agent_device_codes WHERE code_hash = ?').get(codeHash) as DeviceCodeRow | undefined;
  }

  /** Invalidates every unredeemed code of the agent. */
  invalidateDeviceCodes(agentId: string, at: string): void {
    this.stmt('UPDATE agent_device_codes SET invalidated_at = ? WHERE agent_id = ? AND redeemed_at IS NULL AND invalidated_at IS NULL').run(at, agentId);
  }

  /** Marks the code redeemed; false when it was redeemed or invalidated meanwhile (single use). */
  redeemDeviceCode(codeHash: string, at: string): boolean {
    return this.stmt('UPDATE agent_device_codes SET redeemed_at = ? WHERE code_hash = ? AND redeemed_at IS NULL AND invalidated_at IS NULL').run(at, codeHash).changes === 1;
  }

  insertAgentQuote(quoteId: string, agentId: string, platformId: string): void {
    this.stmt('INSERT INTO agent_quotes (quote_id, agent_id, platform_id) VALUES (?, ?, ?)').run(quoteId, agentId, platformId);
  }

  isAgentQuote(quoteId: string, agentId: string): boolean {
    return this.stmt('SELECT 1 FROM agent_quotes WHERE quote_id = ? AND agent_id = ?').get(quoteId, agentId) !== undefined;
  }

  insertAction(row: ActionRow): void {
    this.stmt(
      `INSERT INTO agent_actions (id, platform_id, agent_id, customer_id, platform_customer_id, status, type, quote_id, pending_transaction_id,
         transaction_id, request, transfer_details, amount, currency, rejection_reason, created_ms, created_at, updated_at)
       VALUES (@id, @platform_id, @agent_id, @customer_id, @platform_customer_id, @status, @type, @quote_id, @pending_transaction_id,
         @transaction_id, @request, @transfer_details, @amount, @currency, @rejection_reason, @created_ms, @created_at, @updated_at)`,
    ).run(row);
  }

  /** A pending or approved action on the quote, if any: a quote is submitted once. */
  openActionForQuote(quoteId: string): ActionRow | undefined {
    return this.stmt("SELECT * FROM agent_actions WHERE quote_id = ? AND status IN ('PENDING_APPROVAL', 'APPROVED')").get(quoteId) as ActionRow | undefined;
  }

  actionById(platformId: string, id: string): ActionRow | undefined {
    return this.stmt('SELECT * FROM agent_actions WHERE platform_id = ? AND id = ?').get(platformId, id) as ActionRow | undefined;
  }

  /** The action still waiting for approval whose transaction id was reserved as `transactionId`. */
  pendingActionByTransaction(platformId: string, transactionId: string): ActionRow | undefined {
    return this.stmt("SELECT * FROM agent_actions WHERE platform_id = ? AND pending_transaction_id = ? AND status = 'PENDING_APPROVAL'").get(
      platformId,
      transactionId,
    ) as ActionRow | undefined;
  }

  /** Moves a PENDING_APPROVAL action on; false when it was decided meanwhile. */
  decideAction(id: string, status: string, transactionId: string | null, rejectionReason: string | null, at: string): boolean {
    return (
      this.stmt(
        "UPDATE agent_actions SET status = ?, transaction_id = ?, rejection_reason = ?, updated_at = ? WHERE id = ? AND status = 'PENDING_APPROVAL'",
      ).run(status, transactionId, rejectionReason, at, id).changes === 1
    );
  }

  actionPage(platformId: string, filter: ActionFilter, request: PageRequest, order: 'asc' | 'desc'): ActionRow[] {
    const where = actionWhere(platformId, filter);
    const after = request.afterKey === undefined ? '' : order === 'asc' ? ' AND id > ?' : ' AND id < ?';
    const params = request.afterKey === undefined ? where.params : [...where.params, request.afterKey];
    return this.stmt(`SELECT * FROM agent_actions WHERE ${where.sql}${after} ORDER BY id ${order === 'asc' ? 'ASC' : 'DESC'} LIMIT ?`).all(
      ...params,
      request.take,
    ) as ActionRow[];
  }

  actionCount(platformId: string, filter: ActionFilter): number {
    const where = actionWhere(platformId, filter);
    return (this.stmt(`SELECT COUNT(*) AS n FROM agent_actions WHERE ${where.sql}`).get(...where.params) as { n: number }).n;
  }

  /**
   * Adds to (or, with negative values, takes from) the agent's usage counters of the given
   * periods (`D2026-11-23`, `M2026-11`): what pending and approved actions count against limits.
   */
  addUsage(agentId: string, platformId: string, periods: string[], currency: string, count: number, amount: number): void {
    const upsert = this.stmt(
      `INSERT INTO agent_usage (agent_id, period, currency, platform_id, count, amount) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (agent_id, period, currency) DO UPDATE SET count = count + excluded.count, amount = amount + excluded.amount`,
    );
    for (const period of periods) upsert.run(agentId, period, currency, platformId, count, amount);
  }

  /** The usage counters of one period, per currency. */
  usageOf(agentId: string, period: string): { currency: string; count: number; amount: number }[] {
    return this.stmt('SELECT currency, count, amount FROM agent_usage WHERE agent_id = ? AND period = ?').all(agentId, period) as {
      currency: string;
      count: number;
      amount: number;
    }[];
  }

  removePlatform(platformId: string): void {
    for (const table of ['agent_usage', 'agent_actions', 'agent_quotes', 'agent_device_codes', 'agents']) {
      this.stmt(`DELETE FROM ${table} WHERE platform_id = ?`).run(platformId);
    }
  }
}
