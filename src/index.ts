import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createContext, type SandboxContext } from './context.js';
import { allMigrations, areas } from './resources/registry.js';
import { platformService, type Platform } from './resources/platform/index.js';
import { BASE_PATH, createApp } from './server/app.js';
import { createLogger, silentLogger, type LogFormat, type Logger } from './server/logger.js';
import { resetPlatformData } from './sandbox/reset.js';
import { stopWebhookDelivery } from './events/index.js';

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
  /** Wipes the default platform's data. */
  reset(): Promise<void>;
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
      close: async () => {
        if (closed) return;
        closed = true;
        ctx.scheduler.stop();
        await stopWebhookDelivery(ctx);
        await new Promise<void>((resolve) => {
          running.close(() => resolve());
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
