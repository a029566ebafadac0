import { EventEmitter } from 'node:events';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { SandboxContext } from '../store/context.js';
import { perContext } from '../core/per-context.js';
import { webhookDelivery, type DeliveryActivity } from '../events/index.js';
import type { AppEnv } from '../server/env.js';
import type { RequestHook } from '../server/app.js';
import { requestHeader } from '../server/headers.js';

/**
 * One change of a platform's state, as the change stream sends it. It says *what* changed, not
 * the new state: a subscriber (the terminal UI) refetches only what it shows.
 * - `request`: a successful write through the API or the control plane (`POST /customers`, ...)
 * - `event`: an event appended to the outbox (any state change with a webhook, jobs included)
 * - `delivery`: a webhook delivery step (attempt outcome, or not sent for want of an endpoint)
 * - `clock`: the sandbox clock moved (it is shared by every platform: `platformId` is null)
 */
export type Change =
  | { kind: 'request'; platformId: string; method: string; path: string; status: number }
  | { kind: 'event'; platformId: string; type: string; resourceId: string | null; eventId: string }
  | { kind: 'delivery'; platformId: string; eventId: string; type: string; state: string }
  | { kind: 'clock'; platformId: null; now: string };

/** The per-sandbox hub every change passes through. */
export class ChangeHub {
  private readonly emitter = new EventEmitter();
  private wired = false;

  constructor(private readonly ctx: SandboxContext) {
    this.emitter.setMaxListeners(0);
  }

  /** Publishes a change to every subscriber. */
  publish(change: Change): void {
    this.emitter.emit('change', change);
  }

  /** Subscribes to every change; returns the unsubscribe function. */
  subscribe(listener: (change: Change) => void): () => void {
    this.wire();
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }

  /** Hooks the outbox and the webhook worker up on first use. */
  private wire(): void {
    if (this.wired) return;
    this.wired = true;
    this.ctx.outbox.subscribe((event) =>
      this.publish({ kind: 'event', platformId: event.platformId, type: event.type, resourceId: event.resourceId, eventId: event.id }),
    );
    let worker;
    try {
      worker = webhookDelivery(this.ctx);
    } catch {
      return; // no delivery worker (a bare context in a unit test)
    }
    worker.events.on('activity', (activity: DeliveryActivity) =>
      this.publish(
        activity.kind === 'attempt'
          ? { kind: 'delivery', platformId: activity.platformId, eventId: activity.result.eventId, type: activity.type, state: activity.result.state }
          : { kind: 'delivery', platformId: activity.platformId, eventId: activity.eventId, type: activity.type, state: 'NO_ENDPOINT' },
      ),
    );
  }
}

/** The change hub of a sandbox. */
export const changeHub = perContext((ctx: SandboxContext) => new ChangeHub(ctx));

/** Marks the in-process requests of a fixture load (they are not "other" requests). */
export const FIXTURE_HEADER = 'X-Sandbox-Fixture';

/** How many requests other than a fixture load's own have started: a load checks that none came in while it ran. */
export const requestsStarted = perContext((_ctx: SandboxContext) => ({ count: 0 }));

const CLOCK_PATHS = /\/_sandbox\/(clock\/advance|clock\/reset|snapshot)$/;

/**
 * Hook on every request (the server's, src/server/app.ts): counts the requests started (a
 * fixture's own excepted), and publishes a `request` change for each successful write, and a
 * `clock` change when the clock moved.
 */
export function changeNotifier(ctx: SandboxContext): RequestHook {
  const hub = changeHub(ctx);
  const started = requestsStarted(ctx);
  return {
    before: (c) => {
      if (requestHeader(c, FIXTURE_HEADER) === undefined) started.count += 1;
    },
    after: (c) => {
      const method = c.req.method;
      if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS' || c.res.status >= 400) return;
      const platform = c.get('platform') as { id: string } | undefined;
      if (platform) hub.publish({ kind: 'request', platformId: platform.id, method, path: c.req.path, status: c.res.status });
      if (CLOCK_PATHS.test(c.req.path)) hub.publish({ kind: 'clock', platformId: null, now: ctx.clock.iso() });
    },
  };
}

/**
 * `GET /_sandbox/changes`: server-sent events, one `change` message per change of the calling
 * platform (and every clock move), after a `ready` message. Behind the control plane's Basic auth.
 */
export function changeRoutes(ctx: SandboxContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/', (c) => {
    const platformId = c.get('platform').id;
    const hub = changeHub(ctx);
    return streamSSE(c, async (stream) => {
      await new Promise<void>((resolve) => {
        const unsubscribe = hub.subscribe((change) => {
          if (change.platformId !== null && change.platformId !== platformId) return;
          void stream.writeSSE({ event: 'change', data: JSON.stringify(change) });
        });
        const keepAlive = setInterval(() => void stream.write(': keep-alive\n\n'), 15_000);
        let worker: ReturnType<typeof webhookDelivery> | undefined;
        try {
          worker = webhookDelivery(ctx);
        } catch {
          worker = undefined;
        }
        const done = () => {
          clearInterval(keepAlive);
          unsubscribe();
          worker?.events.off('stop', done);
          resolve();
        };
        worker?.events.once('stop', done);
        stream.onAbort(done);
        void stream.writeSSE({ event: 'ready', data: JSON.stringify({ platformId, now: ctx.clock.iso() }) });
      });
    });
  });
  return app;
}
