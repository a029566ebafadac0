import type { Clock } from '../core/clock.js';
import type { IdGenerator } from '../core/ids.js';
import { ListQueries, maintainedCountDdl, PLATFORM_KEY, Where, writerCountedTriggers, type WriterCount } from '../core/list-query.js';
import type { Db, Migration } from './db.js';
import type { DeferredCounts } from './deferred-counts.js';

/**
 * Every delivery state of an event (the `events.delivery_state` column; webhook delivery says
 * what each means): the ranges of the state index that together hold a platform's events.
 */
export const DELIVERY_STATES = ['PENDING', 'SENDING', 'RETRYING', 'DELIVERED', 'FAILED', 'NO_ENDPOINT'] as const;

/** The index of a platform's events by delivery state (outbox-perf-003), each range in seq order. */
export const EVENT_STATE_INDEX = 'events_list_state';

/** The events' maintained count (platform id, type, delivery state), kept by the outbox (`DeferredCounts`). */
export const EVENT_COUNTS: WriterCount = { source: 'events', table: 'event_counts', columns: ['type', 'delivery_state'] };

/**
 * The event outbox: areas append an event in the same transaction as the state change that
 * caused it; delivery (webhooks) reads from here.
 */
export const outboxMigrations: Migration[] = [
  {
    id: 'outbox-001',
    sql: `CREATE TABLE events (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      platform_id TEXT NOT NULL,
      type TEXT NOT NULL,
      resource_id TEXT,
      data TEXT NOT NULL,
      created_at TEXT NOT NULL
    );
    CREATE INDEX events_platform ON events (platform_id, seq);
    CREATE INDEX events_resource ON events (platform_id, resource_id, seq);`,
  },
  {
    // Webhook delivery state of each event, and the log of every delivery attempt.
    id: 'outbox-002',
    sql: `ALTER TABLE events ADD COLUMN delivery_state TEXT NOT NULL DEFAULT 'PENDING';
    ALTER TABLE events ADD COLUMN attempt_count INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE events ADD COLUMN next_attempt_at TEXT;
    ALTER TABLE events ADD COLUMN retry_job_id TEXT;
    ALTER TABLE events ADD COLUMN delivered_at TEXT;
    CREATE INDEX events_delivery ON events (delivery_state, seq);
    CREATE TABLE webhook_attempts (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      event_id TEXT NOT NULL,
      platform_id TEXT NOT NULL,
      attempt INTEGER NOT NULL,
      attempted_at TEXT NOT NULL,
      url TEXT NOT NULL,
      outcome TEXT NOT NULL,
      response_status INTEGER,
      error TEXT,
      latency_ms REAL NOT NULL,
      response_excerpt TEXT
    );
    CREATE INDEX webhook_attempts_event ON webhook_attempts (event_id, seq);
    CREATE INDEX webhook_attempts_platform ON webhook_attempts (platform_id);`,
  },
  {
    // Lists (the deliveries list, newest first): one index per filter, each ending in the sort key; a maintained
    // count per platform, type and delivery state.
    id: 'outbox-lists-001',
    sql: `CREATE INDEX events_list_platform ON events (platform_id, id);
    CREATE INDEX events_list_resource ON events (platform_id, resource_id, id);
    CREATE INDEX events_list_type ON events (platform_id, type, id);
    CREATE INDEX events_list_state ON events (platform_id, delivery_state, id);
    ${maintainedCountDdl('events', 'event_counts', ['type', 'delivery_state'])}`,
  },
  {
    // An attempt made by a `webhooks listen --forward-to` session (its id) rather than by the worker.
    id: 'outbox-003',
    sql: `ALTER TABLE webhook_attempts ADD COLUMN listen_session TEXT;`,
  },
  {
    // Issue 26: two indexes another serves. Event ids are made in append order, as seq is, so
    // (platform_id, id) and (platform_id, resource_id, id) of the lists order as the seq ones did;
    // the change stream tails by seq through the primary key. Each event insert updates two fewer.
    id: 'outbox-perf-001',
    sql: `DROP INDEX events_platform;
    DROP INDEX events_resource;`,
  },
  {
    // Issue 26: delivery's indexes hold the events it still has to handle, not every event:
    // the PENDING ones in order (the queue), and the unfinished ones by resource (an event is
    // taken only when no earlier one of its resource is unfinished: a look at a few entries
    // instead of the resource's whole history; a restart finds the SENDING ones there). Events
    // of a platform without an endpoint, and delivered ones, are in neither.
    id: 'outbox-perf-002',
    sql: `DROP INDEX events_delivery;
    CREATE INDEX events_pending ON events (seq) WHERE delivery_state = 'PENDING';
    CREATE INDEX events_unfinished ON events (platform_id, resource_id, seq) WHERE delivery_state IN ('PENDING', 'SENDING', 'RETRYING');`,
  },
  {
    // Issue 26: the list indexes keyed by the platform id's last eight characters (the random tail
    // of its UUID; the whole id is checked on the row) and ordered by seq, the row id every index
    // entry ends in anyway, instead of the 45-character platform id and the 44-character event id
    // (ids are made in append order, as seq is: a cursor's id becomes the seq it stands for).
    id: 'outbox-perf-003',
    sql: `DROP INDEX events_list_platform;
    DROP INDEX events_list_resource;
    DROP INDEX events_list_type;
    DROP INDEX events_list_state;
    CREATE INDEX events_list_platform ON events (${PLATFORM_KEY});
    CREATE INDEX events_list_resource ON events (${PLATFORM_KEY}, resource_id);
    CREATE INDEX events_list_type ON events (${PLATFORM_KEY}, type);
    CREATE INDEX events_list_state ON events (${PLATFORM_KEY}, delivery_state);`,
  },
  {
    // Issue 26: the counts of events written by the outbox once a commit (`DeferredCounts`), a
    // transaction's appends summed by bucket, instead of an upsert by a trigger once an event.
    // Delivery-state changes and deletions are still counted by triggers, as upserts.
    id: 'outbox-perf-004',
    sql: writerCountedTriggers(EVENT_COUNTS),
  },
  {
    // Issue 26: a platform's events are the ranges of its delivery states in the state index;
    // the lists with no type, resource or state filter, and the newest event's seq, read those
    // ranges merged in seq order (ListQueries.mergedPageWith) instead of an index of their own.
    // Each event insert updates one index fewer.
    id: 'outbox-perf-005',
    sql: 'DROP INDEX events_list_platform;',
  },
];

/** One WHERE per delivery state: the platform's events, as the ranges of the state index (`EVENT_STATE_INDEX`) that hold them. */
export function eventStateRanges(platformId: string, extra: (where: Where) => Where = (where) => where): Where[] {
  return DELIVERY_STATES.map((state) => extra(new Where().eq(PLATFORM_KEY, platformId.slice(-8)).eq('delivery_state', state).eq('platform_id', platformId)));
}


/** An event as recorded. `data` is the full resource as its GET returns it. */
export interface OutboxEvent {
  seq: number;
  id: string;
  platformId: string;
  type: string;
  resourceId: string | null;
  data: unknown;
  createdAt: string;
}

/** An `events` row as stored (delivery columns aside). */
export interface EventRow {
  seq: number;
  id: string;
  platform_id: string;
  type: string;
  resource_id: string | null;
  data: string;
  created_at: string;
}

const toEvent = (row: EventRow): OutboxEvent => ({
  seq: row.seq,
  id: row.id,
  platformId: row.platform_id,
  type: row.type,
  resourceId: row.resource_id,
  data: JSON.parse(row.data) as unknown,
  createdAt: row.created_at,
});

/** Appends to and reads from the outbox. */
export class Outbox {
  private readonly insertStmt;
  private readonly latestStmt;
  private readonly removePlatformStmt;
  private readonly lists;
  private readonly listeners = new Set<(event: OutboxEvent) => void>();
  /** The delivery state a new event starts in; delivery sets it (`NO_ENDPOINT` when the platform has none). */
  private initialDeliveryState: (platformId: string) => string = () => 'PENDING';

  constructor(
    db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    /** Where appends count themselves (`event_counts`). */
    private readonly counts: DeferredCounts,
    /** Runs a listener once the event is committed (the context's `afterCommit`). */
    private readonly notify: (fn: () => void) => void = (fn) => queueMicrotask(fn),
  ) {
    this.insertStmt = db.prepare(
      'INSERT INTO events (id, platform_id, type, resource_id, data, created_at, delivery_state) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.latestStmt = db.prepare(
      `SELECT * FROM events INDEXED BY events_list_resource WHERE ${PLATFORM_KEY} = substr(@platform, -8) AND platform_id = @platform AND resource_id = @resource AND type = @type ORDER BY seq DESC LIMIT 1`,
    );
    this.removePlatformStmt = db.prepare(`DELETE FROM events WHERE ${PLATFORM_KEY} = substr(@platform, -8) AND platform_id = @platform`);
    this.lists = new ListQueries(db);
  }

  /** The sequence number of a platform's newest event (0 when it has none): the newest of its delivery states' ranges. */
  latestSeq(platformId: string): number {
    const [seq] = this.lists.mergedPageWith<number>('seq', { table: 'events', key: 'seq', index: EVENT_STATE_INDEX, arms: eventStateRanges(platformId), afterKey: undefined, take: 1, order: 'desc' });
    return seq ?? 0;
  }

  /** Records an event; call it inside the transaction of the state change. `json`: the data as JSON text, when the caller has it already. */
  append(platformId: string, type: string, resourceId: string | null, data: unknown, json = JSON.stringify(data)): OutboxEvent {
    const id = this.ids.next('Webhook');
    const createdAt = this.clock.iso();
    const state = this.initialDeliveryState(platformId);
    const info = this.insertStmt.run(id, platformId, type, resourceId, json, createdAt, state);
    this.counts.add(EVENT_COUNTS, [platformId, type, state], 1);
    const event: OutboxEvent = { seq: Number(info.lastInsertRowid), id, platformId, type, resourceId, data, createdAt };
    for (const listener of this.listeners) this.notify(() => listener(event));
    return event;
  }

  /** Events of a platform after `afterSeq`, oldest first. */
  list(platformId: string, afterSeq = 0, limit = 100): OutboxEvent[] {
    // The platform's delivery-state ranges from `afterSeq` on, merged in seq order: another platform's events are never read.
    return this.lists.mergedPage<EventRow>({ table: 'events', key: 'seq', index: EVENT_STATE_INDEX, arms: eventStateRanges(platformId), afterKey: afterSeq, take: limit }).map(toEvent);
  }

  /** The latest event of a type for a resource, if any. */
  latest(platformId: string, resourceId: string, type: string): OutboxEvent | undefined {
    const row = this.latestStmt.get({ platform: platformId, resource: resourceId, type }) as EventRow | undefined;
    return row ? toEvent(row) : undefined;
  }

  /** Decides the delivery state new events start in (set once by the webhook delivery). */
  setInitialDeliveryState(decide: (platformId: string) => string): void {
    this.initialDeliveryState = decide;
  }

  /** Notified (once committed, after the current tick) of each appended event; delivery hooks in here. */
  subscribe(listener: (event: OutboxEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Wipes a platform's events (sandbox reset). */
  removePlatform(platformId: string): void {
    this.removePlatformStmt.run({ platform: platformId });
  }
}
