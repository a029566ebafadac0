import type { MiddlewareHandler } from 'hono';
import { ApiError, ErrorCode } from '../core/errors.js';
import { platformService } from '../tenancy/index.js';
import { agentBearerAuth } from '../resources/agents/index.js';
import type { ContractOperation } from '../generated/operations.js';
import { apiTokenExists, authenticateApiToken } from '../resources/tokens/index.js';
import { DECOY_HASH, verifySecret } from '../crypto/secret-hash.js';
import type { AppEnv } from './env.js';

/** Parses `Authorization: Basic base64(clientId:clientSecret)`. */
export function parseBasic(header: string | undefined): { clientId: string; clientSecret: string } | undefined {
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

/** HTTP Basic on every contract operation: the credentials identify the platform. */
export const basicAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const credentials = parseBasic(c.req.header('Authorization'));
  if (!credentials) {
    throw new ApiError(401, ErrorCode.UNAUTHORIZED, 'Missing credentials: send HTTP Basic with your client id and client secret.');
  }
  const platforms = platformService(c.get('ctx'));
  let platform = await platforms.authenticate(credentials.clientId, credentials.clientSecret);
  if (!platform) {
    // API tokens (`POST /tokens`) are further credentials of a platform, with their permissions enforced.
    const token = await authenticateApiToken(c.get('ctx'), credentials.clientId, credentials.clientSecret, { method: c.req.method, path: apiPathOf(c.req.path) }, (id) =>
      platforms.byId(id),
    );
    if (token) c.set('tokenPermissions', token.permissions);
    platform = token?.platform;
  }
  if (!platform) {
    // An unknown client id costs a scrypt too, so the time of a 401 does not tell which ids exist.
    const ctx = c.get('ctx');
    if (!platforms.byClientId(credentials.clientId) && !apiTokenExists(ctx, credentials.clientId)) await verifySecret(credentials.clientSecret, DECOY_HASH);
    throw new ApiError(401, ErrorCode.UNAUTHORIZED, 'Invalid client id or client secret.');
  }
  c.set('platform', platform);
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
  if (op.security.includes('AgentAuth')) return agentBearerAuth;
  return noAuth;
}
