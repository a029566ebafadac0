import type { Context, Hono } from 'hono';
import type { SandboxContext } from '../store/context.js';
import type { Platform } from '../tenancy/index.js';
import type { ContractOperation } from '../generated/operations.js';
import type { AgentPrincipal, AuthSchemes } from './principals.js';

/** Hono environment of the sandbox: what middleware puts on each request. */
export interface AppEnv {
  Variables: {
    requestId: string;
    /** The authenticated platform (set by the Basic auth middleware). */
    platform: Platform;
    /** The agent of an AgentAuth bearer token (agent operations only). */
    agent: AgentPrincipal;
    ctx: SandboxContext;
    /** The authentication schemes the app asks (registered by the composition root). */
    authSchemes: AuthSchemes;
    /** The contract operation being served (unset outside the API: control plane, hosted pages). */
    operation?: ContractOperation;
    /** The permissions of the API token a request authenticated with (unset for the platform's own credentials). */
    tokenPermissions?: readonly string[];
    /** The scheme a 401 asks for in `WWW-Authenticate` (`Bearer` on AgentAuth operations; Basic otherwise). */
    authScheme: 'Basic' | 'Bearer';
    /** The error code and first field at fault of an error answer (for the request log). */
    errorSummary: { code: string; field?: string };
    /** The request's sandbox warnings (`Service-Sandbox-Warning`); code that may warn runs in `inRequest(c, ...)`. */
    warnings: Set<string>;
  };
}

/** A request context of the sandbox app. */
export type AppContext = Context<AppEnv>;

/** The handler of one contract operation. */
export type OperationHandler = (c: AppContext) => Response | Promise<Response>;

/**
 * What the server mounts of an area: its contract operations' handlers, keyed by operationId,
 * and routes outside the contract served from the root (hosted pages). The contract every area
 * implements (resources/area.ts) extends it; the server itself knows no area.
 */
export interface ServedArea {
  name: string;
  handlers?: Readonly<Record<string, OperationHandler>>;
  extraRoutes?: (ctx: SandboxContext) => Hono<AppEnv>;
}
