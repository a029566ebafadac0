import { perContext } from '../core/per-context.js';
import type { Db, Migration } from './db.js';

/**
 * Integration coverage: what each platform's client did, counted per platform. Three kinds of
 * fact, each a count under a key:
 * - `operation`: `<operationId> <status>`, one per contract operation answered (the server records it);
 * - `rule`: a sandbox rule id (src/rules/), recorded by an area at the point the rule fires;
 * - `webhook`: `<event type> <DELIVERED|RETRYING|FAILED>`, one per delivery attempt's outcome.
 *
 * Recording is a map increment in memory, nothing else on the request's path. A file database
 * gets the changed counts written in one transaction about a second later (and at close), so the
 * counts survive a restart; an in-memory database is never written to, as it would not outlive
 * the process anyway. A reset of a platform removes its counts (memory and rows); they stay in
 * this process's run totals (`exec --coverage` reports everything its command did, across resets).
 */

/** The kinds of fact recorded. */
export type CoverageKind = 'operation' | 'rule' | 'webhook';

/** Counts by key, for each kind. */
export interface CoverageCounts {
  operation: Map<string, number>;
  rule: Map<string, number>;
  webhook: Map<string, number>;
}

/** The table a file database keeps the counts in: what a platform's client did, not the platform's state (a snapshot leaves it out). */
export const COVERAGE_TABLE = 'coverage_counts';

export const coverageMigrations: Migration[] = [
  {
    id: 'coverage-001',
    sql: `CREATE TABLE coverage_counts (
      platform_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      key TEXT NOT NULL,
      count INTEGER NOT NULL,
      PRIMARY KEY (platform_id, kind, key)
    ) WITHOUT ROWID`,
  },
];

/** How long changed counts wait in memory before they are written (real time, not the sandbox clock). */
export const COVERAGE_FLUSH_MS = 1000;

const emptyCounts = (): CoverageCounts => ({ operation: new Map(), rule: new Map(), webhook: new Map() });

function add(into: CoverageCounts, from: CoverageCounts): void {
  for (const kind of ['operation', 'rule', 'webhook'] as const) {
    for (const [key, count] of from[kind]) into[kind].set(key, (into[kind].get(key) ?? 0) + count);
  }
}

/** The coverage counts of one sandbox: in memory, written to a file database in batches. */
export class CoverageRecorder {
  private readonly platforms = new Map<string, CoverageCounts>();
  /** Counts of platforms reset since the process started (for the run totals). */
  private readonly retired = emptyCounts();
  /** Platforms whose counts changed since the last write (file databases only). */
  private readonly dirty = new Set<string>();
  /** `<operationId> <status>` keys, made once each: a constant key's hash is kept, a new string's is not. */
  private readonly operationKeys = new Map<string, Map<number, string>>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly persist: boolean;
  private readonly upsert;
  private readonly removeStmt;
  private readonly writeBatch;

  constructor(private readonly db: Db) {
    this.persist = !db.memory;
    this.upsert = db.prepare(
      'INSERT INTO coverage_counts (platform_id, kind, key, count) VALUES (?, ?, ?, ?) ON CONFLICT (platform_id, kind, key) DO UPDATE SET count = excluded.count',
    );
    this.removeStmt = db.prepare('DELETE FROM coverage_counts WHERE platform_id = ?');
    this.writeBatch = db.transaction((batch: [string, string, string, number][]) => {
      for (const row of batch) this.upsert.run(...row);
    });
    if (this.persist) {
      const rows = db.prepare('SELECT platform_id, kind, key, count FROM coverage_counts').all() as { platform_id: string; kind: CoverageKind; key: string; count: number }[];
      for (const row of rows) this.countsOf(row.platform_id)[row.kind]?.set(row.key, row.count);
    }
  }

  /** Whether facts are counted (`SERVICE_SANDBOX_COVERAGE=off` turns recording off, e.g. to measure its cost). */
  enabled = true;

  /** Counts one fact of a platform. */
  record(platformId: string, kind: CoverageKind, key: string): void {
    if (!this.enabled) return;
    let counts = this.platforms.get(platformId);
    if (counts === undefined) {
      counts = emptyCounts();
      this.platforms.set(platformId, counts);
    }
    const map = counts[kind];
    map.set(key, (map.get(key) ?? 0) + 1);
    if (this.persist) this.markDirty(platformId);
  }

  /** Counts one answer of a contract operation to a platform (the server calls it for every request). */
  recordOperation(platformId: string, operationId: string, status: number): void {
    if (!this.enabled) return;
    let keys = this.operationKeys.get(operationId);
    if (keys === undefined) {
      keys = new Map();
      this.operationKeys.set(operationId, keys);
    }
    let key = keys.get(status);
    if (key === undefined) {
      key = `${operationId} ${status}`;
      keys.set(status, key);
    }
    this.record(platformId, 'operation', key);
  }

  /** A platform's counts (live maps: read, do not change). */
  countsOf(platformId: string): CoverageCounts {
    let counts = this.platforms.get(platformId);
    if (counts === undefined) {
      counts = emptyCounts();
      this.platforms.set(platformId, counts);
    }
    return counts;
  }

  /** Everything recorded in this sandbox since the process started or loaded it: every platform, reset ones included. */
  runTotals(): CoverageCounts {
    const total = emptyCounts();
    add(total, this.retired);
    for (const counts of this.platforms.values()) add(total, counts);
    return total;
  }

  /** Forgets a platform's counts (its reset); they stay in the run totals. */
  resetPlatform(platformId: string): void {
    const counts = this.platforms.get(platformId);
    if (counts) add(this.retired, counts);
    this.platforms.delete(platformId);
    this.dirty.delete(platformId);
    if (this.persist && this.db.open) this.removeStmt.run(platformId);
  }

  /** Writes the changed counts now (file databases), in one transaction. */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.dirty.size === 0 || !this.db.open) return;
    // A changed platform's counts are written whole: a few hundred rows at most, once a second.
    const batch: [string, string, string, number][] = [];
    for (const platformId of this.dirty) {
      const counts = this.platforms.get(platformId);
      if (!counts) continue;
      for (const kind of ['operation', 'rule', 'webhook'] as const) {
        for (const [key, count] of counts[kind]) batch.push([platformId, kind, key, count]);
      }
    }
    this.dirty.clear();
    this.writeBatch(batch);
  }

  private markDirty(platformId: string): void {
    this.dirty.add(platformId);
    if (this.timer === undefined) {
      this.timer = setTimeout(() => this.flush(), COVERAGE_FLUSH_MS);
      this.timer.unref();
    }
  }
}

/** The coverage recorder of a sandbox context. */
export const coverageRecorder = perContext((ctx: { db: Db }) => new CoverageRecorder(ctx.db));

/** Records that a platform's request triggered a sandbox rule (call it where the rule fires). */
export function recordRule(ctx: { db: Db }, platformId: string, ruleId: string): void {
  coverageRecorder(ctx).record(platformId, 'rule', ruleId);
}
