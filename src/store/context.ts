import { SandboxClock } from '../core/clock.js';
import { IdGenerator, type RandomSource } from '../core/ids.js';
import { seededRandom, sourceOf, systemRandom, type Random } from '../core/random.js';
import { Scheduler } from '../core/scheduler.js';
import { Outbox } from './outbox.js';
import { migrate, openDatabase, StoreOpenError, type Db, type Migration } from './db.js';
import { IdempotencyRepo } from './idempotency.js';
import { SqliteJobStore } from './jobs.js';
import { MetaRepo } from './meta.js';
import type { Logger } from '../core/logger.js';

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
  /** Source of the resource ids' random bits (tests); `seed` otherwise decides. */
  random?: RandomSource;
  /** Makes every random value a function of this seed and the order of requests. */
  seed?: string;
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
  const jobs = new SqliteJobStore(db);
  const scheduler = new Scheduler(clock, jobs, () => jobIds.next('Job'), (job, error) =>
    options.logger.error('job failed', { jobId: job.id, kind: job.kind, error: String(error) }),
  );
  // One transaction function for every call: better-sqlite3 builds a wrapper per db.transaction().
  const runInTransaction = db.transaction((fn: () => unknown) => fn());
  return {
    db,
    clock,
    ids,
    requestIds,
    random: random.stream('values'),
    scheduler,
    jobs,
    outbox: new Outbox(db, clock, ids),
    idempotency: new IdempotencyRepo(db),
    meta,
    logger: options.logger,
    tx: <T>(fn: () => T): T => runInTransaction(fn) as T,
    close: async () => {
      if (clock.still && db.open) meta.set(IDS_LATEST_KEY, String(Math.max(ids.latestMs, requestIds.latestMs, jobIds.latestMs)));
      db.close();
    },
  };
}
