import type Database from 'better-sqlite3';
import { keyedRows, type Db, type KeyedRows, type Migration } from '../../store/db.js';

type Statement = Database.Statement<unknown[]>;

/**
 * Cards: the cards themselves, their ordered funding sources (a row per binding, so the
 * `accountId` filter is an index lookup), card transactions with their running amounts, daily
 * usage per card and UTC day, every simulated network message, the platform card settings and
 * the reveal audit log (a hash of each URL, never the URL).
 */
export const cardMigrations: Migration[] = [
  {
    id: 'cards-001',
    sql: `CREATE TABLE cards (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      cardholder_id TEXT NOT NULL,
      platform_card_id TEXT NOT NULL,
      state TEXT NOT NULL,
      state_reason TEXT,
      form TEXT NOT NULL,
      currency TEXT NOT NULL,
      funding_sources TEXT NOT NULL,
      max_spend_per_transaction INTEGER,
      max_spend_per_day INTEGER,
      max_transactions_per_day INTEGER,
      last4 TEXT,
      exp_month INTEGER,
      exp_year INTEGER,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX cards_platform ON cards (platform_id, id);
    CREATE INDEX cards_cardholder ON cards (platform_id, cardholder_id, id);
    CREATE INDEX cards_platform_card_id ON cards (platform_id, platform_card_id, id);
    CREATE INDEX cards_state ON cards (platform_id, state, id);
    CREATE TABLE card_funding_sources (
      card_id TEXT NOT NULL,
      platform_id TEXT NOT NULL,
      account_id TEXT NOT NULL,
      position INTEGER NOT NULL,
      PRIMARY KEY (card_id, position)
    ) WITHOUT ROWID;
    CREATE INDEX card_funding_sources_account ON card_funding_sources (platform_id, account_id, card_id);
    CREATE TABLE card_transactions (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      card_id TEXT NOT NULL,
      account_id TEXT NOT NULL,
      customer_id TEXT NOT NULL,
      platform_customer_id TEXT NOT NULL,
      direction TEXT NOT NULL,
      status TEXT NOT NULL,
      currency TEXT NOT NULL,
      merchant TEXT NOT NULL,
      token TEXT NOT NULL,
      authorized INTEGER NOT NULL,
      held INTEGER NOT NULL,
      settled INTEGER NOT NULL,
      refunded INTEGER NOT NULL,
      last_refund INTEGER NOT NULL,
      pulled INTEGER NOT NULL,
      pull_count INTEGER NOT NULL,
      pull_pending INTEGER NOT NULL,
      settle_count INTEGER NOT NULL,
      refund_count INTEGER NOT NULL,
      authorized_at TEXT NOT NULL,
      last_event_at TEXT NOT NULL,
      CHECK (held >= 0 AND settled >= 0 AND refunded >= 0 AND refunded <= settled)
    ) WITHOUT ROWID;
    CREATE INDEX card_transactions_card ON card_transactions (card_id);
    CREATE TABLE card_daily_usage (
      card_id TEXT NOT NULL,
      day TEXT NOT NULL,
      amount INTEGER NOT NULL,
      count INTEGER NOT NULL,
      PRIMARY KEY (card_id, day)
    ) WITHOUT ROWID;
    CREATE TABLE card_simulations (
      token TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      card_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      outcome TEXT NOT NULL,
      decline_reason TEXT,
      card_transaction_id TEXT,
      created_at TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE card_settings (
      platform_id TEXT PRIMARY KEY,
      settings TEXT NOT NULL,
      reveal_key TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE card_reveals (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      card_id TEXT NOT NULL,
      actor TEXT NOT NULL,
      url_sha256 TEXT NOT NULL,
      expires_at TEXT NOT NULL,
      created_at TEXT NOT NULL
    );
    CREATE INDEX card_reveals_card ON card_reveals (card_id);`,
  },
];

/** A card row as stored. */
export interface CardRow {
  id: string;
  platform_id: string;
  cardholder_id: string;
  platform_card_id: string;
  state: string;
  state_reason: string | null;
  form: string;
  currency: string;
  funding_sources: string;
  max_spend_per_transaction: number | null;
  max_spend_per_day: number | null;
  max_transactions_per_day: number | null;
  last4: string | null;
  exp_month: number | null;
  exp_year: number | null;
  created_at: string;
  updated_at: string;
}

/** A card transaction row: the running amounts every simulated message updates. */
export interface CardTransactionRow {
  id: string;
  platform_id: string;
  card_id: string;
  account_id: string;
  customer_id: string;
  platform_customer_id: string;
  direction: 'DEBIT' | 'CREDIT';
  status: string;
  currency: string;
  merchant: string;
  token: string;
  /** Authorised total. */
  authorized: number;
  /** Still held on the funding source (debits) or still arriving (credits). */
  held: number;
  settled: number;
  refunded: number;
  /** Amount of the latest return (what a return reversal undoes). */
  last_refund: number;
  /** Amount taken from the funding source by pulls (holds that were placed, plus post-hoc pulls). */
  pulled: number;
  pull_count: number;
  pull_pending: number;
  settle_count: number;
  refund_count: number;
  authorized_at: string;
  last_event_at: string;
}

/** One simulated network message and what came of it. */
export interface SimulationRow {
  token: string;
  platform_id: string;
  card_id: string;
  kind: string;
  outcome: 'APPROVED' | 'DECLINED';
  decline_reason: string | null;
  card_transaction_id: string | null;
  created_at: string;
}

/** Filters of `GET /cards`. */
export interface CardFilter {
  cardholderId?: string | undefined;
  accountId?: string | undefined;
  platformCardId?: string | undefined;
  state?: string | undefined;
}

/** The only SQL of the cards area. */
export class CardRepo {
  private readonly insertCard: Statement;
  private readonly updateCardStmt: Statement;
  private readonly cardById: KeyedRows<CardRow>;
  private readonly cardAnywhere: Statement;
  private readonly insertSource: Statement;
  private readonly removeSources: Statement;
  private readonly liveCount: Statement;
  private readonly liveCountOfHolder: Statement;
  private readonly insertTx: Statement;
  private readonly updateTxStmt: Statement;
  private readonly txById: KeyedRows<CardTransactionRow>;
  private readonly openTxOfCard: KeyedRows<CardTransactionRow>;
  private readonly usageStmt: Statement;
  private readonly addUsageStmt: Statement;
  private readonly insertSimulation: Statement;
  private readonly simulationStmt: Statement;
  private readonly settingsStmt: Statement;
  private readonly upsertSettings: Statement;
  private readonly insertReveal: Statement;
  private readonly pages = new Map<string, Statement>();
  private readonly removeStmts: Statement[];

  constructor(private readonly db: Db) {
    this.insertCard = db.prepare(
      `INSERT INTO cards (id, platform_id, cardholder_id, platform_card_id, state, state_reason, form, currency, funding_sources,
         max_spend_per_transaction, max_spend_per_day, max_transactions_per_day, last4, exp_month, exp_year, created_at, updated_at)
       VALUES (@id, @platform_id, @cardholder_id, @platform_card_id, @state, @state_reason, @form, @currency, @funding_sources,
         @max_spend_per_transaction, @max_spend_per_day, @max_transactions_per_day, @last4, @exp_month, @exp_year, @created_at, @updated_at)`,
    );
    this.updateCardStmt = db.prepare(
      `UPDATE cards SET state = @state, state_reason = @state_reason, funding_sources = @funding_sources,
         max_spend_per_transaction = @max_spend_per_transaction, max_spend_per_day = @max_spend_per_day,
         max_transactions_per_day = @max_transactions_per_day, last4 = @last4, exp_month = @exp_month, exp_year = @exp_year,
         updated_at = @updated_at WHERE id = @id`,
    );
    this.cardById = keyedRows<CardRow>(db.prepare('SELECT * FROM cards WHERE platform_id = ? AND id = ?'));
    this.cardAnywhere = db.prepare('SELECT * FROM cards WHERE id = ?');
    this.insertSource = db.prepare('INSERT INTO card_funding_sources (card_id, platform_id, account_id, position) VALUES (?, ?, ?, ?)');
    this.removeSources = db.prepare('DELETE FROM card_funding_sources WHERE card_id = ?');
    this.liveCount = db.prepare(`SELECT COUNT(*) FROM cards WHERE platform_id = ? AND state IN ('PENDING_KYC', 'PROCESSING', 'ACTIVE', 'FROZEN')`).pluck();
    this.liveCountOfHolder = db
      .prepare(`SELECT COUNT(*) FROM cards WHERE platform_id = ? AND cardholder_id = ? AND state <> 'CLOSED'`)
      .pluck();
    this.insertTx = db.prepare(
      `INSERT INTO card_transactions (id, platform_id, card_id, account_id, customer_id, platform_customer_id, direction, status, currency,
         merchant, token, authorized, held, settled, refunded, last_refund, pulled, pull_count, pull_pending, settle_count, refund_count,
         authorized_at, last_event_at)
       VALUES (@id, @platform_id, @card_id, @account_id, @customer_id, @platform_customer_id, @direction, @status, @currency,
         @merchant, @token, @authorized, @held, @settled, @refunded, @last_refund, @pulled, @pull_count, @pull_pending, @settle_count,
         @refund_count, @authorized_at, @last_event_at)`,
    );
    this.updateTxStmt = db.prepare(
      `UPDATE card_transactions SET status = @status, authorized = @authorized, held = @held, settled = @settled, refunded = @refunded,
         last_refund = @last_refund, pulled = @pulled, pull_count = @pull_count, pull_pending = @pull_pending,
         settle_count = @settle_count, refund_count = @refund_count, last_event_at = @last_event_at WHERE id = @id`,
    );
    this.txById = keyedRows<CardTransactionRow>(db.prepare('SELECT * FROM card_transactions WHERE platform_id = ? AND id = ?'));
    this.openTxOfCard = keyedRows<CardTransactionRow>(db.prepare(`SELECT * FROM card_transactions WHERE card_id = ? AND status IN ('AUTHORIZED', 'PARTIALLY_SETTLED') ORDER BY id`));
    this.usageStmt = db.prepare('SELECT amount, count FROM card_daily_usage WHERE card_id = ? AND day = ?');
    this.addUsageStmt = db.prepare(
      `INSERT INTO card_daily_usage (card_id, day, amount, count) VALUES (?, ?, ?, ?)
       ON CONFLICT (card_id, day) DO UPDATE SET amount = amount + excluded.amount, count = count + excluded.count`,
    );
    this.insertSimulation = db.prepare(
      `INSERT INTO card_simulations (token, platform_id, card_id, kind, outcome, decline_reason, card_transaction_id, created_at)
       VALUES (@token, @platform_id, @card_id, @kind, @outcome, @decline_reason, @card_transaction_id, @created_at)`,
    );
    this.simulationStmt = db.prepare('SELECT * FROM card_simulations WHERE platform_id = ? AND token = ?');
    this.settingsStmt = db.prepare('SELECT settings, reveal_key FROM card_settings WHERE platform_id = ?');
    this.upsertSettings = db.prepare(
      `INSERT INTO card_settings (platform_id, settings, reveal_key) VALUES (?, ?, ?)
       ON CONFLICT (platform_id) DO UPDATE SET settings = excluded.settings`,
    );
    this.insertReveal = db.prepare(
      'INSERT INTO card_reveals (id, platform_id, card_id, actor, url_sha256, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.removeStmts = [
      db.prepare('DELETE FROM card_funding_sources WHERE platform_id = ?'),
      db.prepare('DELETE FROM card_daily_usage WHERE card_id IN (SELECT id FROM cards WHERE platform_id = ?)'),
      db.prepare('DELETE FROM cards WHERE platform_id = ?'),
      db.prepare('DELETE FROM card_transactions WHERE platform_id = ?'),
      db.prepare('DELETE FROM card_simulations WHERE platform_id = ?'),
      db.prepare('DELETE FROM card_settings WHERE platform_id = ?'),
      db.prepare('DELETE FROM card_reveals WHERE platform_id = ?'),
    ];
  }

  insert(row: CardRow): void {
    this.insertCard.run(row);
    this.bindSources(row);
  }

  update(row: CardRow, sourcesChanged: boolean): void {
    this.updateCardStmt.run(row);
    if (sourcesChanged) {
      this.removeSources.run(row.id);
      this.bindSources(row);
    }
  }

  private bindSources(row: CardRow): void {
    (JSON.parse(row.funding_sources) as string[]).forEach((accountId, position) => this.insertSource.run(row.id, row.platform_id, accountId, position));
  }

  byId(platformId: string, id: string): CardRow | undefined {
    return this.cardById.get(platformId, id);
  }

  /** A card by id on any platform (the reveal frame, whose signed URL is the capability). */
  anywhere(id: string): CardRow | undefined {
    return this.cardAnywhere.get(id) as CardRow | undefined;
  }

  /** Live (not CLOSED) cards of the platform, and of one cardholder. */
  live(platformId: string, cardholderId: string): { platform: number; cardholder: number } {
    return { platform: this.liveCount.get(platformId) as number, cardholder: this.liveCountOfHolder.get(platformId, cardholderId) as number };
  }

  /**
   * One page of cards in id order, strictly after `afterKey`. The statement is built for the
   * filters present (no `@x IS NULL OR` clauses) and cached per shape, so each filter is an
   * index range.
   */
  page(platformId: string, filter: CardFilter, afterKey: string | undefined, take: number, order: 'asc' | 'desc'): CardRow[] {
    const present = (['cardholderId', 'accountId', 'platformCardId', 'state'] as const).filter((k) => filter[k] !== undefined);
    const shape = `${present.join(',')}|${afterKey === undefined ? '' : 'after'}|${order}`;
    let stmt = this.pages.get(shape);
    if (!stmt) {
      const clauses = ['c.platform_id = @platformId'];
      let from = 'cards c';
      if (filter.accountId !== undefined) {
        from = 'card_funding_sources f JOIN cards c ON c.id = f.card_id';
        clauses[0] = 'f.platform_id = @platformId';
        clauses.push('f.account_id = @accountId');
      }
      if (filter.cardholderId !== undefined) clauses.push('c.cardholder_id = @cardholderId');
      if (filter.platformCardId !== undefined) clauses.push('c.platform_card_id = @platformCardId');
      if (filter.state !== undefined) clauses.push('c.state = @state');
      const cmp = order === 'asc' ? '>' : '<';
      if (afterKey !== undefined) clauses.push(`c.id ${cmp} @afterKey`);
      stmt = this.db.prepare(`SELECT c.* FROM ${from} WHERE ${clauses.join(' AND ')} ORDER BY c.id ${order === 'asc' ? 'ASC' : 'DESC'} LIMIT @take`);
      this.pages.set(shape, stmt);
    }
    const params: Record<string, unknown> = { platformId, take };
    for (const key of present) params[key] = filter[key];
    if (afterKey !== undefined) params.afterKey = afterKey;
    return stmt.all(params) as CardRow[];
  }

  insertTransaction(row: CardTransactionRow): void {
    this.insertTx.run(row);
  }

  updateTransaction(row: CardTransactionRow): void {
    this.updateTxStmt.run(row);
  }

  transaction(platformId: string, id: string): CardTransactionRow | undefined {
    return this.txById.get(platformId, id);
  }

  /** Transactions of a card still holding funds (AUTHORIZED or PARTIALLY_SETTLED). */
  openTransactions(cardId: string): CardTransactionRow[] {
    return this.openTxOfCard.all(cardId);
  }

  usage(cardId: string, day: string): { amount: number; count: number } {
    return (this.usageStmt.get(cardId, day) as { amount: number; count: number } | undefined) ?? { amount: 0, count: 0 };
  }

  addUsage(cardId: string, day: string, amount: number, count: number): void {
    this.addUsageStmt.run(cardId, day, amount, count);
  }

  recordSimulation(row: SimulationRow): void {
    this.insertSimulation.run(row);
  }

  simulation(platformId: string, token: string): SimulationRow | undefined {
    return this.simulationStmt.get(platformId, token) as SimulationRow | undefined;
  }

  settings(platformId: string): { settings: string; reveal_key: string } | undefined {
    return this.settingsStmt.get(platformId) as { settings: string; reveal_key: string } | undefined;
  }

  saveSettings(platformId: string, settings: string, revealKey: string): void {
    this.upsertSettings.run(platformId, settings, revealKey);
  }

  auditReveal(id: string, platformId: string, cardId: string, actor: string, urlSha256: string, expiresAt: string, createdAt: string): void {
    this.insertReveal.run(id, platformId, cardId, actor, urlSha256, expiresAt, createdAt);
  }

  removePlatform(platformId: string): void {
    for (const stmt of this.removeStmts) stmt.run(platformId);
  }
}
