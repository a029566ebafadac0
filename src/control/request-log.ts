import { EventEmitter } from 'node:events';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { SandboxContext } from '../store/context.js';
import { ApiError, ErrorCode } from '../core/errors.js';
import { IsoText } from '../core/clock.js';
import { perContext } from '../core/per-context.js';
import { webhookDelivery } from '../events/index.js';
import { loggedPath, type RequestHook } from '../server/app.js';
import type { AppEnv } from '../server/env.js';

/**
 * The request log a platform reads back (`GET /_sandbox/logs`, `service-sandbox logs`), as
 * Stripe's `logs tail`: what the request log line shows, per platform, in a bounded ring in
 * memory. It holds no secret: the path as the request log shows it (one-time codes and tokens in
 * paths masked), never a query string, a header or a body, and of an error only its code and the
 * name of the first field at fault.
 */
export interface RequestLogEntry {
  /** Real time of the answer (ISO 8601). */
  time: string;
  /** The sandbox clock then. */
  sandboxTime: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  requestId: string;
  /** An error answer's code, and the first field at fault (a name, never a value). */
  errorCode?: string;
  errorField?: string;
}

/** Requests kept per platform; the oldest go first. */
export const REQUEST_LOG_CAPACITY = 1000;
/** Platforms whose log is kept (the least recently active one's log goes first). */
const PLATFORMS_KEPT = 256;

/** One platform's ring. */
class Ring {
  private readonly items: RequestLogEntry[] = [];
  private start = 0;

  push(entry: RequestLogEntry): void {
    if (this.items.length < REQUEST_LOG_CAPACITY) this.items.push(entry);
    else {
      this.items[this.start] = entry;
      this.start = (this.start + 1) % REQUEST_LOG_CAPACITY;
    }
  }

  /** Oldest first. */
  all(): RequestLogEntry[] {
    return [...this.items.slice(this.start), ...this.items.slice(0, this.start)];
  }
}

/** The request logs of a sandbox's platforms. */
export class RequestLog {
  private readonly rings = new Map<string, Ring>();
  /** The platform recorded last (the last key of `rings`). */
  private latest: string | undefined;
  readonly events = new EventEmitter();

  constructor() {
    this.events.setMaxListeners(0);
  }

  record(platformId: string, entry: RequestLogEntry): void {
    let ring = this.rings.get(platformId);
    // Map order is insertion order: re-inserting keeps the most recently active platform last
    // (nothing to move when it is last already, as under one platform's load).
    if (ring === undefined || this.latest !== platformId) {
      if (ring) this.rings.delete(platformId);
      else ring = new Ring();
      this.rings.set(platformId, ring);
      this.latest = platformId;
      if (this.rings.size > PLATFORMS_KEPT) this.rings.delete(this.rings.keys().next().value!);
    }
    ring.push(entry);
    this.events.emit('entry', platformId, entry);
  }

  /** The platform's entries, oldest first. */
  entries(platformId: string): RequestLogEntry[] {
    return this.rings.get(platformId)?.all() ?? [];
  }
}

/** The request log of a sandbox. */
export const requestLogOf = perContext((_ctx: SandboxContext) => new RequestLog());

/** The log's own reads are not logged (a `logs --follow` would otherwise see itself). */
const OWN_PATHS = /^\/_sandbox\/logs(\/stream)?\/?$/;

/**
 * Hook on every request (the server's, src/server/app.ts): records each request that
 * authenticated as a platform into that platform's log, with the time it took until its answer
 * was made. A request that names no platform (a 401, the health check, a hosted page) belongs to
 * no platform's log.
 */
export function requestLogRecorder(ctx: SandboxContext): RequestHook {
  const log = requestLogOf(ctx);
  const realTime = new IsoText();
  return {
    after: (c, ms) => {
      const platform = c.get('platform') as { id: string } | undefined;
      if (!platform || OWN_PATHS.test(c.req.path)) return;
      const error = c.get('errorSummary');
      log.record(platform.id, {
        time: realTime.of(ctx.clock.real()),
        sandboxTime: ctx.clock.iso(),
        method: c.req.method,
        path: loggedPath(c.req.path),
        status: c.res.status,
        durationMs: Math.round(ms * 10) / 10,
        requestId: c.get('requestId'),
        ...(error ? { errorCode: error.code, ...(error.field ? { errorField: error.field } : {}) } : {}),
      });
    },
  };
}

/** What a reader filters the log by (each optional). */
export interface RequestLogFilter {
  /** Status classes or codes: `4xx`, `404`, `2xx,5xx`. */
  statuses?: ((status: number) => boolean)[];
  /** A path prefix, at a segment boundary, relative to the API base (`/quotes`) or under `/_sandbox`. */
  path?: string;
  method?: string;
}

const invalid = (field: string, message: string) => new ApiError(400, ErrorCode.INVALID_INPUT, message, { errors: [{ field, constraint: 'pattern', message }] });

/** Parses the query of `GET /_sandbox/logs` and its stream; a bad one is a 400 naming the parameter. */
export function filterOf(query: { status?: string; path?: string; method?: string }): RequestLogFilter {
  const filter: RequestLogFilter = {};
  if (query.status !== undefined) {
    const parts = query.status.split(',').map((part) => part.trim().toLowerCase());
    if (parts.length > 10 || parts.some((part) => !/^[1-5](xx|\d\d)$/.test(part))) {
      throw invalid('status', `status ${query.status} is not a status filter: give classes or codes such as 4xx, 404 or 2xx,5xx.`);
    }
    filter.statuses = parts.map((part) => (part.endsWith('xx') ? (s: number) => Math.floor(s / 100) === Number(part[0]) : (s: number) => s === Number(part)));
  }
  if (query.path !== undefined) {
    if (!/^\/[^\s?#]{0,500}$/.test(query.path)) throw invalid('path', `path ${query.path} is not a path filter: give a path that starts with /, such as /quotes.`);
    filter.path = query.path.replace(/\/+$/, '') || '/';
  }
  if (query.method !== undefined) {
    if (!/^[A-Za-z]{3,7}$/.test(query.method)) throw invalid('method', `method ${query.method} is not an HTTP method.`);
    filter.method = query.method.toUpperCase();
  }
  return filter;
}

/** The path an entry is matched on: relative to the API base (`/2025-10-13/quotes` -> `/quotes`), or as it is. */
const relative = (path: string) => path.replace(/^.*?\/\d{4}-\d{2}-\d{2}(?=\/|$)/, '') || '/';

/** Whether an entry passes a filter. */
export function matches(entry: RequestLogEntry, filter: RequestLogFilter): boolean {
  if (filter.method !== undefined && entry.method !== filter.method) return false;
  if (filter.statuses && !filter.statuses.some((test) => test(entry.status))) return false;
  if (filter.path !== undefined && filter.path !== '/') {
    const path = entry.path.startsWith('/_sandbox') ? entry.path : relative(entry.path);
    if (path !== filter.path && !path.startsWith(`${filter.path}/`)) return false;
  }
  return true;
}

const limitOf = (text: string | undefined, fallback: number): number => {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > REQUEST_LOG_CAPACITY) throw invalid('limit', `limit ${text} is not a number from 0 to ${REQUEST_LOG_CAPACITY}.`);
  return n;
};

/**
 * `GET /_sandbox/logs?status=&path=&method=&limit=`: the calling platform's latest requests that
 * pass the filters, oldest first (at most `limit`, 100 unless told). `GET /_sandbox/logs/stream`
 * (same filters; `backlog=n` sends the latest n first): server-sent events, one `request` message
 * per request as it is answered, after a `ready` message. Behind the control plane's Basic auth.
 */
export function requestLogRoutes(ctx: SandboxContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const log = requestLogOf(ctx);
  const latest = (platformId: string, filter: RequestLogFilter, limit: number) => {
    const kept = log.entries(platformId).filter((entry) => matches(entry, filter));
    return limit === 0 ? [] : kept.slice(-limit);
  };

  app.get('/', (c) => {
    const filter = filterOf(c.req.query());
    const limit = limitOf(c.req.query('limit'), 100);
    return c.json({ data: latest(c.get('platform').id, filter, limit), capacity: REQUEST_LOG_CAPACITY });
  });

  app.get('/stream', (c) => {
    const platformId = c.get('platform').id;
    const filter = filterOf(c.req.query());
    const backlog = limitOf(c.req.query('backlog'), 0);
    return streamSSE(c, async (stream) => {
      await new Promise<void>((resolve) => {
        // The backlog and the subscription in the same turn: no request falls between them.
        const earlier = latest(platformId, filter, backlog);
        const onEntry = (id: string, entry: RequestLogEntry) => {
          if (id === platformId && matches(entry, filter)) void stream.writeSSE({ event: 'request', data: JSON.stringify(entry) });
        };
        log.events.on('entry', onEntry);
        const keepAlive = setInterval(() => void stream.write(': keep-alive\n\n'), 15_000);
        let worker: ReturnType<typeof webhookDelivery> | undefined;
        try {
          worker = webhookDelivery(ctx);
        } catch {
          worker = undefined;
        }
        const done = () => {
          clearInterval(keepAlive);
          log.events.off('entry', onEntry);
          worker?.events.off('stop', done);
          resolve();
        };
        // The sandbox stopping ends the stream (as the change stream's), so close() does not wait on it.
        worker?.events.once('stop', done);
        stream.onAbort(done);
        void stream.writeSSE({ event: 'ready', data: JSON.stringify({ platformId, capacity: REQUEST_LOG_CAPACITY }) });
        for (const entry of earlier) void stream.writeSSE({ event: 'request', data: JSON.stringify(entry) });
      });
    });
  });
  return app;
}
