/**
 * The typed test helpers (fund, advanceClock, decideKyc, waitForWebhook, ...) of a sandbox,
 * acting only through the contract and the control plane: one implementation for a sandbox in
 * this process (`startSandbox()` builds on it) and for one in another process (`connectSandbox()`,
 * e.g. under `service-sandbox exec`). No server code is imported here.
 */
import { randomUUID } from 'node:crypto';
import type { CoverageReport } from '../core/coverage-report.js';
import {
  DEFAULT_CLIENT_ID,
  DEFAULT_CLIENT_SECRET,
  DEFAULT_URL,
  SandboxClient,
  SandboxHttpError,
  SandboxUnreachableError,
  type CustomerView,
  type InternalAccountView,
  type KycDecisionInput,
  type NewPlatformOptions,
  type PlatformView,
  type SandboxEndpoint,
  type WebhookEvent,
} from './index.js';
import { readSse } from './sse.js';

/** The credentials of a platform: HTTP Basic user name and password. */
export interface SandboxCredentials {
  clientId: string;
  clientSecret: string;
}

/** Options of `waitForWebhook`. */
export interface WaitForWebhookOptions {
  /**
   * How long to wait, in milliseconds of real time; 4000 by default, less than a test runner's
   * own default (vitest's is 5000), so the helper's message, not the runner's, says what happened.
   */
  timeoutMs?: number;
}

/** `waitForWebhook`'s default timeout: under vitest's and jest's 5 s test timeout. */
export const DEFAULT_WAIT_MS = 4000;

/** A KYC/KYB decision as the helpers take it. */
export type KycDecisionWord = KycDecisionInput | 'approve' | 'reject' | 'hold';

/** The outcome of a decision: the customer and its latest verification. */
export interface KycDecisionResult {
  customer: CustomerView;
  verification: { id: string; verificationStatus: string } | null;
}

/** An event fired by `trigger`, with its delivery state. */
export type TriggeredEvent = WebhookEvent & { resourceId: string | null; status: string };

/**
 * Typed helpers over a running sandbox's contract and control plane, acting as one platform
 * (the default platform unless other credentials are given). Failures reject with
 * `SandboxHttpError` (`status`, `code`, `body`), or `SandboxUnreachableError` when nothing answers.
 */
export interface SandboxHelpers {
  /** `http://127.0.0.1:<port>/2025-10-13`: point the client here. */
  readonly baseUrl: string;
  /** `http://127.0.0.1:<port>`: the control plane lives at `${origin}/_sandbox`. */
  readonly origin: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /**
   * Moves the sandbox clock forward (`POST /_sandbox/clock/advance`), running every job that
   * falls due; resolves to the new sandbox time. The clock is shared by every platform.
   */
  advanceClock(seconds: number): Promise<string>;
  /**
   * Wipes the platform's data and armed faults (`POST /_sandbox/reset`, as `service-sandbox reset`).
   * The clock stays where it is (see `resetClock`).
   */
  reset(): Promise<void>;
  /**
   * Puts the sandbox clock back to real time (offset 0, for every platform), as
   * `POST /_sandbox/clock/reset` does; pending jobs keep their due times. Resolves to the new
   * time. Call it beside `reset()` when each test must start from real time.
   */
  resetClock(): Promise<string>;
  /**
   * The platform's integration coverage since its last reset (`GET /_sandbox/coverage`, as
   * `service-sandbox coverage --json`): every contract operation with the statuses answered,
   * every sandbox rule with its hits, every webhook type with its deliveries.
   */
  coverage(): Promise<CoverageReport>;
  /**
   * Credits an internal account at once, as `POST /sandbox/internal-accounts/{id}/fund` does.
   * `target` is an internal account id, or a customer id or `platformCustomerId` (then
   * `currency` picks the account; it may be left out when the customer has one). `amount` is in
   * the smallest unit when a number (`1250`), in major units when a string (`'12.50'`).
   * Resolves to the account with its new balance.
   *
   * ```ts
   * await sandbox.fund('cust-42', '12.50', 'USD');
   * ```
   */
  fund(target: string, amount: number | string, currency?: string): Promise<InternalAccountView>;
  /**
   * Creates another platform (its own credentials and data), as `POST /_sandbox/platforms` does.
   * Credentials are generated when not given; the result carries them.
   */
  createPlatform(options?: Partial<NewPlatformOptions>): Promise<PlatformView & { clientSecret: string }>;
  /**
   * A reviewer's KYC/KYB decision for a customer (id or `platformCustomerId`), as
   * `POST /_sandbox/customers/{id}/kyc-decision`: the customer and its verification move
   * together and fire the same events as a real review. A decision is final: once the customer
   * is APPROVED or REJECTED (however it got there), any further decision rejects with a
   * `SandboxHttpError` 409 `CONFLICT` naming the current status. `hold` puts a customer under
   * review on HOLD. A customer is under review when created with a `fullName` ending in `001`
   * (individuals; other names are APPROVED at once) or as a business (UNVERIFIED).
   */
  decideKyc(customer: string, decision: KycDecisionWord): Promise<KycDecisionResult>;
  /**
   * Fires a webhook event type the way the real flow does (`webhooks trigger`): with
   * `resourceId` from that resource's current state, else from a realistic new resource.
   */
  trigger(type: string, resourceId?: string): Promise<TriggeredEvent>;
  /**
   * Resolves with the first event of the platform of `type` (`'*'` for any) that `predicate`
   * accepts, exactly as it is delivered (`{id, type, timestamp, data}`). Events recorded
   * before the call count too (so there is no race with the action that caused it), but each
   * event is handed out once by this helpers object. Rejects after `timeoutMs` (default 4000)
   * of real time, naming the event it waited for and the events that arrived instead. Works
   * with or without a webhook endpoint, for a sandbox in this process or another one (it reads
   * the control plane's event stream).
   *
   * ```ts
   * await sandbox.advanceClock(30);
   * const event = await sandbox.waitForWebhook('CUSTOMER.KYC_APPROVED', (e) => e.data.id === customer.id);
   * ```
   */
  waitForWebhook<T = any>(type: string, predicate?: (event: WebhookEvent<T>) => boolean, options?: WaitForWebhookOptions): Promise<WebhookEvent<T>>;
}

const DECISIONS: Record<string, KycDecisionInput> = { approve: 'APPROVED', reject: 'REJECTED', hold: 'HOLD' };

/** At most this many events not yet handed out are remembered (the oldest go first). */
const BACKLOG_LIMIT = 50_000;

/** One event of the control plane's event stream (`GET /_sandbox/webhooks/events/stream`). */
interface StreamedEvent {
  seq: number;
  id: string;
  type: string;
  resourceId: string | null;
  body: string;
}

/** An event as a waiter sees it: the delivered body, parsed once. */
interface Seen {
  seq: number;
  resourceId: string | null;
  event: WebhookEvent;
}

interface Waiter {
  type: string;
  predicate: ((event: WebhookEvent) => boolean) | undefined;
  /** What this waiter was offered and did not take, for its timeout message. */
  instead: Seen[];
  resolve(event: WebhookEvent): void;
  reject(error: Error): void;
}

/**
 * The events of one platform, read from the control plane's event stream while someone waits:
 * events not yet handed out are kept (so a later wait finds those recorded before it), and the
 * stream resumes after the last one read. A stream is open only while a wait is pending.
 */
class EventFeed {
  private readonly backlog = new Map<number, Seen>();
  private readonly handedOut = new Set<string>();
  private readonly waiters = new Set<Waiter>();
  /** The newest event read, and the platform and sandbox history it belongs to. */
  private cursor = 0;
  private platformId: string | undefined;
  private stream: AbortController | undefined;

  constructor(
    private readonly client: SandboxClient,
    private readonly where: string,
  ) {}

  /** Forgets every event (the platform was reset: its events are gone). */
  forget(): void {
    this.backlog.clear();
    this.cursor = 0;
  }

  wait(type: string, predicate: ((event: WebhookEvent) => boolean) | undefined, timeoutMs: number): Promise<WebhookEvent> {
    if (typeof type !== 'string' || type === '') return Promise.reject(new TypeError("waitForWebhook: name an event type such as 'CUSTOMER.KYC_APPROVED', or '*' for any"));
    if (!Number.isFinite(timeoutMs) || timeoutMs < 0) return Promise.reject(new RangeError(`waitForWebhook: timeoutMs ${timeoutMs} is not a number of milliseconds`));
    return new Promise<WebhookEvent>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter: Waiter = {
        type,
        predicate,
        instead: [],
        resolve: (event) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          this.idle();
          resolve(event);
        },
        reject: (error) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          this.idle();
          reject(error);
        },
      };
      // Recorded before the call (and read by an earlier wait): offered first, oldest first.
      for (const seen of this.backlog.values()) if (this.offer(waiter, seen)) return;
      this.waiters.add(waiter);
      timer = setTimeout(() => waiter.reject(new Error(timeoutMessage(waiter, timeoutMs))), timeoutMs);
      this.open();
    });
  }

  /** Offers an event to a waiter; true when the waiter is done (took it, or its predicate threw). */
  private offer(waiter: Waiter, seen: Seen): boolean {
    if (this.handedOut.has(seen.event.id)) return false;
    if (waiter.type !== '*' && seen.event.type !== waiter.type) {
      waiter.instead.push(seen);
      return false;
    }
    try {
      if (waiter.predicate && !waiter.predicate(seen.event)) {
        waiter.instead.push(seen);
        return false;
      }
    } catch (error) {
      waiter.reject(error instanceof Error ? error : new Error(String(error)));
      return true;
    }
    this.handedOut.add(seen.event.id);
    this.backlog.delete(seen.seq);
    waiter.resolve(seen.event);
    return true;
  }

  /** A new event from the stream: kept, then offered to each waiter in turn. */
  private arrive(streamed: StreamedEvent): void {
    if (streamed.seq <= this.cursor) return;
    this.cursor = streamed.seq;
    const seen: Seen = { seq: streamed.seq, resourceId: streamed.resourceId, event: JSON.parse(streamed.body) as WebhookEvent };
    this.backlog.set(seen.seq, seen);
    if (this.backlog.size > BACKLOG_LIMIT) this.backlog.delete(this.backlog.keys().next().value!);
    for (const waiter of [...this.waiters]) if (this.offer(waiter, seen) && this.handedOut.has(seen.event.id)) break;
  }

  /** Closes the stream once nobody waits. */
  private idle(): void {
    if (this.waiters.size === 0 && this.stream) {
      this.stream.abort();
      this.stream = undefined;
    }
  }

  /** Opens the stream (once) after the last event read. */
  private open(): void {
    if (this.stream) return;
    const abort = new AbortController();
    this.stream = abort;
    void this.follow(abort).catch((error: unknown) => {
      if (this.stream === abort) this.stream = undefined;
      if (abort.signal.aborted) return;
      for (const waiter of [...this.waiters]) waiter.reject(error instanceof Error ? error : new Error(String(error)));
    });
  }

  private async follow(abort: AbortController): Promise<void> {
    for (;;) {
      const asked = this.cursor;
      // One connection; a restart (below) drops it, stopping the waits drops every one.
      const connection = new AbortController();
      const drop = () => connection.abort();
      abort.signal.addEventListener('abort', drop, { once: true });
      let restart = false;
      try {
        let response: Response;
        try {
          response = await fetch(`${this.client.endpoint.origin}/_sandbox/webhooks/events/stream?after=${asked}`, {
            headers: { ...this.client.headers(), Accept: 'text/event-stream' },
            signal: connection.signal,
          });
        } catch (error) {
          if (abort.signal.aborted) return;
          throw new SandboxUnreachableError(`${unreachable(this.where)} (while waiting for a webhook)`, { cause: error });
        }
        if (!response.ok || !response.body) {
          const text = await response.text();
          let body: { code?: string; message?: string } | undefined;
          try {
            body = JSON.parse(text) as typeof body;
          } catch {
            body = undefined;
          }
          throw new SandboxHttpError(response.status, body?.code, `${response.status} ${body?.code ?? ''} ${body?.message ?? text}`.replace(/\s+/g, ' ').trim(), body);
        }
        await readSse(response, ({ event, data }) => {
          if (restart) return;
          if (event === 'ready') {
            const ready = JSON.parse(data) as { platformId: string; after: number };
            // Not the history read so far (the platform was reset, the sandbox restarted, the
            // stream answers for another platform): forget it and read from the first event.
            const same = ready.after === asked && (this.platformId === undefined || ready.platformId === this.platformId);
            this.platformId = ready.platformId;
            if (!same) {
              this.forget();
              if (asked !== 0) {
                restart = true;
                connection.abort();
              }
            }
            return;
          }
          if (event === 'webhook') this.arrive(JSON.parse(data) as StreamedEvent);
        });
      } finally {
        abort.signal.removeEventListener('abort', drop);
      }
      if (abort.signal.aborted) return;
      if (!restart) throw new Error(`the sandbox at ${this.where} ended the event stream (did it stop?) while a waitForWebhook was pending`);
    }
  }
}

const unreachable = (where: string) =>
  `no sandbox is answering at ${where}; start one with \`npx service-sandbox\`, or run the tests under \`npx service-sandbox exec -- <test command>\` (it sets SERVICE_SANDBOX_URL)`;

/** `no CUSTOMER.KYC_APPROVED event matching the predicate within 4000 ms; seen instead: 2 CUSTOMER.KYC_PENDING (Customer:...), 1 TEST`. */
function timeoutMessage(waiter: Waiter, timeoutMs: number): string {
  const wanted = `${waiter.type === '*' ? 'webhook event' : `${waiter.type} event`}${waiter.predicate ? ' matching the predicate' : ''}`;
  const byType = new Map<string, { count: number; resources: Set<string> }>();
  for (const { event, resourceId } of waiter.instead) {
    const entry = byType.get(event.type) ?? { count: 0, resources: new Set<string>() };
    entry.count += 1;
    if (resourceId && entry.resources.size < 3) entry.resources.add(resourceId);
    byType.set(event.type, entry);
  }
  const parts = [...byType].slice(0, 10).map(([type, { count, resources }]) => {
    const shown = [...resources].join(', ');
    const more = count > resources.size && resources.size > 0 ? ', ...' : '';
    return `${count} ${type}${shown ? ` (${shown}${more})` : ''}`;
  });
  if (byType.size > 10) parts.push(`and ${byType.size - 10} more types`);
  const instead = parts.length
    ? `seen instead: ${parts.join(', ')}`
    : 'no other event arrived either (was the action that sends it done? one that waits on a timer needs advanceClock)';
  return `waitForWebhook: no ${wanted} within ${timeoutMs} ms; ${instead}`;
}

/**
 * The helpers over the sandbox at `endpoint`. `startSandbox()` returns these (plus `port`,
 * `close` and the internals); `connectSandbox()` makes them for a sandbox in another process.
 */
export function sandboxHelpers(endpoint: SandboxEndpoint): SandboxHelpers {
  const client = new SandboxClient(endpoint);
  const where = endpoint.origin;
  const feed = new EventFeed(client, where);
  /** Runs a client call, saying how to start a sandbox when none answers. */
  const using = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof SandboxUnreachableError) throw new SandboxUnreachableError(unreachable(where), { cause: error });
      throw error;
    }
  };
  return {
    baseUrl: `${endpoint.origin}/2025-10-13`,
    origin: endpoint.origin,
    clientId: endpoint.clientId,
    clientSecret: endpoint.clientSecret,
    advanceClock: (seconds) => using(async () => (await client.request<{ now: string }>('POST', '/_sandbox/clock/advance', { seconds })).now),
    reset: () =>
      using(async () => {
        await client.request('POST', '/_sandbox/reset');
        feed.forget();
      }),
    resetClock: () => using(async () => (await client.request<{ now: string }>('POST', '/_sandbox/clock/reset')).now),
    coverage: () => using(() => client.request<CoverageReport>('GET', '/_sandbox/coverage')),
    fund: (target, amount, currency) => using(() => client.fund(target, amount, currency)),
    createPlatform: (options = {}) =>
      using(async () => {
        const created = { clientId: options.clientId ?? `platform-${randomUUID()}`, clientSecret: options.clientSecret ?? `secret-${randomUUID()}`, ...options } as NewPlatformOptions;
        return { ...(await client.createPlatform(created)), clientSecret: created.clientSecret };
      }),
    decideKyc: (customer, decision) => using(() => client.decideKyc(customer, DECISIONS[decision] ?? (decision as KycDecisionInput))),
    trigger: (type, resourceId) => using(() => client.trigger(type, resourceId)),
    waitForWebhook: <T>(type: string, predicate?: (event: WebhookEvent<T>) => boolean, options: WaitForWebhookOptions = {}) =>
      feed.wait(type, predicate as ((event: WebhookEvent) => boolean) | undefined, options.timeoutMs ?? DEFAULT_WAIT_MS) as Promise<WebhookEvent<T>>,
  };
}

/**
 * Helpers over a sandbox running in another process (or anywhere else): the same typed helpers
 * `startSandbox()` returns (fund, advanceClock, reset, decideKyc, trigger, createPlatform,
 * waitForWebhook), acting through the contract and the control plane.
 *
 * `url` is the sandbox's origin or base URL; by default `SERVICE_SANDBOX_URL` (which
 * `service-sandbox exec` sets for its command), else `http://127.0.0.1:8080`. The credentials
 * default to `SERVICE_SANDBOX_CLIENT_ID` / `SERVICE_SANDBOX_CLIENT_SECRET`, else the default
 * platform's. Nothing is sent until a helper is called.
 *
 * ```ts
 * // under `npx service-sandbox exec -- npx vitest run`
 * import { connectSandbox } from 'service-sandbox';
 * const sandbox = connectSandbox();
 * await sandbox.fund('cust-42', '12.50', 'USD');
 * ```
 */
export function connectSandbox(url?: string, credentials: Partial<SandboxCredentials> = {}): SandboxHelpers {
  const env = process.env;
  const target = url ?? env.SERVICE_SANDBOX_URL ?? DEFAULT_URL;
  let origin: string;
  try {
    const parsed = new URL(target);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TypeError(parsed.protocol);
    origin = parsed.origin;
  } catch {
    throw new TypeError(`connectSandbox: "${target}" is not the URL of a sandbox; pass one such as http://127.0.0.1:8080`);
  }
  return sandboxHelpers({
    origin,
    clientId: credentials.clientId ?? env.SERVICE_SANDBOX_CLIENT_ID ?? DEFAULT_CLIENT_ID,
    clientSecret: credentials.clientSecret ?? env.SERVICE_SANDBOX_CLIENT_SECRET ?? DEFAULT_CLIENT_SECRET,
    userAgent: 'service-sandbox-helpers',
  });
}
