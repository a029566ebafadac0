import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createContext, type SandboxContext } from './store/context.js';
import { StoreOpenError, type Migration } from './store/db.js';
import { idempotencyMigrations } from './store/idempotency.js';
import { jobMigrations } from './store/jobs.js';
import { metaMigrations } from './store/meta.js';
import { outboxMigrations } from './store/outbox.js';
import { coverageMigrations, coverageRecorder } from './store/coverage.js';
import { platformConfigUpdate, platformService, type Platform } from './tenancy/index.js';
import { createServer, type RequestHook } from './server/app.js';
import type { AppEnv } from './server/env.js';
import type { AuthSchemes } from './server/principals.js';
import { createLogger, silentLogger, type LogFormat, type Logger } from './core/logger.js';
import { stopWebhookDelivery, webhookPublicKey as publicKeyOf } from './events/index.js';
import type { Area } from './resources/area.js';
import { platformArea, platformCredentialsScheme } from './resources/platform/index.js';
import { internalAccountsArea } from './resources/internal-accounts/index.js';
import { customersArea } from './resources/customers/index.js';
import { kycArea } from './resources/kyc/index.js';
import { webhooksArea } from './resources/webhooks/index.js';
import { externalAccountsArea } from './resources/external-accounts/index.js';
import { discoveriesArea } from './resources/discoveries/index.js';
import { ledgerArea } from './resources/ledger/index.js';
import { transactionsArea } from './resources/transactions/index.js';
import { transfersArea } from './resources/transfers/index.js';
import { umaArea } from './resources/uma/index.js';
import { vaspsArea } from './resources/vasps/index.js';
import { cryptoWithdrawalsArea } from './resources/crypto-withdrawals/index.js';
import { ratesArea } from './resources/rates/index.js';
import { quotesArea } from './resources/quotes/index.js';
import { cardsArea } from './resources/cards/index.js';
import { invitationsArea } from './resources/invitations/index.js';
import { stablecoinsArea } from './resources/stablecoins/index.js';
import { scaArea } from './resources/sca/index.js';
import { agentBearerScheme, agentsArea } from './resources/agents/index.js';
import { walletAuthArea } from './resources/wallet-auth/index.js';
import { apiTokenScheme, tokensArea } from './resources/tokens/index.js';
import { controlPlane } from './control/routes.js';
import { changeNotifier } from './control/changes.js';
import { requestLogRecorder } from './control/request-log.js';
import { applyFixtures, type FixtureSummary } from './control/fixtures.js';
import { checkSnapshot, exportSnapshot, importSnapshot } from './control/snapshot.js';
import { runCoverageReport } from './control/coverage.js';
import type { CoverageReport } from './core/coverage-report.js';
import { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET } from './client/index.js';
import { sandboxHelpers, type SandboxHelpers } from './client/helpers.js';

// The composition root: the one place that lists every area, guard, authentication scheme and
// the control plane, and wires them into an app. Everything it imports points down
// (ARCHITECTURE.md); nothing below imports it.

/**
 * The areas of the API, in mount order (their migrations run in this order too). A new area is
 * one line here. The guards (sca, agents, wallet-auth, tokens) are areas too: importing them
 * registers each guard with the areas it guards.
 * @internal
 */
export const areas: readonly Area[] = [
  platformArea,
  internalAccountsArea,
  customersArea,
  kycArea,
  webhooksArea,
  externalAccountsArea,
  discoveriesArea,
  ledgerArea,
  transactionsArea,
  transfersArea,
  umaArea,
  vaspsArea,
  cryptoWithdrawalsArea,
  ratesArea,
  quotesArea,
  scaArea,
  cardsArea,
  agentsArea,
  walletAuthArea,
  tokensArea,
  invitationsArea,
  stablecoinsArea,
];

/**
 * Every migration: the infrastructure's first, then each area's, in the order of `areas`.
 * @internal
 */
export const allMigrations: readonly Migration[] = [
  ...metaMigrations,
  ...jobMigrations,
  ...idempotencyMigrations,
  ...outboxMigrations,
  ...coverageMigrations,
  ...areas.flatMap((area) => area.migrations),
];

/** How requests authenticate: HTTP Basic asks the platform's own credentials, then API tokens; AgentAuth asks the agents' bearer tokens. */
const authSchemes: AuthSchemes = {
  BasicAuth: [platformCredentialsScheme, apiTokenScheme],
  AgentAuth: agentBearerScheme,
};

/**
 * The sandbox's hono app over a context: the server (src/server/) with these areas, the
 * authentication schemes, the change stream's notifier and the control plane under `/_sandbox`.
 * @internal
 */
export function createApp(ctx: SandboxContext, areaList: readonly Area[]): Hono<AppEnv> {
  return createServer(ctx, {
    areas: areaList,
    auth: authSchemes,
    hooks: [changeNotifier(ctx), requestLogRecorder(ctx), runJobsDueOnStillClock(ctx)],
    // A fixture's in-process API calls go through an app of their own, built when a fixture is applied.
    routes: { '/_sandbox': controlPlane(ctx, areaList, async () => createApp(ctx, areaList).fetch) },
  });
}

/**
 * A still clock (`clockStart`) runs the jobs due now before each request, so a job due at once
 * has run before the next request is served, whatever the turn of its timer.
 */
function runJobsDueOnStillClock(ctx: SandboxContext): RequestHook {
  return {
    before: () => {
      if (ctx.clock.still) ctx.scheduler.runDueNow();
    },
  };
}

/** Credentials of the default platform when none are given. */
export { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET };

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
  /**
   * Makes every generated value (ids, keys, secrets, tokens) a function of this seed and the
   * order of requests (see docs/testing.md, "Reproducible runs").
   */
  seed?: string | number;
  /**
   * Starts the sandbox clock at this instant (an ISO 8601 string, a Date or ms since the epoch),
   * standing still: it moves only by `advanceClock` (and a snapshot import).
   */
  clockStart?: string | number | Date;
  /** A snapshot file (made by `export`) restored into the default platform before the sandbox listens. */
  importFile?: string;
  /** A file the default platform's snapshot is written to when `close()` is called (after in-flight requests finish). */
  exportOnExit?: string;
  /** Integration coverage recording (`GET /_sandbox/coverage`); on unless false or `SERVICE_SANDBOX_COVERAGE=off`. */
  coverage?: boolean;
}

/**
 * A running sandbox in this process: the typed helpers of `SandboxHelpers` (the same ones
 * `connectSandbox()` gives for a sandbox in another process, acting on the default platform
 * through the contract and the control plane), plus what only the process that started it has.
 */
export interface RunningSandbox extends SandboxHelpers {
  port: number;
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
  const seed = seedOf(options.seed);
  const clockStart = clockStartOf(options.clockStart);
  const logger = options.logger ?? (options.logFormat ? createLogger(options.logFormat) : silentLogger);
  const ctx = createContext({ db: options.db ?? ':memory:', logger, migrations: allMigrations, realNow: options.realNow, seed, clockStart });
  let server: Server | undefined;
  try {
    coverageRecorder(ctx).enabled = options.coverage ?? process.env.SERVICE_SANDBOX_COVERAGE !== 'off';
    for (const area of areas) area.init?.(ctx);
    const clientId = options.clientId ?? DEFAULT_CLIENT_ID;
    const clientSecret = options.clientSecret ?? DEFAULT_CLIENT_SECRET;
    let platform: Platform = platformService(ctx).ensure({ clientId, clientSecret, webhookEndpoint: options.webhookUrl });
    if (options.importFile !== undefined) platform = importAtStart(ctx, platform, options.importFile);
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
    const helpers = sandboxHelpers({ origin, clientId, clientSecret, userAgent: 'service-sandbox-helpers' });
    return {
      ...helpers,
      port,
      context: ctx,
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
        try {
          if (options.exportOnExit !== undefined) exportOnExit(ctx, clientId, options.exportOnExit);
        } finally {
          coverageRecorder(ctx).flush();
          await ctx.close();
        }
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

/** `importFile`: the snapshot restored into the default platform, as `POST /_sandbox/snapshot` does; a problem is a SandboxOptionError naming the file. */
function importAtStart(ctx: SandboxContext, platform: Platform, file: string): Platform {
  let snapshot;
  try {
    snapshot = checkSnapshot(JSON.parse(readFileSync(file, 'utf8')) as unknown);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : error instanceof SyntaxError ? `not JSON (${error.message})` : (error as Error).message;
    throw new SandboxOptionError(`--import ${file}: ${reason}`);
  }
  try {
    const { platformId } = importSnapshot(ctx, areas, platform, snapshot);
    return platformService(ctx).byId(platformId)!;
  } catch (error) {
    throw new SandboxOptionError(`--import ${file}: ${(error as Error).message}`);
  }
}

/**
 * `exportOnExit`: the default platform's snapshot, written whole or not at all (to a temporary
 * file beside it, then renamed), so a stop never leaves half a file.
 */
function exportOnExit(ctx: SandboxContext, clientId: string, file: string): void {
  const platform = platformService(ctx).list().find((p) => p.clientId === clientId);
  if (!platform) return;
  const text = JSON.stringify(exportSnapshot(ctx, areas, platform));
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, text);
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new SandboxOptionError(`--export-on-exit ${file}: cannot write it (${(error as Error).message})`);
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

/** Checks a seed: a number or text, 1 to 256 characters. */
function seedOf(seed: string | number | undefined): string | undefined {
  if (seed === undefined) return undefined;
  const text = String(seed);
  if (text.length === 0 || text.length > 256 || (typeof seed === 'number' && !Number.isSafeInteger(seed))) {
    throw new SandboxOptionError(`--seed ${text} is not accepted: give a number or a word of 1 to 256 characters (e.g. --seed 42)`);
  }
  return text;
}

/** Parses a clock start: an ISO 8601 instant with a time zone (or a Date, or ms since the epoch). */
function clockStartOf(start: string | number | Date | undefined): number | undefined {
  if (start === undefined) return undefined;
  const ms =
    start instanceof Date ? start.getTime()
    : typeof start === 'number' ? start
    : /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(start) ? Date.parse(start)
    : Number.NaN;
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > Date.parse('9999-12-31T00:00:00Z')) {
    throw new SandboxOptionError(`--clock-start ${String(start)} is not accepted: give an ISO 8601 instant such as 2030-01-01T00:00:00Z (or a date, 2030-01-01, for its midnight UTC)`);
  }
  return ms;
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
export type { CustomerView, InternalAccountView, KycDecisionInput, NewPlatformOptions, PlatformView, WebhookEvent } from './client/index.js';
export { SandboxHttpError, SandboxUnreachableError } from './client/index.js';
export type { CoverageReport, OperationCoverage, RuleCoverage, WebhookCoverage } from './core/coverage-report.js';
export { connectSandbox, DEFAULT_WAIT_MS, type SandboxCredentials, type SandboxHelpers, type WaitForWebhookOptions, type KycDecisionResult, type KycDecisionWord, type TriggeredEvent } from './client/helpers.js';

/** Thrown when the database file cannot be opened; the CLI prints its message as one line. */
export { StoreOpenError };

// For the tools that run a sandbox in this process (the CLI's start, exec and UI): not part of
// the package's published types.

/**
 * The sandbox's webhook signing public key (SPKI PEM), for the start banner.
 * @internal
 */
export function webhookPublicKey(sandbox: RunningSandbox): string {
  return publicKeyOf(sandbox.context);
}

/**
 * The webhook endpoint of the platform with this client id (from --webhook-url or an earlier PATCH /config).
 * @internal
 */
export function platformWebhookEndpoint(sandbox: RunningSandbox, clientId: string): string | undefined {
  return platformService(sandbox.context).list().find((p) => p.clientId === clientId)?.config.webhookEndpoint;
}

/**
 * Applies a fixture document to a sandbox of this process through an app of its own, as
 * `POST /_sandbox/fixtures` does (`start --fixtures`).
 * @internal
 */
export function applyFixturesInProcess(sandbox: RunningSandbox, document: unknown, options: { file: string; clientId: string; clientSecret: string }): Promise<FixtureSummary> {
  return applyFixtures(sandbox.context, createApp(sandbox.context, areas).fetch, document, options);
}

/**
 * Everything a sandbox of this process recorded as integration coverage: every platform, reset
 * ones included (`exec --coverage`). Call it before `close()`.
 * @internal
 */
export function runCoverage(sandbox: RunningSandbox): CoverageReport {
  return runCoverageReport(sandbox.context);
}

/** @internal */
export type { FaultRule } from './server/faults.js';
/** @internal */
export type { AttemptResult as DeliveryAttemptResult } from './events/index.js';
/** @internal */
export type { DeliveryView } from './resources/webhooks/index.js';
