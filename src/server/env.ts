import type { Context } from 'hono';
import type { SandboxContext } from '../store/context.js';
import type { Platform } from '../tenancy/index.js';
import type { AgentPrincipal } from '../resources/agents/index.js';
import type { Permission } from '../resources/tokens/schemas.js';
import type { ContractOperation } from '../generated/operations.js';

/** Hono environment of the sandbox: what middleware puts on each request. */
export interface AppEnv {
  Variables: {
    requestId: string;
    /** The authenticated platform (set by the Basic auth middleware). */
    platform: Platform;
    /** The agent of an AgentAuth bearer token (agent operations only). */
    agent: AgentPrincipal;
    ctx: SandboxContext;
    /** The contract operation being served (unset outside the API: control plane, hosted pages). */
    operation?: ContractOperation;
    /** The permissions of the API token a request authenticated with (unset for the platform's own credentials). */
    tokenPermissions?: readonly Permission[];
    /** The scheme a 401 asks for in `WWW-Authenticate` (`Bearer` on AgentAuth operations; Basic otherwise). */
    authScheme: 'Basic' | 'Bearer';
    /** The error code and first field at fault of an error answer (for the request log). */
    errorSummary: { code: string; field?: string };
  };
}

/** A request context of the sandbox app. */
export type AppContext = Context<AppEnv>;

/** The handler of one contract operation. */
export type OperationHandler = (c: AppContext) => Response | Promise<Response>;
