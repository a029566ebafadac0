import type { MiddlewareHandler } from 'hono';
import { ApiError, ErrorCode } from '../core/errors.js';
import type { ContractOperation } from '../generated/operations.js';
import { DECOY_HASH, verifySecret } from '../crypto/secret-hash.js';
import type { AppEnv } from './env.js';
import type { BasicCredentials, PlatformPrincipal } from './principals.js';
import { requestHeader } from './headers.js';

/** Parses `Authorization: Basic base64(clientId:clientSecret)`. */
export function parseBasic(header: string | undefined): BasicCredentials | undefined {
  if (!header) return undefined;
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { clientId: decoded.slice(0, colon), clientSecret: decoded.slice(colon + 1) };
}

/** The request path relative to the API base: `/2025-10-13/customers` -> `/customers`. */
const apiPathOf = (path: string): string => path.replace(/^.*?\/\d{4}-\d{2}-\d{2}(?=\/|$)/, '') || '/';

/**
 * HTTP Basic on every contract operation: the registered Basic schemes (the platform's own
 * credentials, then API tokens) are asked in order; the first that knows the credentials names
 * the platform.
 */
export const basicAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const credentials = parseBasic(requestHeader(c, 'Authorization'));
  if (!credentials) {
    throw new ApiError(401, ErrorCode.UNAUTHORIZED, 'Missing credentials: send HTTP Basic with your client id and client secret.');
  }
  const ctx = c.get('ctx');
  const schemes = c.get('authSchemes').BasicAuth;
  const request = { method: c.req.method, path: apiPathOf(c.req.path) };
  let principal: PlatformPrincipal | undefined;
  for (const scheme of schemes) {
    // Credentials verified before are known at once: no promise to wait for (issue 26).
    const known = scheme.authenticate(ctx, credentials, request);
    principal = known instanceof Promise ? await known : known;
    if (principal) break;
  }
  if (!principal) {
    // An unknown client id costs a scrypt too, so the time of a 401 does not tell which ids exist.
    if (!schemes.some((scheme) => scheme.knows(ctx, credentials.clientId))) await verifySecret(credentials.clientSecret, DECOY_HASH);
    throw new ApiError(401, ErrorCode.UNAUTHORIZED, 'Invalid client id or client secret.');
  }
  if (principal.permissions) c.set('tokenPermissions', principal.permissions);
  c.set('platform', principal.platform);
  await next();
};

/**
 * AgentAuth (`Authorization: Bearer <accessToken>`) for the operations whose contract security
 * is `AgentAuth`: the registered bearer scheme binds the request to the agent and its platform,
 * or answers 401 naming the failed check.
 */
export const agentAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set('authScheme', 'Bearer');
  const principal = c.get('authSchemes').AgentAuth.authenticate(c.get('ctx'), requestHeader(c, 'Authorization'));
  c.set('platform', principal.platform);
  c.set('agent', principal);
  await next();
};

const noAuth: MiddlewareHandler<AppEnv> = async (_c, next) => {
  await next();
};

/**
 * The authentication an operation's contract `security` names: HTTP Basic by default, the
 * AgentAuth bearer for agent operations, none for an empty list (device-code redemption).
 */
export function authenticationFor(op: ContractOperation): MiddlewareHandler<AppEnv> {
  if (op.security === undefined || op.security.includes('BasicAuth')) return basicAuth;
  if (op.security.includes('AgentAuth')) return agentAuth;
  return noAuth;
}
