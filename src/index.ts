import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createContext, type SandboxContext } from './context.js';
import { allMigrations, areas } from './resources/registry.js';
import { platformService, type Platform } from './resources/platform/index.js';
import { BASE_PATH, createApp } from './server/app.js';
import { createLogger, silentLogger, type LogFormat, type Logger } from './server/logger.js';
import { resetPlatformData } from './sandbox/reset.js';
import { stopWebhookDelivery, type OutboxEvent } from './events/index.js';
import { platformConfigUpdate } from './resources/platform/schemas.js';
import {
  SandboxClient,
  type CustomerView,
  type InternalAccountView,
  type KycDecisionInput,
  type NewPlatformOptions,
  type PlatformView,
  type WebhookEvent,
} from './client/index.js';

/** Credentials of the default platform when none are given. */
export const DEFAULT_CLIENT_ID = 'sandbox-client-id';
export const DEFAULT_CLIENT_SECRET = 'sandbox-client-secret';

/** Options of `startSandbox`. */
export interface SandboxOptions {
  /** TCP port; 0 (the default here) picks a free one. */
  port?: number;
  /** Interface to bind; 127.0.0.1 by default. */
  host?: string;
  /** Database file, or `:memory:` (the default here). */
  db?: string;
  clientId?: string;
  clientSecret?: string;
  /** Webhook endpoint of the default platform. */
  webhookUrl?: string;
  /** Request and event logging; silent unless given. */
  logFormat?: LogFormat;
  logger?: Logger;
  /** Source of real time (tests may inject one); the sandbox clock adds its offset. */
  realNow?: () => number;
}

/** A running sandbox. */
export interface RunningSandbox {
  /** `http://127.0.0.1:<port>/2025-10-13`: point the client here. */
  baseUrl: string;
  /** `http://127.0.0.1:<port>`: the control plane lives at `${origin}/_sandbox`. */
  origin: string;
  port: number;
  clientId: string;
  clientSecret: string;
  /** Moves the sandbox clock forward, running every job that falls due; resolves to the new time. */
  advanceClock(seconds: number): Promise<string>;
  /** Wipes the default platform's data. The clock stays where it is (see `resetClock`). */
  reset(): Promise<void>;
  /**
   * Puts the sandbox clock back to real time (offset 0, for every platform), as
   * `POST /_sandbox/clock/reset` does; pending jobs keep their due times. Resolves to the new
   * time. Call it beside `reset()` when each test must start from real time.
   */
  resetClock(): Promise<string>;
  /**
   * Credits an internal account of the default platform at once, as
   * `POST /sandbox/internal-accounts/{id}/fund` does. `target` is an internal account id, or a
   * customer id or `platformCustomerId` (then `currency` picks the account; it may be left out
   * when the customer has one). `amount` is in the smallest unit when a number (`1250`), in
   * major units when a string (`'12.50'`). Resolves to the account with its new balance.
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
   * A reviewer's KYC/KYB decision for a customer of the default platform (id or
   * `platformCustomerId`): the customer and its verification move together and fire the same
   * events as a real review. A decided customer is final (the promise rejects with a 409 saying why).
   */
  decideKyc(customer: string, decision: KycDecisionInput | 'approve' | 'reject' | 'hold'): Promise<{ customer: CustomerView; verification: { id: string; verificationStatus: string } | null }>;
  /**
   * Fires a webhook event type the way the real flow does (`webhooks trigger`): with
   * `resourceId` from that resource's current state, else from a realistic new resource.
   */
  trigger(type: string, resourceId?: string): Promise<WebhookEvent & { resourceId: string | null; status: string }>;
  /**
   * Resolves with the first event of the default platform of `type` (`'*'` for any) that
   * `predicate` accepts, exactly as it is delivered (`{id, type, timestamp, data}`). Events
   * recorded before the call count too (so there is no race with the action that caused it),
   * but each event is handed out once. Rejects after `timeoutMs` (default 5000) of real time,
   * naming the events it saw. Works with or without a webhook endpoint.
   *
   * ```ts
   * await sandbox.advanceClock(30);
   * const event = await sandbox.waitForWebhook('CUSTOMER.KYC_APPROVED', (e) => e.data.id === customer.id);
   * ```
   */
  waitForWebhook<T = any>(type: string, predicate?: (event: WebhookEvent<T>) => boolean, options?: { timeoutMs?: number }): Promise<WebhookEvent<T>>;
  /** Finishes in-flight requests, stops the scheduler and closes the database. */
  close(): Promise<void>;
  /** The internals, for in-process tools (TUI, benchmarks). */
  readonly context: SandboxContext;
}

/**
 * Starts a sandbox on a free port with an in-memory store (by default) and resolves once it
 * accepts requests.
 *
 * ```ts
 * const sandbox = await startSandbox();
 * await fetch(`${sandbox.baseUrl}/config`, { headers: { Authorization: 'Basic ...' } });
 * await sandbox.close();
 * ```
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  checkWebhookUrl(options.webhookUrl);
  const logger = options.logger ?? (options.logFormat ? createLogger(options.logFormat) : silentLogger);
  const ctx = createContext({ db: options.db ?? ':memory:', logger, migrations: allMigrations, realNow: options.realNow });
  let server: Server | undefined;
  try {
    for (const area of areas) area.init?.(ctx);
    const clientId = options.clientId ?? DEFAULT_CLIENT_ID;
    const clientSecret = options.clientSecret ?? DEFAULT_CLIENT_SECRET;
    let platform: Platform = platformService(ctx).ensure({ clientId, clientSecret, webhookEndpoint: options.webhookUrl });
    if (options.webhookUrl && platform.config.webhookEndpoint !== options.webhookUrl) {
      platformService(ctx).updateConfig(platform, { webhookEndpoint: options.webhookUrl });
      platform = platformService(ctx).byId(platform.id)!;
    }
    const app = createApp(ctx, areas);
    const host = options.host ?? '127.0.0.1';
    server = await listen(app.fetch, options.port ?? 0, host);
    ctx.scheduler.start();
    const port = (server.address() as AddressInfo).port;
    const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    const running = server;
    let closed = false;
    const client = new SandboxClient({ origin, clientId, clientSecret, userAgent: 'service-sandbox-helpers' });
    const handedOut = new Set<string>();
    let platforms = 0;
    const waitForWebhook = <T,>(type: string, predicate?: (event: WebhookEvent<T>) => boolean, { timeoutMs = 5000 }: { timeoutMs?: number } = {}) =>
      new Promise<WebhookEvent<T>>((resolve, reject) => {
        const seen: string[] = [];
        let settled = false;
        const offer = (event: OutboxEvent): boolean => {
          if (settled || event.platformId !== platform.id || handedOut.has(event.id)) return false;
          seen.push(event.type);
          if (type !== '*' && event.type !== type) return false;
          const webhook = asWebhook(event) as WebhookEvent<T>;
          try {
            if (predicate && !predicate(webhook)) return false;
          } catch (error) {
            finish();
            reject(error);
            return true;
          }
          handedOut.add(event.id);
          finish();
          resolve(webhook);
          return true;
        };
        const unsubscribe = ctx.outbox.subscribe((event) => void offer(event));
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`no ${type} webhook${predicate ? ' matching the predicate' : ''} within ${timeoutMs} ms; events seen: ${seen.length ? [...new Set(seen)].join(', ') : 'none'}`));
        }, timeoutMs);
        function finish() {
          settled = true;
          clearTimeout(timer);
          unsubscribe();
        }
        for (let after = 0; !settled; ) {
          const batch = ctx.outbox.list(platform.id, after, 500);
          for (const event of batch) if (offer(event)) break;
          if (batch.length < 500) break;
          after = batch.at(-1)!.seq;
        }
      });
    return {
      baseUrl: `${origin}${BASE_PATH}`,
      origin,
      port,
      clientId,
      clientSecret,
      context: ctx,
      advanceClock: async (seconds) => {
        ctx.scheduler.advance(seconds);
        return ctx.clock.iso();
      },
      reset: async () => resetPlatformData(ctx, areas, platform),
      resetClock: async () => {
        ctx.scheduler.resetClock();
        return ctx.clock.iso();
      },
      fund: (target, amount, currency) => client.fund(target, amount, currency),
      createPlatform: async (options = {}) => {
        platforms += 1;
        const created = {
          clientId: options.clientId ?? `platform-${platforms}-${ctx.ids.uuid().slice(-12)}`,
          clientSecret: options.clientSecret ?? `secret-${ctx.ids.uuid()}`,
          ...options,
        };
        return { ...(await client.createPlatform(created as NewPlatformOptions)), clientSecret: created.clientSecret };
      },
      decideKyc: (customer, decision) => client.decideKyc(customer, DECISIONS[decision as keyof typeof DECISIONS] ?? (decision as KycDecisionInput)),
      trigger: (type, resourceId) => client.trigger(type, resourceId),
      waitForWebhook,
      close: async () => {
        if (closed) return;
        closed = true;
        ctx.scheduler.stop();
        await stopWebhookDelivery(ctx);
        await new Promise<void>((resolve) => {
          // Streams (tail, listen) end with delivery; their kept-alive sockets turn idle a moment
          // later and must be closed before a client reuses them, or close() would wait forever.
          const idle = setInterval(() => running.closeIdleConnections(), 50);
          running.close(() => {
            clearInterval(idle);
            resolve();
          });
          running.closeIdleConnections();
        });
        await ctx.close();
      },
    };
  } catch (error) {
    server?.close();
    ctx.scheduler.stop();
    await stopWebhookDelivery(ctx);
    await ctx.close();
    throw error;
  }
}

/** Thrown when an option of `startSandbox` is not valid (e.g. `webhookUrl`); the CLI prints its message as one line. */
export class SandboxOptionError extends Error {}

/** Checks `webhookUrl` exactly as `PATCH /config` checks `webhookEndpoint`. */
function checkWebhookUrl(url: string | undefined): void {
  if (url === undefined) return;
  const result = platformConfigUpdate.shape.webhookEndpoint.safeParse(url);
  if (!result.success) {
    throw new SandboxOptionError(`--webhook-url ${url} is not accepted: ${result.error.issues[0]?.message ?? 'invalid'} (an http or https URL such as http://127.0.0.1:4000/webhooks)`);
  }
}

const asWebhook = (event: OutboxEvent): WebhookEvent => ({ id: event.id, type: event.type, timestamp: event.createdAt, data: event.data });

const DECISIONS = { approve: 'APPROVED', reject: 'REJECTED', hold: 'HOLD' } as const;

/** Thrown when the port cannot be bound; the CLI prints its message as one line. */
export class ListenError extends Error {}

function listen(fetch: (request: Request) => Response | Promise<Response>, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, port, hostname: host }) as Server;
    server.once('listening', () => resolve(server));
    server.once('error', (error: NodeJS.ErrnoException) => {
      const reason =
        error.code === 'EADDRINUSE'
          ? `port ${port} on ${host} is already in use; pick another with --port, or --port 0 for a free one`
          : error.code === 'EACCES'
            ? `no permission to listen on ${host}:${port}; use a port above 1023`
            : error.code === 'EADDRNOTAVAIL'
              ? `${host} is not an address of this machine`
              : error.message;
      reject(new ListenError(reason));
    });
  });
}

export { createLogger, silentLogger };
export type { Logger, LogFormat, SandboxContext };
export type { CustomerView, InternalAccountView, KycDecisionInput, NewPlatformOptions, PlatformView, WebhookEvent } from './client/index.js';
export { SandboxHttpError } from './client/index.js';
