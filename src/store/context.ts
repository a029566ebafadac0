import { SandboxClock } from '../core/clock.js';
import { IdGenerator, type RandomSource } from '../core/ids.js';
import { seededRandom, sourceOf, systemRandom, type Random } from '../core/random.js';
import { Scheduler } from '../core/scheduler.js';
import { Outbox } from './outbox.js';
import { migrate, openDatabase, StoreOpenError, type Db, type Migration } from './db.js';
import { IdempotencyRepo } from './idempotency.js';
import { DeferredCounts } from './deferred-counts.js';
import { SqliteJobStore } from './jobs.js';
import { MetaRepo } from './meta.js';
import type { Logger } from '../core/logger.js';
import { setImmediate } from 'node:timers';

/** Everything a service needs, injected once: storage, time, ids, jobs, events, logging. */
export interface SandboxContext {
  db: Db;
  clock: SandboxClock;
  /** Ids of the resources the API makes (customers, accounts, events, ...). */
  ids: IdGenerator;
  /**
   * Request ids (`X-Request-Id`), from a stream of their own: how many requests come in (reads,
   * streams, the tools' polling) does not shift the resources' ids of a seeded sandbox.
   */
  requestIds: IdGenerator;
  /** Every other random value (secrets, tokens, keys, salts): see src/core/random.ts. */
  random: Random;
  scheduler: Scheduler;
  jobs: SqliteJobStore;
  outbox: Outbox;
  idempotency: IdempotencyRepo;
  meta: MetaRepo;
  logger: Logger;
  /** Changes of maintained counts held until the transaction commits (see `DeferredCounts`). */
  counts: DeferredCounts;
  /**
   * Runs `fn` in one SQLite transaction: all of it or none of it. With group commit (file
   * databases) it is a savepoint of a transaction shared by the writes of one turn of the event
   * loop, committed at the end of that turn; `committed()` tells when.
   */
  tx<T>(fn: () => T, options?: TxOptions): T;
  /**
   * Undefined when nothing written is waiting for its commit; else a promise settled when it is
   * committed (rejected if the commit failed). An answer, or anything else that shows a write
   * to the outside (a webhook), waits for it: what was shown is on disk.
   */
  committed(): Promise<void> | undefined;
  /** Runs `fn` once what is written so far is committed (at once, in a microtask, when nothing waits). */
  afterCommit(fn: () => void): void;
  /** Commits the writes waiting for the end of the turn now (before a transaction of one's own). */
  commitNow(): void;
  /** Closes the database. */
  close(): Promise<void>;
}

/** How a transaction may join an open commit group (see `SandboxContext.tx`). */
export interface TxOptions {
  /**
   * `fn` makes all its checks before its first write: it throws only before writing, but for a
   * fault of the sandbox. Joining a group, it then runs without a savepoint: SQLite copies every
   * page a savepoint changes into its journal first (a customer create: about twenty pages, 7 %
   * of its CPU over HTTP, issue 26). Should it throw after writing anyway, nothing it wrote can be
   * undone alone, so its whole group is rolled back and every request in the group fails:
   * nothing is left half-written.
   */
  checksFirst?: boolean;
}

/** Options for building a context. */
export interface ContextOptions {
  /** A file path or `:memory:`. */
  db: string;
  logger: Logger;
  migrations: readonly Migration[];
  /** Source of real time; the sandbox clock adds its offset to it. */
  realNow?: () => number;
  /** Source of the resource ids' random bits (tests); `seed` otherwise decides. */
  random?: RandomSource;
  /** Makes every random value a function of this seed and the order of requests. */
  seed?: string;
  /** Group commit (see `SandboxContext.tx`); on by default for a file database, off in memory. */
  groupCommit?: boolean;
  /** Starts a clock that stands still at this instant (ms since the epoch) and moves only when told to. */
  clockStart?: number;
}

const CLOCK_OFFSET_KEY = 'clock.offsetMs';
const CLOCK_PEAK_KEY = 'clock.peakMs';
/** The instant a still clock (`--clock-start`) started at: the database keeps its kind of clock. */
const CLOCK_START_KEY = 'clock.startMs';
/** The latest instant an id was stamped with when the sandbox last stopped (a still clock's ids run ahead of it). */
const IDS_LATEST_KEY = 'ids.latestMs';
/** How many times a seeded sandbox started on this database: each start draws from streams of its own. */
const SEEDED_STARTS_KEY = 'random.seededStarts';

/** The clock's start instant for a database, or why `clockStart` cannot apply to it. */
function clockStartOf(meta: MetaRepo, fresh: boolean, location: string, clockStart: number | undefined): number | undefined {
  const stored = meta.get(CLOCK_START_KEY);
  const storedMs = stored === undefined ? undefined : Number(stored);
  if (clockStart === undefined) return storedMs;
  if (storedMs === clockStart) return storedMs;
  if (!fresh) {
    const at = new Date(clockStart).toISOString();
    throw new StoreOpenError(
      storedMs === undefined
        ? `--clock-start ${at} needs a fresh database: ${location} already holds a sandbox on real time; use --memory or a new --db file`
        : `--clock-start ${at} does not match ${location}, whose clock started at ${new Date(storedMs).toISOString()}; start it with that instant (or none), or use a new --db file`,
    );
  }
  meta.set(CLOCK_START_KEY, String(clockStart));
  return clockStart;
}

/** Opens the database, applies migrations and wires the clock, ids, randomness, scheduler and outbox. */
export function createContext(options: ContextOptions): SandboxContext {
  const db = openDatabase(options.db);
  let meta: MetaRepo;
  let startMs: number | undefined;
  let random: Random;
  try {
    const fresh = migrate(db, options.migrations).length === options.migrations.length;
    meta = new MetaRepo(db);
    startMs = clockStartOf(meta, fresh, options.db, options.clockStart);
    if (options.seed !== undefined) {
      const starts = Number(meta.get(SEEDED_STARTS_KEY) ?? 0);
      meta.set(SEEDED_STARTS_KEY, String(starts + 1));
      random = seededRandom(options.seed, starts);
    } else {
      random = systemRandom();
    }
  } catch (error) {
    db.close();
    throw error;
  }
  const clock = new SandboxClock(
    options.realNow ?? Date.now,
    { offsetMs: Number(meta.get(CLOCK_OFFSET_KEY) ?? 0), peakMs: Number(meta.get(CLOCK_PEAK_KEY) ?? 0) },
    (state) => {
      meta.set(CLOCK_OFFSET_KEY, String(state.offsetMs));
      if (state.peakMs > 0) meta.set(CLOCK_PEAK_KEY, String(state.peakMs));
    },
    startMs,
  );
  // After a clock reset, new ids still sort after those made on the clock before it, across
  // restarts too; so do ids a still clock stamped ahead of itself (more than 4096 in one millisecond).
  const floor = Math.max(clock.peak, Number(meta.get(IDS_LATEST_KEY) ?? 0));
  const ids = new IdGenerator(clock, options.random ?? sourceOf(random.stream('ids')), floor);
  const requestIds = new IdGenerator(clock, sourceOf(random.stream('request-ids')), floor);
  // Jobs draw their ids from a stream of their own too: a webhook retry is scheduled when the
  // receiver answers, which no order of requests decides.
  const jobIds = new IdGenerator(clock, sourceOf(random.stream('job-ids')), floor);
  const counts = new DeferredCounts(db);
  // One transaction function for every call: better-sqlite3 builds a wrapper per db.transaction().
  // Inside an open transaction it is a savepoint: a failed `fn` undoes its own writes only.
  const runInTransaction = db.transaction((fn: () => unknown) => fn());
  const group = new GroupCommit(db, options.groupCommit ?? !db.memory, counts);
  const totalChanges = db.prepare('SELECT total_changes()').pluck();
  /** `fn` inside the context's transaction calls, its count deltas held (`DeferredCounts`). */
  const counted = <T>(fn: () => T): T => {
    counts.depth += 1;
    try {
      return fn();
    } finally {
      counts.depth -= 1;
    }
  };
  const tx = <T>(fn: () => T, txOptions?: TxOptions): T => {
    // The first transaction of a turn is the group's own (a savepoint around it would make
    // every savepoint nested in it cost more as the database grows); a failure rolls back the
    // group, which holds nothing else yet. Later ones of the turn are savepoints in it.
    if (group.open()) {
      try {
        return counted(fn);
      } catch (error) {
        group.rollback();
        throw error;
      }
    }
    // Joining the open group with its checks first, on its own or nested in another transaction
    // call: no savepoint. A failure that wrote nothing leaves the group (and the caller's
    // savepoint, if any) as it was; one that wrote dooms the group (rolled back at its commit,
    // every request in it failing), whatever a caller that catches the error does next.
    if (txOptions?.checksFirst && group.holding) {
      const mark = counts.mark();
      const before = totalChanges.get();
      try {
        return counted(fn);
      } catch (error) {
        counts.rollbackTo(mark);
        if (totalChanges.get() !== before) {
          options.logger.error('a transaction that makes its checks first failed after writing: its commit group is rolled back', {
            error: error instanceof Error ? (error.stack ?? error.message) : String(error),
          });
          group.doom(error);
        }
        throw error;
      }
    }
    // A transaction of its own writes its held count deltas before it commits; a savepoint
    // that fails drops those it added.
    const own = !db.inTransaction;
    const mark = counts.mark();
    if (own) counts.managed = true;
    try {
      return runInTransaction(() => {
        const result = counted(fn);
        if (own) counts.flush();
        return result;
      }) as T;
    } catch (error) {
      if (own) counts.clear();
      else counts.rollbackTo(mark);
      throw error;
    } finally {
      if (own) counts.managed = false;
    }
  };
  // Jobs run in the context's transactions, so the jobs due at one time share a commit group.
  const jobs = new SqliteJobStore(db, (fn) => tx(fn));
  const scheduler = new Scheduler(clock, jobs, () => jobIds.next('Job'), (job, error) =>
    options.logger.error('job failed', { jobId: job.id, kind: job.kind, error: String(error) }),
  );
  return {
    db,
    clock,
    ids,
    requestIds,
    random: random.stream('values'),
    scheduler,
    jobs,
    outbox: new Outbox(db, clock, ids, counts, (fn) => group.afterCommit(fn)),
    idempotency: new IdempotencyRepo(db),
    meta,
    logger: options.logger,
    counts,
    tx,
    committed: () => group.committed(),
    afterCommit: (fn) => group.afterCommit(fn),
    commitNow: () => group.commit(),
    close: async () => {
      group.commit();
      if (clock.still && db.open) meta.set(IDS_LATEST_KEY, String(Math.max(ids.latestMs, requestIds.latestMs, jobIds.latestMs)));
      db.close();
    },
  };
}

/** The most turns a group's commit waits for more transactions to join it. */
const MAX_DEFERRED_TURNS = 4;

/**
 * Group commit: the transactions of one turn of the event loop share one SQLite transaction,
 * opened by the first and committed at the end of the turn (`setImmediate`), or a few turns
 * later while more transactions keep joining it (`due`), each one after the first a savepoint
 * inside it. A commit costs a write of every page changed, so ten requests' writes in
 * one commit cost about one request's. Nothing is shown before its commit: answers wait for
 * `committed()`, outbox listeners (webhook delivery) run after it. A kill -9 loses only writes
 * no one has been told of. The commit of a WAL database with `synchronous = OFF` survives a
 * crash of the process, not of the machine (docs/benchmark.md, "Writes").
 */
class GroupCommit {
  private pending = false;
  /** Transactions that joined the open group since its commit was last put off. */
  private joined = 0;
  /** Turns the commit of the open group has been put off. */
  private deferred = 0;
  private waiters: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  private callbacks: (() => void)[] = [];
  private promise: Promise<void> | undefined;
  /** Why the open group can only be rolled back (a `checksFirst` transaction failed after writing in it). */
  private doomed: Error | undefined;

  constructor(
    private readonly db: Db,
    private readonly enabled: boolean,
    private readonly counts: DeferredCounts,
  ) {}

  /** True while a group is open: a transaction now joins it. */
  get holding(): boolean {
    return this.pending;
  }

  /**
   * Marks the open group as one to roll back at its commit: a transaction in it failed after
   * writing, without a savepoint to undo its writes alone. Every waiter is then rejected, and
   * transactions joining it until then are rolled back with it.
   */
  doom(cause: unknown): void {
    if (!this.pending || this.doomed) return;
    const reason = cause instanceof Error ? cause.message : String(cause);
    this.doomed = new Error(`the commit group was rolled back: a transaction in it failed after writing (${reason})`);
  }

  /** Opens the shared transaction unless one is open (ours, or one of a caller's own); true when it did. */
  open(): boolean {
    if (this.pending) {
      this.joined += 1;
      return false;
    }
    if (!this.enabled || this.db.inTransaction) return false;
    this.db.exec('BEGIN');
    this.pending = true;
    this.doomed = undefined;
    this.counts.managed = true;
    this.promise = undefined;
    this.joined = 0;
    this.deferred = 0;
    setImmediate(this.due);
    return true;
  }

  /**
   * The end of a turn with the group open: commits, unless other transactions joined the group
   * since the last look, in which case more are likely on their way (under load, clients whose
   * answers went out with the last commit send their next requests meanwhile), and the commit
   * waits one more turn, at most MAX_DEFERRED_TURNS. At 10 connections a commit then carries
   * about nine requests' writes instead of five, and each request writes fewer log pages
   * (issue 26). A lone request commits at the end of its own turn, as before; one whose
   * transaction ran others nested in it (each a `tx` call while the group is open) one turn
   * later: nested calls count as joining. Counting only transactions of their own shrank the
   * groups of nested-heavy requests under load (card authorisations: about 10.5 requests a
   * commit became 8.5) and cost more CPU than the turn saves. A long job's batches commit
   * before they start instead (`commitNow`), never joining as a savepoint (see seed.ts).
   */
  private readonly due = (): void => {
    if (!this.pending) return;
    if (this.joined > 0 && this.deferred < MAX_DEFERRED_TURNS) {
      this.joined = 0;
      this.deferred += 1;
      setImmediate(this.due);
      return;
    }
    this.commit();
  };

  /** Undoes the group just opened (its first transaction failed): nothing to commit, nothing to announce. */
  rollback(): void {
    if (!this.pending) return;
    this.pending = false;
    this.counts.clear();
    this.counts.managed = false;
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
    const waiters = this.waiters;
    this.waiters = [];
    this.callbacks = [];
    for (const waiter of waiters) waiter.resolve();
  }

  committed(): Promise<void> | undefined {
    if (!this.pending) return undefined;
    this.promise ??= new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    return this.promise;
  }

  afterCommit(fn: () => void): void {
    if (this.pending) this.callbacks.push(fn);
    else queueMicrotask(fn);
  }

  commit(): void {
    if (!this.pending) return;
    this.pending = false;
    const waiters = this.waiters;
    const callbacks = this.callbacks;
    this.waiters = [];
    this.callbacks = [];
    let failure: unknown;
    try {
      // A statement error that ended the transaction already (SQLite rolls back on some) leaves nothing to commit.
      if (!this.db.inTransaction) throw new Error('the group transaction was rolled back by SQLite before its commit');
      if (this.doomed) throw this.doomed;
      this.counts.flush();
      this.db.exec('COMMIT');
    } catch (error) {
      failure = error;
      this.counts.clear();
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
    }
    this.counts.managed = false;
    for (const waiter of waiters) {
      if (failure === undefined) waiter.resolve();
      else waiter.reject(failure);
    }
    if (failure === undefined) for (const fn of callbacks) fn();
  }
}
