import type { Job, JobStore } from '../core/scheduler.js';
import { statementPerLimit, type Db, type Migration } from './db.js';

/** Pending scheduler jobs; they survive a restart because they live here. */
export const jobMigrations: Migration[] = [
  {
    id: 'jobs-001',
    sql: `CREATE TABLE jobs (
      id TEXT PRIMARY KEY,
      platform_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      due_at INTEGER NOT NULL,
      payload TEXT NOT NULL
    );
    CREATE INDEX jobs_due ON jobs (due_at, id);
    CREATE INDEX jobs_platform ON jobs (platform_id);`,
  },
];

interface JobRow {
  id: string;
  platform_id: string;
  kind: string;
  due_at: number;
  payload: string;
}

const toJob = (row: JobRow): Job => ({
  id: row.id,
  platformId: row.platform_id,
  kind: row.kind,
  dueAt: row.due_at,
  payload: JSON.parse(row.payload) as unknown,
});

/** The SQLite implementation of the scheduler's JobStore. */
export class SqliteJobStore implements JobStore {
  private readonly insertStmt;
  /** The due jobs, up to a batch size written into the SQL (`statementPerLimit`). */
  private readonly nextStmt;
  private readonly earliestStmt;
  private readonly removeStmt;
  private readonly removePlatformStmt;
  private readonly countStmt;
  private readonly listFirstStmt;
  private readonly listAfterStmt;
  private readonly countPlatformStmt;


  constructor(
    db: Db,
    /**
     * The context's transaction call (`SandboxContext.tx`): a job joins the open commit group,
     * or opens one, instead of committing on its own.
     */
    private readonly transact: <T>(fn: () => T) => T,
  ) {
    this.insertStmt = db.prepare(
      'INSERT INTO jobs (id, platform_id, kind, due_at, payload) VALUES (?, ?, ?, ?, ?)',
    );
    this.nextStmt = statementPerLimit(db, (limit) => `SELECT * FROM jobs WHERE due_at <= ? ORDER BY due_at, id LIMIT ${limit}`);
    this.earliestStmt = db.prepare('SELECT MIN(due_at) AS due FROM jobs');
    this.removeStmt = db.prepare('DELETE FROM jobs WHERE id = ?');
    this.removePlatformStmt = db.prepare('DELETE FROM jobs WHERE platform_id = ?');
    this.countStmt = db.prepare('SELECT COUNT(*) AS n FROM jobs');
    this.listFirstStmt = db.prepare('SELECT * FROM jobs WHERE platform_id = ? ORDER BY due_at, id LIMIT ?');
    this.listAfterStmt = db.prepare('SELECT * FROM jobs WHERE platform_id = ? AND (due_at > ? OR (due_at = ? AND id > ?)) ORDER BY due_at, id LIMIT ?');
    this.countPlatformStmt = db.prepare('SELECT COUNT(*) AS n FROM jobs WHERE platform_id = ?');
  }

  /** Inserts and removals so far (`JobStore.changes`). */
  changes = 0;

  insert(job: Job): void {
    this.changes += 1;
    this.insertStmt.run(job.id, job.platformId, job.kind, job.dueAt, JSON.stringify(job.payload ?? null));
  }

  nextDue(atMs: number, limit: number): Job[] {
    return (this.nextStmt(limit).all(atMs) as JobRow[]).map(toJob);
  }

  earliestDueAt(): number | undefined {
    return (this.earliestStmt.get() as { due: number | null }).due ?? undefined;
  }

  remove(id: string): void {
    this.changes += 1;
    this.removeStmt.run(id);
  }

  /** How many jobs are pending. */
  count(): number {
    return (this.countStmt.get() as { n: number }).n;
  }

  /** A platform's pending jobs by due time, after the job `(afterDueAt, afterId)` (the control plane's job list). */
  listPlatform(platformId: string, after: { dueAt: number; id: string } | undefined, limit: number): Job[] {
    const rows = (
      after
        ? this.listAfterStmt.all(platformId, after.dueAt, after.dueAt, after.id, limit)
        : this.listFirstStmt.all(platformId, limit)
    ) as JobRow[];
    return rows.map(toJob);
  }

  /** How many jobs of a platform are pending. */
  countPlatform(platformId: string): number {
    return (this.countPlatformStmt.get(platformId) as { n: number }).n;
  }

  /** Drops a platform's pending jobs (sandbox reset). */
  removePlatform(platformId: string): void {
    this.changes += 1;
    this.removePlatformStmt.run(platformId);
  }

  /**
   * Runs `fn` in the context's transaction: the jobs due at one time share one commit (each job
   * committed on its own cost a settling payment about a quarter of its CPU, issue 26); one that
   * fails is a savepoint undone alone (or the group's own, rolled back with nothing else in it).
   */
  transaction<T>(fn: () => T): T {
    return this.transact(fn);
  }
}
