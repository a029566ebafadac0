import { ListQueries, PLATFORM_KEY, uuidv7Floor, Where } from '../core/list-query.js';
import { keyedRows, statementPerLimit, type Db } from '../store/db.js';
import type { DeferredCounts } from '../store/deferred-counts.js';
import { DELIVERY_STATES, EVENT_COUNTS, EVENT_STATE_INDEX, eventStateRanges, type EventRow } from '../store/outbox.js';

/**
 * Delivery state of an event (the `events.delivery_state` column):
 * PENDING (due now), SENDING (an attempt is in flight: the worker's, or for a platform without
 * an endpoint, a `webhooks listen --forward-to` session's), RETRYING (waiting for its retry job),
 * DELIVERED, FAILED (every attempt of the round failed), NO_ENDPOINT (the platform had no
 * webhook endpoint when the event came up; `replay` sends it once one is set).
 */
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** An event with its delivery state, as the delivery worker reads it. */
export interface DeliveryRow extends EventRow {
  delivery_state: DeliveryState;
  attempt_count: number;
  next_attempt_at: string | null;
  retry_job_id: string | null;
  delivered_at: string | null;
}

/** One logged attempt. */
export interface AttemptRow {
  seq: number;
  event_id: string;
  platform_id: string;
  attempt: number;
  attempted_at: string;
  url: string;
  outcome: 'SUCCEEDED' | 'FAILED';
  response_status: number | null;
  error: string | null;
  latency_ms: number;
  response_excerpt: string | null;
  /** The `webhooks listen --forward-to` session that made the attempt; null for the worker's own. */
  listen_session: string | null;
}

/** Filters of the deliveries list. */
export interface DeliveryFilter {
  platformId: string;
  type?: string | undefined;
  resourceId?: string | undefined;
  /** ISO timestamp: events created at or after it. */
  since?: string | undefined;
  state?: DeliveryState | undefined;
}

/** The only SQL of webhook delivery: the events' delivery columns and the attempts log. */
export class DeliveriesRepo {
  private readonly readyStmt;
  private readonly byIdStmt;
  private readonly markSendingStmt;
  private readonly setStateStmt;
  private readonly markDeliveredStmt;
  private readonly markRetryingStmt;
  private readonly dueAgainStmt;
  private readonly recoverStmt;
  private readonly insertAttemptStmt;
  private readonly attemptsOfStmt;
  private readonly removeAttemptsStmt;
  private readonly attemptCountStmt;

  private readonly lists;
  private readonly seqAtOrAfterStmt;

  constructor(
    db: Db,
    private readonly counts: DeferredCounts,
  ) {
    this.lists = new ListQueries(db);
    // Per-resource order: an event waits while an earlier event of the same resource is unfinished.
    // The limit is written into the SQL (`statementPerLimit`; at most the worker's room of 16).
    this.readyStmt = statementPerLimit(
      db,
      (limit) => `SELECT e.* FROM events e
       WHERE e.delivery_state = 'PENDING'
         AND (e.resource_id IS NULL OR NOT EXISTS (
           SELECT 1 FROM events p
           WHERE p.platform_id = e.platform_id AND p.resource_id = e.resource_id AND p.seq < e.seq
             AND p.delivery_state IN ('PENDING', 'SENDING', 'RETRYING')))
       ORDER BY e.seq LIMIT ${limit}`,
    );
    this.byIdStmt = keyedRows<DeliveryRow>(db.prepare('SELECT * FROM events WHERE id = ?'));
    this.seqAtOrAfterStmt = db.prepare('SELECT seq FROM events WHERE id >= ? ORDER BY id LIMIT 1').pluck();
    this.markSendingStmt = db.prepare(
      `UPDATE events SET delivery_state = 'SENDING', attempt_count = CASE WHEN @fresh THEN 1 ELSE attempt_count + 1 END,
         next_attempt_at = NULL, retry_job_id = NULL
       WHERE id = @id`,
    );
    this.setStateStmt = db.prepare('UPDATE events SET delivery_state = ?, next_attempt_at = NULL, retry_job_id = NULL WHERE id = ?');
    this.markDeliveredStmt = db.prepare(
      `UPDATE events SET delivery_state = 'DELIVERED', delivered_at = ?, next_attempt_at = NULL, retry_job_id = NULL WHERE id = ?`,
    );
    this.markRetryingStmt = db.prepare(
      `UPDATE events SET delivery_state = 'RETRYING', next_attempt_at = ?, retry_job_id = ? WHERE id = ?`,
    );
    this.dueAgainStmt = db.prepare(
      `UPDATE events SET delivery_state = 'PENDING', next_attempt_at = NULL, retry_job_id = NULL
       WHERE id = ? AND delivery_state = 'RETRYING' AND retry_job_id = ?`,
    );
    this.recoverStmt = db.prepare(
      // Through the index of unfinished events (a few), not a scan of every event.
      `UPDATE events INDEXED BY events_unfinished SET delivery_state = 'PENDING', attempt_count = MAX(attempt_count - 1, 0)
       WHERE delivery_state IN ('PENDING', 'SENDING', 'RETRYING') AND delivery_state = 'SENDING' AND (@id IS NULL OR id = @id)`,
    );
    this.insertAttemptStmt = db.prepare(
      `INSERT INTO webhook_attempts (event_id, platform_id, attempt, attempted_at, url, outcome, response_status, error, latency_ms, response_excerpt, listen_session)
       VALUES (@event_id, @platform_id, @attempt, @attempted_at, @url, @outcome, @response_status, @error, @latency_ms, @response_excerpt, @listen_session)`,
    );
    this.attemptsOfStmt = db.prepare('SELECT * FROM webhook_attempts WHERE event_id = ? ORDER BY seq');
    this.removeAttemptsStmt = db.prepare('DELETE FROM webhook_attempts WHERE platform_id = ?');
    this.attemptCountStmt = db.prepare('SELECT COUNT(*) AS n FROM webhook_attempts WHERE event_id = ?');
  }

  /** Up to `limit` events due for an attempt now, oldest first, never two of one resource out of order. */
  ready(limit: number): DeliveryRow[] {
    return this.readyStmt(limit).all() as DeliveryRow[];
  }

  byId(id: string): DeliveryRow | undefined {
    return this.byIdStmt.get(id);
  }

  /** Marks an attempt as started; `fresh` starts a new round (replay, test). */
  markSending(id: string, fresh: boolean): void {
    this.markSendingStmt.run({ id, fresh: fresh ? 1 : 0 });
  }

  setState(id: string, state: DeliveryState): void {
    this.setStateStmt.run(state, id);
  }

  markDelivered(id: string, at: string): void {
    this.markDeliveredStmt.run(at, id);
  }

  markRetrying(id: string, nextAttemptAt: string, jobId: string): void {
    this.markRetryingStmt.run(nextAttemptAt, jobId, id);
  }

  /** The retry job `jobId` fell due: the event is PENDING again (if it still waits for that job). */
  dueAgain(id: string, jobId: string): boolean {
    return this.dueAgainStmt.run(id, jobId).changes > 0;
  }

  /**
   * After a crash or a stop mid-attempt, SENDING events (or just `id`) are due again; the cut-short
   * attempt does not count.
   */
  recoverInterrupted(id?: string): number {
    return this.recoverStmt.run({ id: id ?? null }).changes;
  }

  insertAttempt(row: Omit<AttemptRow, 'seq'>): void {
    this.insertAttemptStmt.run(row);
  }

  /** How many attempts of an event are logged (over every round, replays included). */
  attemptCount(eventId: string): number {
    return (this.attemptCountStmt.get(eventId) as { n: number }).n;
  }

  attemptsOf(eventId: string): AttemptRow[] {
    return this.attemptsOfStmt.all(eventId) as AttemptRow[];
  }

  /** A page of a platform's events, newest first, strictly older than `beforeId`, through the filter's index. */
  list(filter: DeliveryFilter, beforeId: string | undefined, take: number): DeliveryRow[] {
    // Ids are made in append order, as seq is: the events before an id are those before the first seq at or after it.
    const afterKey = beforeId === undefined ? undefined : this.seqAtOrAfter(beforeId);
    const index = indexFor(filter);
    if (index === undefined) return this.lists.mergedPage<DeliveryRow>({ table: 'events', key: 'seq', index: EVENT_STATE_INDEX, arms: this.stateRanges(filter), order: 'desc', afterKey, take });
    return this.lists.page<DeliveryRow>({ table: 'events', key: 'seq', where: this.whereOf(filter), index, order: 'desc', afterKey, take });
  }

  /** A filter with no type, resource or state: the platform's delivery-state ranges, each with the filter's other conditions. */
  private stateRanges(filter: DeliveryFilter): Where[] {
    const since = this.sinceOf(filter);
    return eventStateRanges(filter.platformId, (where) => narrowed(where, since));
  }

  /** The seq of the first event whose id is at or after `id` (past the newest: one more than any). */
  private seqAtOrAfter(id: string): number {
    return (this.seqAtOrAfterStmt.get(id) as number | undefined) ?? Number.MAX_SAFE_INTEGER;
  }

  /** The WHERE of the filters given, and only those; `since` also as the seq range its id floor implies. */
  private whereOf(filter: DeliveryFilter): Where {
    const where = new Where()
      .eq(PLATFORM_KEY, filter.platformId.slice(-8))
      .eq('platform_id', filter.platformId)
      .eq('resource_id', filter.resourceId)
      .eq('type', filter.type)
      .eq('delivery_state', filter.state);
    return narrowed(where, this.sinceOf(filter));
  }

  /** `since` as a creation time and the seq its id floor implies (the first event that can be as new). */
  private sinceOf(filter: DeliveryFilter): Since | undefined {
    if (filter.since === undefined) return undefined;
    return { at: filter.since, fromSeq: this.seqAtOrAfter(`Webhook:${uuidv7Floor(Date.parse(filter.since) - ID_TIME_SLACK_MS)}`) };
  }

  /**
   * `totalCount`: the maintained count when the filters are only `type` and `status`; otherwise
   * the filtered set counted through its index up to COUNT_CAP.
   */
  count(filter: DeliveryFilter): number {
    if (filter.resourceId === undefined && filter.since === undefined) {
      // With the counts of the open transaction's appends not written yet.
      const held = this.counts.held(EVENT_COUNTS, ([platform, type, state]) => platform === filter.platformId && (filter.type === undefined || type === filter.type) && (filter.state === undefined || state === filter.state));
      return this.lists.maintained('event_counts', new Where().eq('platform_id', filter.platformId).eq('type', filter.type).eq('delivery_state', filter.state)) + held;
    }
    const index = indexFor(filter);
    if (index === undefined) return this.lists.mergedCountUpTo('events', EVENT_STATE_INDEX, this.stateRanges(filter));
    return this.lists.countUpTo('events', this.whereOf(filter), index);
  }

  /** Drops a platform's attempt log (sandbox reset; the outbox drops its events). */
  removePlatform(platformId: string): void {
    this.removeAttemptsStmt.run(platformId);
  }
}

/**
 * Slack between an event's id time (UUIDv7) and its `created_at`, both read from the sandbox
 * clock in one `append`: `since` becomes an id range widened by this much; `created_at` decides.
 */
const ID_TIME_SLACK_MS = 60 * 60 * 1000;

/** A `since` filter: the creation time, and the seq range it implies. */
interface Since {
  at: string;
  fromSeq: number;
}

/** `since` on a WHERE: the creation time decides; the seq range lets the index skip what is older. */
function narrowed(where: Where, since: Since | undefined): Where {
  return since === undefined ? where : where.cmp('created_at', '>=', since.at).cmp('seq', '>=', since.fromSeq);
}

/**
 * The index whose leading equality serves the filter (every one ends in seq, the row id and sort
 * key); undefined for none of them: the platform's delivery-state ranges of the state index, merged.
 */
function indexFor(filter: DeliveryFilter): string | undefined {
  if (filter.resourceId !== undefined) return 'events_list_resource';
  if (filter.type !== undefined) return 'events_list_type';
  if (filter.state !== undefined) return EVENT_STATE_INDEX;
  return undefined;
}


