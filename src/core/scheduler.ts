import type { SandboxClock } from './clock.js';

/** A job as the scheduler sees it. */
export interface Job {
  id: string;
  platformId: string;
  kind: string;
  dueAt: number;
  payload: unknown;
}

/** Where jobs are kept; the store implements it so jobs survive a restart. */
export interface JobStore {
  insert(job: Job): void;
  /** The earliest `limit` jobs due at or before `atMs`, in due order (then id). */
  nextDue(atMs: number, limit: number): Job[];
  /** The earliest due time of any job, if any. */
  earliestDueAt(): number | undefined;
  remove(id: string): void;
  /**
   * Counts every insert and removal made through the store, by anyone (rolled back or not): a
   * batch of due jobs read before a job ran is still the next ones in order only if the count
   * moved by that job's own removal alone.
   */
  readonly changes: number;
  /** Runs `fn` in one database transaction. */
  transaction<T>(fn: () => T): T;
}

/** What a job handler gets. */
export type JobHandler = (job: Job) => void;

/** Reports a job that threw, so the scheduler can go on with the others. */
export type JobErrorReporter = (job: Job, error: unknown) => void;

/** How many due jobs the scheduler reads from the store at once. */
const DUE_BATCH = 32;

/**
 * Runs delayed sandbox outcomes ("about 30 s", "about 6 minutes") when the sandbox clock
 * passes their due time. Each job runs in its own transaction together with its removal, so
 * a job either happens once or not at all. Follows real time with a timer, and runs every
 * job that falls due when the clock is advanced.
 */
export class Scheduler {
  private readonly handlers = new Map<string, JobHandler>();
  private timer: NodeJS.Timeout | undefined;
  /** The due time the timer was set for (the earliest pending job's then). */
  private armedFor: number | undefined;
  private running = false;
  private stopped = false;

  constructor(
    private readonly clock: SandboxClock,
    private readonly store: JobStore,
    private readonly newId: () => string,
    private readonly onError: JobErrorReporter = () => {},
  ) {}

  /** Registers the handler of a job kind; areas call this once at startup. */
  register(kind: string, handler: JobHandler): void {
    if (this.handlers.has(kind)) throw new Error(`job kind ${kind} registered twice`);
    this.handlers.set(kind, handler);
  }

  /**
   * Schedules a job `delayMs` from now on the sandbox clock. Call it inside the transaction of
   * the state change it belongs to.
   */
  schedule(platformId: string, kind: string, delayMs: number, payload: unknown): Job {
    if (!this.handlers.has(kind)) throw new Error(`no handler for job kind ${kind}`);
    const job: Job = { id: this.newId(), platformId, kind, dueAt: this.clock.now() + delayMs, payload };
    this.store.insert(job);
    // A timer already set for a job due no later still finds this one (the earliest pending job
    // is unchanged): no reading of the earliest due time, no new timer, per schedule (issue 26).
    if (this.timer === undefined || this.armedFor === undefined || job.dueAt < this.armedFor) this.arm();
    return job;
  }

  /** Runs every job due now, then waits for the next one on real time. */
  start(): void {
    this.stopped = false;
    this.runDue(this.clock.now());
  }

  /**
   * Runs every job due now. A still clock (`--clock-start`) calls it before each request, so a
   * job due at once has run before the next request is served, whatever the timer's turn.
   */
  runDueNow(): void {
    this.runDue(this.clock.now());
  }

  /** Stops the timer; pending jobs stay in the store. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = undefined;
  }

  /**
   * Moves the clock forward by `seconds`, running each job that falls due on the way with the
   * clock set to that job's due time, in due order.
   */
  advance(seconds: number): number {
    const target = this.clock.now() + Math.round(seconds * 1000);
    this.runDue(target);
    this.clock.moveTo(target);
    this.arm();
    return this.clock.now();
  }

  /**
   * Puts the clock back to real time (`SandboxClock.reset`). Pending jobs keep their due times,
   * as the records they change keep theirs (a quote's `expiresAt` and its expiry job agree): each
   * runs when the sandbox clock reaches it again, by real time or by `advance`. Returns the
   * sandbox time the clock left.
   */
  resetClock(): number {
    const left = this.clock.reset();
    this.arm();
    return left;
  }

  private runDue(untilMs: number): void {
    if (this.running) return;
    this.running = true;
    try {
      // Due jobs are read a batch at a time. A job that inserted or removed another (the count of
      // the store's changes moved by more than its own removal) may have changed what comes
      // next: the rest of its batch is read again.
      for (;;) {
        const batch = this.store.nextDue(untilMs, DUE_BATCH);
        let whole = true;
        for (const job of batch) {
          const before = this.store.changes;
          this.clock.moveTo(job.dueAt);
          this.runOne(job);
          if (this.store.changes !== before + 1) {
            whole = false;
            break;
          }
        }
        if (whole && batch.length < DUE_BATCH) break;
      }
    } finally {
      this.running = false;
    }
    this.arm();
  }

  private runOne(job: Job): void {
    const handler = this.handlers.get(job.kind);
    try {
      this.store.transaction(() => {
        this.store.remove(job.id);
        if (handler) handler(job);
      });
    } catch (error) {
      // The job's own writes rolled back; drop it so one bad job cannot wedge the queue.
      this.store.transaction(() => this.store.remove(job.id));
      this.onError(job, error);
    }
  }

  /** Sets the real-time timer for the earliest pending job. */
  private arm(): void {
    if (this.stopped || this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = undefined;
    const due = this.store.earliestDueAt();
    if (due === undefined) return;
    // A still clock reaches a later job only by `advance`: no timer would find it due.
    if (this.clock.still && due > this.clock.now()) return;
    const wait = Math.max(0, Math.min(due - this.clock.now(), 2 ** 31 - 1));
    this.armedFor = due;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.armedFor = undefined;
      this.runDue(this.clock.now());
    }, wait);
    this.timer.unref();
  }
}

