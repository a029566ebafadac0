import { EventEmitter } from 'node:events';
import type { SandboxContext } from '../store/context.js';
import { DeliveriesRepo, type AttemptRow, type DeliveryRow } from './deliveries-repo.js';
import { ATTEMPT_TIMEOUT_MS, MAX_ATTEMPTS, acknowledges, retryDelayMs } from './retry-schedule.js';
import { responseHandlerOf } from './responses.js';
import { WebhookSigner } from './signing.js';
import { Poster } from './post.js';

/** The scheduler job kind that makes a failed event due again. */
export const RETRY_JOB_KIND = 'webhooks.retry';

/** Attempts in flight at once, across resources (one resource never has two). */
const MAX_IN_FLIGHT = 16;
/** How much of a receiver's answer is kept in the attempt log. */
const EXCERPT_CHARS = 500;
/** How much of a receiver's answer is read at all. */
const MAX_RESPONSE_CHARS = 64 * 1024;

/** What one attempt did. */
export interface AttemptResult {
  eventId: string;
  /** The attempt's number in the event's log (replays continue the count). */
  attempt: number;
  attemptedAt: string;
  url: string;
  outcome: 'SUCCEEDED' | 'FAILED';
  responseStatus: number | null;
  /** Why a response is missing: `timed out after 5s`, `connection refused`, ... */
  error: string | null;
  latencyMs: number;
  /** The receiver's body, up to 64 KiB (the log keeps its first 500 characters). */
  responseBody: string | null;
  /** What happens next: delivered, a retry at `nextAttemptAt`, or given up. */
  state: 'DELIVERED' | 'RETRYING' | 'FAILED';
  nextAttemptAt: string | null;
  /** The `webhooks listen --forward-to` session that forwarded it; null for the worker's own attempts. */
  listenSession: string | null;
}

/** A `webhooks listen --forward-to` session: it forwards each event of its platform to `url` and reports the answer. */
export interface ListenSession {
  id: string;
  platformId: string;
  url: string;
  /** Events sent to it whose forward it has not reported yet. */
  readonly pending: Set<string>;
}

/** What a listen session reports of one forward. */
export interface ForwardOutcome {
  responseStatus: number | null;
  error: string | null;
  latencyMs: number;
  responseExcerpt: string | null;
}

/** Activity the worker reports (for `webhooks tail`). */
export type DeliveryActivity =
  | { kind: 'attempt'; platformId: string; type: string; resourceId: string | null; result: AttemptResult }
  | { kind: 'no-endpoint'; platformId: string; eventId: string; type: string; resourceId: string | null };

/** Options of the delivery worker. */
export interface DeliveryOptions {
  /** The platform's webhook endpoint at the time of an attempt, if it has one. */
  endpointOf(platformId: string): string | undefined;
}

/** The exact bytes delivered for an event: the envelope `{id, type, timestamp, data}`. */
export function envelopeOf(row: Pick<DeliveryRow, 'id' | 'type' | 'created_at' | 'data'>): string {
  return `{"id":${JSON.stringify(row.id)},"type":${JSON.stringify(row.type)},"timestamp":${JSON.stringify(row.created_at)},"data":${row.data}}`;
}

/** A readable reason for a failed attempt (node's HTTP client errors carry `code`; a timeout is the abort's reason). */
function describeFailure(error: unknown): string {
  const err = error as { name?: string; message?: string; code?: string; cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError') return `timed out after ${ATTEMPT_TIMEOUT_MS / 1000}s`;
  const code = err?.code ?? err?.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'connection reset';
  return err?.cause?.message ?? err?.message ?? String(error);
}

/**
 * Delivers the outbox to each platform's webhook endpoint: at least once, signed, in order per
 * resource, retried on the sandbox clock. The HTTP work is async and outside any transaction;
 * the scheduler's retry job only marks an event due again and wakes the worker.
 */
export class WebhookDelivery {
  readonly signer: WebhookSigner;
  /** Connections to receivers, kept open between deliveries. */
  private readonly poster = new Poster(MAX_IN_FLIGHT);
  readonly repo: DeliveriesRepo;
  /** Emits `activity` (DeliveryActivity) and `stop`. */
  readonly events = new EventEmitter();
  private readonly inFlight = new Map<string, Promise<unknown>>();
  private readonly stopping = new AbortController();
  /**
   * The abort controller of each attempt in flight, aborted by `stop()`. (One listener per
   * attempt on the `stopping` signal instead made Node warn of a leak, MaxListenersExceededWarning,
   * as soon as more than ten attempts were in flight, e.g. a fixture's events on start.)
   */
  private readonly attempts = new Set<AbortController>();
  private pumpQueued = false;
  private stopped = false;
  private readonly unsubscribe: () => void;
  /** Open `webhooks listen --forward-to` sessions, by id. */
  private readonly listenSessions = new Map<string, ListenSession>();

  constructor(
    private readonly ctx: SandboxContext,
    private readonly options: DeliveryOptions,
  ) {
    this.events.setMaxListeners(0);
    this.signer = WebhookSigner.forDatabase(ctx.meta, ctx.tx, ctx.random.stream('webhook-signing-key'));
    this.repo = new DeliveriesRepo(ctx.db, ctx.counts);
    ctx.scheduler.register(RETRY_JOB_KIND, (job) => {
      const { eventId } = job.payload as { eventId: string };
      if (this.repo.dueAgain(eventId, job.id)) this.kick();
    });
    // An event of a platform without an endpoint is recorded NO_ENDPOINT at once (no worker round
    // trip), or SENDING while a `webhooks listen --forward-to` session forwards it.
    ctx.outbox.setInitialDeliveryState((platformId) =>
      this.options.endpointOf(platformId) ? 'PENDING' : this.isForwarding(platformId) ? 'SENDING' : 'NO_ENDPOINT',
    );
    this.unsubscribe = ctx.outbox.subscribe((event) => {
      if (this.options.endpointOf(event.platformId)) {
        this.kick();
        return;
      }
      if (this.isForwarding(event.platformId)) return; // the listen session reports the attempt
      this.events.emit('activity', {
        kind: 'no-endpoint', platformId: event.platformId, eventId: event.id, type: event.type, resourceId: event.resourceId,
      } satisfies DeliveryActivity);
    });
    // Restart resumes: attempts cut short by a stop or crash are due again, then every PENDING event.
    ctx.tx(() => this.repo.recoverInterrupted());
    this.kick();
  }

  /** Wakes the worker on the next turn of the event loop (after the current transaction). */
  kick(): void {
    if (this.pumpQueued || this.stopped) return;
    this.pumpQueued = true;
    setImmediate(() => {
      this.pumpQueued = false;
      this.pump();
    });
  }

  /**
   * Attempts one event now, outside the queue's order (test webhook, replay), starting a new
   * round of attempts. `retry: false` marks it FAILED if this one attempt fails.
   * Returns undefined when the platform has no endpoint.
   */
  async deliverNow(eventId: string, options: { retry: boolean }): Promise<AttemptResult | undefined> {
    const row = this.repo.byId(eventId);
    if (!row) throw new Error(`no event ${eventId}`);
    const url = this.options.endpointOf(row.platform_id);
    if (!url) return undefined;
    this.ctx.tx(() => {
      if (row.retry_job_id) this.ctx.jobs.remove(row.retry_job_id);
      this.repo.markSending(eventId, true);
    });
    return this.track(eventId, this.attempt({ ...row, attempt_count: 1 }, url, options.retry));
  }

  /** Whether a listen session forwards the events of this platform. */
  isForwarding(platformId: string): boolean {
    for (const session of this.listenSessions.values()) if (session.platformId === platformId) return true;
    return false;
  }

  /** Opens a `webhooks listen --forward-to <url>` session for a platform. */
  openListenSession(platformId: string, url: string): ListenSession {
    const session: ListenSession = { id: this.ctx.ids.next('ListenSession'), platformId, url, pending: new Set() };
    this.listenSessions.set(session.id, session);
    return session;
  }

  /** An open listen session of the platform, if any. */
  listenSession(platformId: string, id: string): ListenSession | undefined {
    const session = this.listenSessions.get(id);
    return session?.platformId === platformId ? session : undefined;
  }

  /**
   * Closes a listen session. Its events whose forward was never reported, and that no other
   * session of the platform forwards, are recorded NO_ENDPOINT (what they would have been).
   */
  closeListenSession(id: string): void {
    const session = this.listenSessions.get(id);
    if (!session) return;
    this.listenSessions.delete(id);
    if (this.stopped || this.options.endpointOf(session.platformId) || this.isForwarding(session.platformId)) return;
    const abandoned = this.ctx.tx(() =>
      [...session.pending].map((eventId) => this.repo.byId(eventId)).filter((row): row is DeliveryRow => row?.delivery_state === 'SENDING').map((row) => {
        this.repo.setState(row.id, 'NO_ENDPOINT');
        return row;
      }),
    );
    for (const row of abandoned) {
      this.events.emit('activity', { kind: 'no-endpoint', platformId: row.platform_id, eventId: row.id, type: row.type, resourceId: row.resource_id } satisfies DeliveryActivity);
    }
  }

  /**
   * Records what a listen session's forward of an event got, as one attempt of the event's log
   * (url: the session's, `listenSession`: its id). For a platform without a webhook endpoint the
   * forward decides the event's state: DELIVERED on a 2xx answer, FAILED otherwise (unless
   * another forward delivered it). With an endpoint, the worker's deliveries decide it.
   */
  recordForward(session: ListenSession, eventId: string, outcome: ForwardOutcome): AttemptResult | undefined {
    session.pending.delete(eventId);
    const succeeded = outcome.responseStatus !== null && acknowledges(outcome.responseStatus);
    const error = outcome.error ?? (outcome.responseStatus !== null && !succeeded ? `HTTP ${outcome.responseStatus}` : null);
    return this.ctx.tx(() => {
      const row = this.repo.byId(eventId);
      if (!row || row.platform_id !== session.platformId) return undefined;
      const attemptedAt = this.ctx.clock.iso();
      const attempt: Omit<AttemptRow, 'seq'> = {
        event_id: row.id,
        platform_id: row.platform_id,
        attempt: this.repo.attemptCount(row.id) + 1,
        attempted_at: attemptedAt,
        url: session.url,
        outcome: succeeded ? 'SUCCEEDED' : 'FAILED',
        response_status: outcome.responseStatus,
        error,
        latency_ms: outcome.latencyMs,
        response_excerpt: outcome.responseExcerpt === null ? null : outcome.responseExcerpt.slice(0, EXCERPT_CHARS),
        listen_session: session.id,
      };
      this.repo.insertAttempt(attempt);
      if (!this.options.endpointOf(row.platform_id)) {
        if (succeeded && row.delivery_state !== 'DELIVERED') this.repo.markDelivered(row.id, attemptedAt);
        else if (!succeeded && row.delivery_state !== 'DELIVERED') this.repo.setState(row.id, 'FAILED');
      }
      // A forward is not retried: this attempt's own outcome is what follows it.
      const result: AttemptResult = {
        eventId: row.id, attempt: attempt.attempt, attemptedAt, url: session.url, outcome: attempt.outcome, responseStatus: outcome.responseStatus, error,
        latencyMs: outcome.latencyMs, responseBody: outcome.responseExcerpt, state: succeeded ? 'DELIVERED' : 'FAILED', nextAttemptAt: null, listenSession: session.id,
      };
      this.ctx.logger.info('webhook', { event: row.id, type: row.type, attempt: result.attempt, via: session.id, answer: outcome.responseStatus ?? error, ms: outcome.latencyMs });
      this.events.emit('activity', { kind: 'attempt', platformId: row.platform_id, type: row.type, resourceId: row.resource_id, result } satisfies DeliveryActivity);
      return result;
    });
  }

  /** Whether an attempt of this event is in flight. */
  isSending(eventId: string): boolean {
    return this.inFlight.has(eventId);
  }

  /** Stops taking work, aborts attempts in flight (their events stay due) and waits for them. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.unsubscribe();
    this.stopping.abort();
    for (const attempt of this.attempts) attempt.abort(this.stopping.signal.reason);
    await Promise.allSettled([...this.inFlight.values()]);
    this.poster.close();
    this.events.emit('stop');
  }

  private pump(): void {
    if (this.stopped) return;
    const room = MAX_IN_FLIGHT - this.inFlight.size;
    if (room <= 0) return;
    // What the events read now wait for to be committed (undefined: nothing written waits, so
    // every row read is committed). Their SENDING marks below need not be committed before the
    // send: an attempt cut short by a crash leaves its event due again with the same attempt
    // count whether its mark was committed (recoverInterrupted) or not.
    const written = this.ctx.committed();
    const rows = this.repo.ready(room);
    // One transaction for the whole batch: state changes of many events cost one commit.
    const sends = this.ctx.tx(() => {
      const out: { row: DeliveryRow; url: string }[] = [];
      for (const row of rows) {
        const url = this.options.endpointOf(row.platform_id);
        if (!url) {
          this.repo.setState(row.id, 'NO_ENDPOINT');
          continue;
        }
        this.repo.markSending(row.id, false);
        out.push({ row, url });
      }
      return out;
    });
    for (const row of rows) {
      if (sends.some((send) => send.row.id === row.id)) continue;
      this.events.emit('activity', {
        kind: 'no-endpoint', platformId: row.platform_id, eventId: row.id, type: row.type, resourceId: row.resource_id,
      } satisfies DeliveryActivity);
    }
    for (const { row, url } of sends) this.track(row.id, this.attempt({ ...row, attempt_count: row.attempt_count + 1 }, url, true, written));
    // A full batch with nothing sent may have more waiting behind it.
    if (rows.length === room && sends.length === 0) this.kick();
  }

  private track<T>(eventId: string, work: Promise<T>): Promise<T> {
    const settled = work.finally(() => {
      this.inFlight.delete(eventId);
      this.kick();
    });
    this.inFlight.set(eventId, settled.catch(() => undefined));
    return settled;
  }

  /**
   * One HTTP attempt, then its outcome recorded in one transaction. Nothing leaves before the
   * event is committed (group commit): `written` is the commit the event waited for when it was
   * read; by default, whatever waits now (the event, and this attempt's SENDING mark).
   */
  private async attempt(row: DeliveryRow, url: string, retry: boolean, written: Promise<void> | undefined = this.ctx.committed()): Promise<AttemptResult | undefined> {
    await written;
    const body = envelopeOf(row);
    const attemptedAt = this.ctx.clock.iso();
    const started = performance.now();
    let responseStatus: number | null = null;
    let responseBody: string | null = null;
    let error: string | null = null;
    // A timer of our own rather than AbortSignal.any([AbortSignal.timeout(...)]): on Node 20 the
    // timeout signal inside a composite can be garbage-collected and never fire (nodejs/node#57736).
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new DOMException(`timed out after ${ATTEMPT_TIMEOUT_MS} ms`, 'TimeoutError')), ATTEMPT_TIMEOUT_MS);
    this.attempts.add(abort);
    if (this.stopping.signal.aborted) abort.abort(this.stopping.signal.reason);
    try {
      const answer = await this.poster.post(
        url,
        { 'Content-Type': 'application/json', ...this.signer.headers(body), 'User-Agent': 'service-sandbox-webhooks' },
        body,
        abort.signal,
        MAX_RESPONSE_CHARS,
      );
      responseStatus = answer.status;
      responseBody = answer.body;
    } catch (failure) {
      if (this.stopping.signal.aborted) {
        // Cut short by shutdown: not an attempt; the event is due again at the next start.
        this.ctx.tx(() => this.repo.recoverInterrupted(row.id));
        return undefined;
      }
      error = describeFailure(failure);
    } finally {
      clearTimeout(timer);
      this.attempts.delete(abort);
    }
    const latencyMs = Math.round((performance.now() - started) * 100) / 100;
    const answered = responseHandlerOf(row.type);
    const succeeded = responseStatus !== null && (acknowledges(responseStatus) || answered?.acknowledges?.(responseStatus) === true);
    if (responseStatus !== null && !succeeded) error = `HTTP ${responseStatus}`;
    const recorded = this.recordAttempt(row, url, retry, { attemptedAt, responseStatus, responseBody, error, latencyMs, succeeded });
    if (recorded && answered && responseStatus !== null) {
      try {
        answered.onResponse(this.ctx, {
          platformId: row.platform_id, eventId: row.id, type: row.type, resourceId: row.resource_id, status: responseStatus, body: responseBody,
        });
      } catch (failure) {
        this.ctx.logger.error('webhook response handler failed', { event: row.id, type: row.type, error: String(failure) });
      }
    }
    return recorded;
  }

  /** Records one attempt's outcome and schedules what follows, in one transaction. */
  private recordAttempt(
    row: DeliveryRow,
    url: string,
    retry: boolean,
    outcome: { attemptedAt: string; responseStatus: number | null; responseBody: string | null; error: string | null; latencyMs: number; succeeded: boolean },
  ): AttemptResult | undefined {
    const { attemptedAt, responseStatus, responseBody, error, latencyMs, succeeded } = outcome;
    return this.ctx.tx(() => {
      const current = this.repo.byId(row.id);
      if (!current) return undefined; // reset while in flight
      const attempt: Omit<AttemptRow, 'seq'> = {
        event_id: row.id,
        platform_id: row.platform_id,
        // Numbered over the event's whole log; the retry schedule counts within the round (row.attempt_count).
        attempt: this.repo.attemptCount(row.id) + 1,
        attempted_at: attemptedAt,
        url,
        outcome: succeeded ? 'SUCCEEDED' : 'FAILED',
        response_status: responseStatus,
        error,
        latency_ms: latencyMs,
        response_excerpt: responseBody === null ? null : responseBody.slice(0, EXCERPT_CHARS),
        listen_session: null,
      };
      this.repo.insertAttempt(attempt);
      let state: AttemptResult['state'];
      let nextAttemptAt: string | null = null;
      if (succeeded) {
        state = 'DELIVERED';
        this.repo.markDelivered(row.id, this.ctx.clock.iso());
      } else if (!retry || row.attempt_count >= MAX_ATTEMPTS) {
        state = 'FAILED';
        this.repo.setState(row.id, 'FAILED');
      } else {
        state = 'RETRYING';
        const job = this.ctx.scheduler.schedule(row.platform_id, RETRY_JOB_KIND, retryDelayMs(row.attempt_count), { eventId: row.id });
        nextAttemptAt = new Date(job.dueAt).toISOString();
        this.repo.markRetrying(row.id, nextAttemptAt, job.id);
      }
      const result: AttemptResult = {
        eventId: row.id, attempt: attempt.attempt, attemptedAt, url, outcome: attempt.outcome, responseStatus, error, latencyMs,
        responseBody, state, nextAttemptAt, listenSession: null,
      };
      this.ctx.logger.info('webhook', {
        event: row.id, type: row.type, attempt: result.attempt, answer: responseStatus ?? error, ms: latencyMs, next: nextAttemptAt ?? state,
      });
      this.events.emit('activity', {
        kind: 'attempt', platformId: row.platform_id, type: row.type, resourceId: row.resource_id, result,
      } satisfies DeliveryActivity);
      return result;
    });
  }
}
