import type { Statement } from 'better-sqlite3';
import { countKeys, recountPlatformSql, type WriterCount } from '../core/list-query.js';
import type { Db } from './db.js';

type Key = readonly (string | number)[];

/**
 * Changes of maintained counts written once a transaction instead of once a row (issue 26): a
 * create of a customer adds one to eleven buckets of the internal accounts' counts, and a group
 * commit of nine creates wrote the same eleven rows nine times each. A delta is held here while a
 * transaction of the context (`SandboxContext.tx`) is open, and all of a bucket's deltas are
 * written as one upsert just before the transaction commits (the group's commit, or the end of a
 * transaction of its own); a savepoint that fails takes back the deltas it added, as SQLite drops
 * its rows; a group rolled back drops them all. Outside a transaction the context commits a
 * delta is written at once. Readers of a count add the deltas not yet written (`pending`).
 */
export class DeferredCounts {
  /** The held deltas summed by table and bucket. */
  private readonly buckets = new Map<WriterCount, Map<string, Bucket>>();
  /** Each delta added, in order: a failed savepoint takes back those after its mark. */
  private readonly log: { bucket: Bucket; delta: number }[] = [];
  private readonly upserts = new Map<WriterCount, Statement<unknown[]>>();
  /** How deep the context's transaction calls are nested: deltas wait only inside one. */
  depth = 0;
  /**
   * Whether the open transaction is one the context commits (the group's, or a `tx` of its own),
   * which writes the held deltas before its commit. Inside a transaction of a caller's own (a
   * fixture load) deltas are written at once, and roll back with it.
   */
  managed = false;

  constructor(private readonly db: Db) {}

  /** Adds `delta` to the bucket `key` of `table`: held until the transaction commits, or written now outside one. */
  add(table: WriterCount, key: Key, delta: number): void {
    if (!this.managed || this.depth === 0 || !this.db.inTransaction) {
      this.write(table, key, delta);
      return;
    }
    let buckets = this.buckets.get(table);
    if (!buckets) this.buckets.set(table, (buckets = new Map()));
    const id = key.join('\u0001');
    let bucket = buckets.get(id);
    if (!bucket) buckets.set(id, (bucket = { key, delta: 0 }));
    bucket.delta += delta;
    this.log.push({ bucket, delta });
  }

  /** Where the log stands (taken when a savepoint starts). */
  mark(): number {
    return this.log.length;
  }

  /** Takes back the deltas added since `mark` (their savepoint failed). */
  rollbackTo(mark: number): void {
    for (let i = this.log.length - 1; i >= mark; i -= 1) {
      const { bucket, delta } = this.log[i]!;
      bucket.delta -= delta;
    }
    if (this.log.length > mark) this.log.length = mark;
  }

  /** Drops every delta held (the transaction holding them was rolled back). */
  clear(): void {
    this.buckets.clear();
    this.log.length = 0;
  }

  /** Writes the deltas held, one upsert a bucket, in the open transaction. */
  flush(): void {
    if (this.log.length === 0) return;
    for (const [table, buckets] of this.buckets) for (const { key, delta } of buckets.values()) if (delta !== 0) this.write(table, key, delta);
    this.clear();
  }

  /** The deltas of `table` not written yet, by bucket (a reader adds them to what it reads). */
  pending(table: WriterCount): readonly Bucket[] {
    const buckets = this.buckets.get(table);
    return buckets ? [...buckets.values()].filter((bucket) => bucket.delta !== 0) : [];
  }

  /** The sum of the held deltas of `table` whose bucket `match` accepts (a reader of a count adds it to what it read). */
  held(table: WriterCount, match: (key: Key) => boolean): number {
    let sum = 0;
    const buckets = this.buckets.get(table);
    if (buckets) for (const { key, delta } of buckets.values()) if (delta !== 0 && match(key)) sum += delta;
    return sum;
  }

  /**
   * Counts a platform's rows again (after a snapshot import put them back, which no trigger
   * counts), less the deltas still held for it (rows made earlier in the transaction, which the
   * import replaced): the transaction's commit adds those.
   */
  recountPlatform(table: WriterCount, platform: string | number): void {
    const [remove, fill] = recountPlatformSql(table);
    this.db.prepare(remove).run(platform);
    this.db.prepare(fill).run(platform);
    for (const { key, delta } of this.pending(table)) if (key[0] === platform) this.write(table, key, -delta);
  }

  /** Adds `delta` to the bucket's row now, whatever is held (a writer that sets counts itself corrects by the held deltas). */
  write(table: WriterCount, key: Key, delta: number): void {
    let statement = this.upserts.get(table);
    if (!statement) {
      const keys = countKeys(table);
      const columns = keys.join(', ');
      statement = this.db.prepare<unknown[]>(
        `INSERT INTO ${table.table} (${columns}, n) VALUES (${keys.map(() => '?').join(', ')}, ?) ON CONFLICT (${columns}) DO UPDATE SET n = n + excluded.n`,
      );
      this.upserts.set(table, statement);
    }
    statement.run(...key, delta);
  }
}

/** One bucket's held delta. */
interface Bucket {
  readonly key: Key;
  delta: number;
}
