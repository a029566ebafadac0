import { SandboxClock } from '../core/clock.js';
import { IdGenerator, type RandomSource } from '../core/ids.js';
import { Scheduler } from '../core/scheduler.js';
import { Outbox } from './outbox.js';
import { migrate, openDatabase, type Db, type Migration } from './db.js';
import { IdempotencyRepo } from './idempotency.js';
import { SqliteJobStore } from './jobs.js';
import { MetaRepo } from './meta.js';
import type { Logger } from '../core/logger.js';

/** Everything a service needs, injected once: storage, time, ids, jobs, events, logging. */
export interface SandboxContext {
  db: Db;
  clock: SandboxClock;
  ids: IdGenerator;
  scheduler: Scheduler;
  jobs: SqliteJobStore;
  outbox: Outbox;
  idempotency: IdempotencyRepo;
  meta: MetaRepo;
  logger: Logger;
  /** Runs `fn` in one SQLite transaction. */
  tx<T>(fn: () => T): T;
  /** Closes the database. */
  close(): Promise<void>;
}

/** Options for building a context. */
export interface ContextOptions {
  /** A file path or `:memory:`. */
  db: string;
  logger: Logger;
  migrations: readonly Migration[];
  /** Source of real time; the sandbox clock adds its offset to it. */
  realNow?: () => number;
  random?: RandomSource;
}

const CLOCK_OFFSET_KEY = 'clock.offsetMs';
const CLOCK_PEAK_KEY = 'clock.peakMs';

/** Opens the database, applies migrations and wires the clock, ids, scheduler and outbox. */
export function createContext(options: ContextOptions): SandboxContext {
  const db = openDatabase(options.db);
  migrate(db, options.migrations);
  const meta = new MetaRepo(db);
  const clock = new SandboxClock(
    options.realNow ?? Date.now,
    { offsetMs: Number(meta.get(CLOCK_OFFSET_KEY) ?? 0), peakMs: Number(meta.get(CLOCK_PEAK_KEY) ?? 0) },
    (state) => {
      meta.set(CLOCK_OFFSET_KEY, String(state.offsetMs));
      if (state.peakMs > 0) meta.set(CLOCK_PEAK_KEY, String(state.peakMs));
    },
  );
  // After a clock reset, new ids still sort after those made on the clock before it, across restarts too.
  const ids = new IdGenerator(clock, options.random, clock.peak);
  const jobs = new SqliteJobStore(db);
  const scheduler = new Scheduler(clock, jobs, () => ids.next('Job'), (job, error) =>
    options.logger.error('job failed', { jobId: job.id, kind: job.kind, error: String(error) }),
  );
  // One transaction function for every call: better-sqlite3 builds a wrapper per db.transaction().
  const runInTransaction = db.transaction((fn: () => unknown) => fn());
  return {
    db,
    clock,
    ids,
    scheduler,
    jobs,
    outbox: new Outbox(db, clock, ids),
    idempotency: new IdempotencyRepo(db),
    meta,
    logger: options.logger,
    tx: <T>(fn: () => T): T => runInTransaction(fn) as T,
    close: async () => {
      db.close();
    },
  };
}
