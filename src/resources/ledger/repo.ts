import type { Db, Migration } from '../../store/db.js';

/**
 * The ledger: append-only double-entry postings. `ledger_entries` is never updated; each
 * posting's entries sum to zero per currency. `ledger_balances` is the running sum per ledger
 * account, written in the same transaction as the entries; its CHECK refuses a negative
 * balance for any account but the outside world's.
 */
export const ledgerMigrations: Migration[] = [
  {
    id: 'ledger-001',
    sql: `CREATE TABLE ledger_entries (
      seq INTEGER PRIMARY KEY,
      platform_id TEXT NOT NULL,
      posting_id TEXT NOT NULL,
      reference TEXT NOT NULL,
      account TEXT NOT NULL,
      currency TEXT NOT NULL,
      amount INTEGER NOT NULL,
      created_at TEXT NOT NULL
    );
    CREATE INDEX ledger_entries_reference ON ledger_entries (platform_id, reference);
    CREATE TABLE ledger_balances (
      account TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      currency TEXT NOT NULL,
      amount INTEGER NOT NULL,
      CHECK (amount >= 0 OR account LIKE 'world:%')
    ) WITHOUT ROWID;
    CREATE INDEX ledger_balances_platform ON ledger_balances (platform_id);
    CREATE TRIGGER ledger_entries_append_only_update BEFORE UPDATE ON ledger_entries
      BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only'); END;`,
  },
];

/** One entry as stored. */
export interface EntryRow {
  seq: number;
  platform_id: string;
  posting_id: string;
  reference: string;
  account: string;
  currency: string;
  amount: number;
  created_at: string;
}

/** The only SQL of the ledger. */
export class LedgerRepo {
  private readonly insertEntry;
  private readonly addToBalance;
  private readonly openBalance;
  private readonly balanceStmt;
  private readonly entriesOfReference;
  private readonly sumByCurrency;
  private readonly balancesOfPlatform;
  private readonly entrySumsOfPlatform;
  private readonly removeEntries;
  private readonly removeBalances;

  constructor(db: Db) {
    this.insertEntry = db.prepare(
      `INSERT INTO ledger_entries (platform_id, posting_id, reference, account, currency, amount, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    // Update first: an UPSERT would test the CHECK on the bare (negative) delta row.
    this.addToBalance = db.prepare('UPDATE ledger_balances SET amount = amount + ? WHERE account = ?');
    this.openBalance = db.prepare('INSERT INTO ledger_balances (account, platform_id, currency, amount) VALUES (?, ?, ?, ?)');
    this.balanceStmt = db.prepare('SELECT amount FROM ledger_balances WHERE account = ?').pluck();
    this.entriesOfReference = db.prepare('SELECT * FROM ledger_entries WHERE platform_id = ? AND reference = ? ORDER BY seq');
    this.sumByCurrency = db.prepare('SELECT currency, SUM(amount) AS total FROM ledger_entries WHERE platform_id = ? GROUP BY currency');
    this.balancesOfPlatform = db.prepare('SELECT account, amount FROM ledger_balances WHERE platform_id = ?');
    this.entrySumsOfPlatform = db.prepare('SELECT account, SUM(amount) AS amount FROM ledger_entries WHERE platform_id = ? GROUP BY account');
    this.removeEntries = db.prepare('DELETE FROM ledger_entries WHERE platform_id = ?');
    this.removeBalances = db.prepare('DELETE FROM ledger_balances WHERE platform_id = ?');
  }

  append(platformId: string, postingId: string, reference: string, account: string, currency: string, amount: number, createdAt: string): void {
    this.insertEntry.run(platformId, postingId, reference, account, currency, amount, createdAt);
    if (this.addToBalance.run(amount, account).changes === 0) this.openBalance.run(account, platformId, currency, amount);
  }

  balance(account: string): number {
    return (this.balanceStmt.get(account) as number | undefined) ?? 0;
  }

  entries(platformId: string, reference: string): EntryRow[] {
    return this.entriesOfReference.all(platformId, reference) as EntryRow[];
  }

  /** Sum of every entry per currency (zero when money is conserved). */
  sums(platformId: string): { currency: string; total: number }[] {
    return this.sumByCurrency.all(platformId) as { currency: string; total: number }[];
  }

  /** Running balances and entry sums per account, to prove they agree. */
  audit(platformId: string): { balances: { account: string; amount: number }[]; entrySums: { account: string; amount: number }[] } {
    return {
      balances: this.balancesOfPlatform.all(platformId) as { account: string; amount: number }[],
      entrySums: this.entrySumsOfPlatform.all(platformId) as { account: string; amount: number }[],
    };
  }

  removePlatform(platformId: string): void {
    this.removeEntries.run(platformId);
    this.removeBalances.run(platformId);
  }
}
