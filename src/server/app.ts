import { Hono, type Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { HTTPException } from 'hono/http-exception';
import { ApiError, ErrorCode, retryHint } from '../core/errors.js';
import { collectingWarnings, MAX_WARNINGS_SHOWN, WARNING_HEADER, warningHeader, warnUnknownParameters } from '../core/warnings.js';
import type { SandboxContext } from '../store/context.js';
import { coverageRecorder } from '../store/coverage.js';
import { CONTRACT_VERSION, operations, toHonoPath, type ContractOperation } from '../generated/operations.js';
import { authenticationFor } from './auth.js';
import { bodyLimits, DEFAULT_BODY_LIMIT } from './body-limits.js';
import { faultGate } from './faults.js';
import { lingerOnClose } from './linger.js';
import { RememberingRouter } from './remembering-router.js';
import type { AppContext, AppEnv, OperationHandler, ServedArea } from './env.js';
import type { AuthSchemes } from './principals.js';
import type { IncomingMessage } from 'node:http';
import type { MiddlewareHandler } from 'hono';
import { requestHeader, setResponseHeader } from './headers.js';

/** The API's base path; it is also served under any prefix that ends in it. */
export const BASE_PATH = `/${CONTRACT_VERSION}`;

/** Strips any prefix before `/2025-10-13`, so `/grid/2025-10-13/config` routes as `/2025-10-13/config`. */
export function normalizePath(pathname: string): string {
  const at = pathname.indexOf(`${BASE_PATH}/`);
  if (at > 0) return pathname.slice(at);
  if (pathname.endsWith(BASE_PATH) && pathname.length > BASE_PATH.length) return BASE_PATH;
  return pathname;
}

function pathOf(request: Request): string {
  const url = request.url;
  const start = url.indexOf('/', url.indexOf('://') + 3);
  if (start < 0) return '/';
  const query = url.indexOf('?', start);
  return normalizePath(query < 0 ? url.slice(start) : url.slice(start, query));
}

const shapeOf = (path: string) => path.split('/').map((segment) => (segment.startsWith('{') ? 1 : 0));

/**
 * A total order on paths: compared segment by segment, a static segment sorts before a
 * parameter, so `/customers/end-user-terms` wins over `/customers/{customerId}`.
 */
function bySpecificity(a: string, b: string): number {
  const as = shapeOf(a);
  const bs = shapeOf(b);
  for (let i = 0; i < Math.min(as.length, bs.length); i += 1) {
    if (as[i] !== bs[i]) return as[i]! - bs[i]!;
  }
  return as.length - bs.length;
}

/** Which contract operations have a handler, and which answer 501. */
export interface Coverage {
  implemented: ContractOperation[];
  notImplemented: ContractOperation[];
}

/** Computes coverage from the areas' handler maps; unknown operationIds are a startup error. */
export function coverageOf(areas: readonly ServedArea[]): Coverage & { handlers: Map<string, OperationHandler> } {
  const known = new Set(operations.map((op) => op.operationId));
  const handlers = new Map<string, OperationHandler>();
  for (const area of areas) {
    for (const [operationId, handler] of Object.entries(area.handlers ?? {})) {
      if (!known.has(operationId)) throw new Error(`area ${area.name} handles ${operationId}, which the contract does not define`);
      if (handlers.has(operationId)) throw new Error(`${operationId} is handled by two areas`);
      handlers.set(operationId, handler);
    }
  }
  return {
    handlers,
    implemented: operations.filter((op) => handlers.has(op.operationId)),
    notImplemented: operations.filter((op) => !handlers.has(op.operationId)),
  };
}

const notImplemented =
  (op: ContractOperation): OperationHandler =>
  () => {
    throw new ApiError(501, ErrorCode.NOT_IMPLEMENTED, `${op.operationId} (${op.method} ${op.path}) is not implemented in service-sandbox yet.`, {
      operationId: op.operationId,
    });
  };

/**
 * The request path as the log shows it (and `GET /_sandbox/logs` keeps it): one-time credentials
 * in paths are masked, like OTPs and secrets, which never reach a log: an agent's device code
 * (whoever holds it can redeem the agent's token) and the tokens of hosted pages (KYC links and
 * their sessions, SCA resets, ownership checks).
 */
export const loggedPath = (path: string): string =>
  // One test on every request; the replacements only where a secret may be.
  !/\/agents\/device-codes\/|\/hosted\//.test(path)
    ? path
    : path
        .replace(/(\/agents\/device-codes\/)[^/]+/, '$1[redacted]')
        .replace(/(\/hosted\/kyc\/(?:session\/)?)[^/]+/, '$1[redacted]')
        .replace(/(\/hosted\/(?:sca-reset|ownership)\/[^/]+\/)[^/]+/, '$1[redacted]');

/**
 * Runs after an operation's authentication, before its handler: names the operation being served
 * (`c.get('operation')`), warns about each query parameter its contract does not define
 * (`?limt=5` is ignored, as the service ignores it, and the answer says so), then applies the
 * body limit (which reads nothing).
 */
function operationGate(op: ContractOperation, limits: MiddlewareHandler<AppEnv>): MiddlewareHandler<AppEnv> {
  const known = new Set(op.query ?? []);
  return (c, next) => {
    c.set('operation', op);
    const url = c.req.url;
    const start = url.indexOf('?');
    if (start >= 0 && start < url.length - 1) {
      const end = url.indexOf('#', start);
      const given = new Set(new URLSearchParams(url.slice(start + 1, end < 0 ? undefined : end)).keys());
      collectingWarnings(c.get('warnings'), () => warnUnknownParameters(given, known));
    }
    return limits(c, next);
  };
}

/**
 * Closes the connection after an answer given before a large or open-ended request body arrived
 * (a 401 to an unauthenticated upload, a 413, a 404): the rest of the body is then never read,
 * instead of being drained before the connection could serve another request. A body of declared
 * length up to DEFAULT_BODY_LIMIT is drained instead (node reads it to its end once the answer is
 * sent, and drops it): a client still writing it then gets the answer whole, where a connection
 * closed under its upload could end in a reset before the answer is read (a 400 about a query
 * parameter, given before a 1 MB body was read). The close lingers (linger.ts): a client still
 * writing reads its answer before the connection goes.
 */
function closeIfBodyUnread(c: Context<AppEnv>): void {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming || incoming.complete || typeof incoming.headers !== 'object') return;
  const length = incoming.headers['content-length'];
  const chunked = incoming.headers['transfer-encoding'] !== undefined;
  if (length === undefined && !chunked) return;
  if (!chunked && Number(length) <= DEFAULT_BODY_LIMIT) return;
  c.res.headers.set('Connection', 'close');
  if (incoming.socket) lingerOnClose(incoming.socket);
}

/** Serializes an ApiError: the one place an error body is written. */
function sendError(c: Context<AppEnv>, error: ApiError): Response {
  if (error.status === 401) c.header('WWW-Authenticate', `${c.get('authScheme') ?? 'Basic'} realm="service-sandbox"`);
  const hint = retryHint(error);
  if (hint) {
    c.header('x-should-retry', String(hint.shouldRetry));
    if (hint.retryAfterSeconds !== undefined) c.header('Retry-After', String(hint.retryAfterSeconds));
  }
  const field = (error.details?.errors as { field?: string }[] | undefined)?.[0]?.field;
  c.set('errorSummary', field ? { code: error.code, field } : { code: error.code });
  return c.json(error.toBody(), error.status as ContentfulStatusCode);
}

/**
 * Work around every request that needs no middleware level of its own: each hook's `before` runs
 * once the request has its id and context, before anything routes it; each `after` (last hook's
 * first) once its answer is made, before the answer waits for the group commit, with the
 * milliseconds the request took so far. Called from the server's own first middleware: three
 * middlewares of their own cost a create about 2 µs of promises and dispatch (issue 26).
 */
export interface RequestHook {
  before?(c: AppContext): void;
  after?(c: AppContext, ms: number): void;
}

/** What an app serves besides the contract operations' plumbing, as the composition root (src/index.ts) assembles it. */
export interface ServerOptions {
  /** The areas whose handlers serve the contract's operations (the rest answer 501). */
  areas: readonly ServedArea[];
  /** The authentication schemes each operation's contract `security` names. */
  auth: AuthSchemes;
  /** What runs around every request (the change stream's notifier, the request log): see `RequestHook`. */
  hooks?: readonly RequestHook[];
  /** Apps outside the contract by base path (the control plane under `/_sandbox`), mounted before the areas' own routes. */
  routes?: Readonly<Record<string, Hono<AppEnv>>>;
}

/**
 * Builds the sandbox's hono app: request ids and logging, the routes outside the contract (the
 * control plane under `/_sandbox`), and every contract operation under `/2025-10-13` behind its
 * contract authentication, implemented or 501.
 */
export function createServer(ctx: SandboxContext, options: ServerOptions): Hono<AppEnv> {
  const { areas, auth } = options;
  const app = new Hono<AppEnv>({ getPath: pathOf, router: new RememberingRouter() });
  const coverage = coverageRecorder(ctx);
  const hooks = options.hooks ?? [];

  app.use('*', async (c, next) => {
    const started = performance.now();
    const requestId = ctx.requestIds.next('Request');
    c.set('requestId', requestId);
    c.set('ctx', ctx);
    c.set('authSchemes', auth);
    const warnings = new Set<string>();
    c.set('warnings', warnings);
    for (const hook of hooks) hook.before?.(c);
    await next();
    closeIfBodyUnread(c);
    const answered = performance.now() - started;
    for (let i = hooks.length - 1; i >= 0; i -= 1) hooks[i]!.after?.(c, answered);
    // Integration coverage: each contract operation a platform called, with the status answered.
    const op = c.get('operation');
    if (op !== undefined) {
      const platform = c.get('platform') as { id: string } | undefined;
      if (platform !== undefined) coverage.recordOperation(platform.id, op.operationId, c.res.status);
    }
    // Group commit: the answer leaves once what the request wrote (or read) is committed.
    const committed = ctx.committed();
    if (committed !== undefined) await committed;
    const ms = performance.now() - started;
    setResponseHeader(c, 'X-Request-Id', requestId);
    // The sandbox's own measure of the request (what a latency fault adds shows here).
    setResponseHeader(c, 'Server-Timing', `app;dur=${ms.toFixed(1)}`);
    ctx.logger.request({
      method: c.req.method,
      path: loggedPath(c.req.path),
      status: c.res.status,
      ms,
      requestId,
      error: c.get('errorSummary'),
      fromCli: requestHeader(c, 'User-Agent') === 'service-sandbox-cli',
    });
    if (warnings.size) {
      setResponseHeader(c, WARNING_HEADER, warningHeader(warnings));
      let logged = 0;
      for (const warning of warnings) {
        if (logged === MAX_WARNINGS_SHOWN) {
          ctx.logger.warn(`and ${warnings.size - logged} more warnings`, { requestId });
          break;
        }
        ctx.logger.warn(warning, { requestId });
        logged += 1;
      }
    }
  });

  // Contract operations bound their bodies after authentication (below); everything else here.
  const limits = bodyLimits(normalizePath);
  app.use('*', (c, next) => (c.req.path.startsWith(`${BASE_PATH}/`) ? next() : limits(c, next)));

  for (const [path, routes] of Object.entries(options.routes ?? {})) app.route(path, routes);
  for (const area of areas) if (area.extraRoutes) app.route('/', area.extraRoutes(ctx));

  const api = new Hono<AppEnv>();
  const { handlers } = coverageOf(areas);
  const byPath = new Map<string, ContractOperation[]>();
  for (const op of operations) byPath.set(op.path, [...(byPath.get(op.path) ?? []), op]);
  const paths = [...byPath.keys()].sort(bySpecificity);
  for (const path of paths) {
    const ops = byPath.get(path)!;
    const honoPath = toHonoPath(path);
    // Each operation authenticates as its contract `security` says (Basic, AgentAuth bearer, or
    // none), before anything looks at its body: an unauthenticated request is answered from its headers.
    for (const op of ops) {
      api.on(op.method, honoPath, authenticationFor(op), operationGate(op, limits), faultGate(op, BASE_PATH), handlers.get(op.operationId) ?? notImplemented(op));
    }
    const allowed = ops.map((op) => op.method).join(', ');
    // A method the path does not have: 405 with `Allow`, whatever the credentials (which the
    // path's operations may not even share: Basic or an agent's bearer token), body unread.
    api.all(honoPath, (c) => {
      c.header('Allow', allowed);
      throw new ApiError(405, ErrorCode.METHOD_NOT_ALLOWED, `${c.req.method} is not allowed on ${path}; use ${allowed}.`);
    });
  }
  app.route(BASE_PATH, api);

  app.notFound((c) =>
    sendError(c, new ApiError(
      404,
      ErrorCode.NOT_FOUND,
      c.req.path.startsWith(BASE_PATH)
        ? `No operation at ${c.req.method} ${c.req.path}.`
        : `No route at ${c.req.path}; the API is served under ${BASE_PATH}.`,
    )),
  );

  app.onError((error, c) => {
    if (error instanceof ApiError) return sendError(c, error);
    if (error instanceof HTTPException && error.status < 500) {
      return sendError(c, new ApiError(error.status, ErrorCode.INVALID_INPUT, error.message || 'The request is not valid.'));
    }
    const requestId = c.get('requestId');
    ctx.logger.error('unexpected error', { requestId, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    return sendError(
      c,
      new ApiError(500, ErrorCode.INTERNAL_ERROR, 'An unexpected error occurred in the sandbox. Please report it with the request id.', { requestId }),
    );
  });

  return app;
}
