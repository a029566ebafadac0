import { ApiError, ErrorCode, notFound } from '../../core/errors.js';
import { paginate, type Page } from '../../core/pagination.js';
import { perContext } from '../../core/per-context.js';
import type { SandboxContext } from '../../store/context.js';
import { hashSecret, needsRehash, VerifiedSecrets, verifySecret } from '../../crypto/secret-hash.js';
import type { BasicScheme } from '../../server/principals.js';
import { platformService, type Platform } from '../../tenancy/index.js';
import { requiredPermission } from './permissions.js';
import { ApiTokenRepo, type ApiTokenRow, type TokenFilters } from './repo.js';
import type { ApiTokenCreateRequest, Permission, TokensQuery } from './schemas.js';

/** The contract's `ApiToken` (`clientSecret` only in the answer to its creation). */
export interface ApiTokenView {
  id: string;
  name: string;
  permissions: Permission[];
  clientId: string;
  clientSecret?: string;
  createdAt: string;
  updatedAt: string;
}

const repoOf = perContext((ctx: SandboxContext) => new ApiTokenRepo(ctx.db));
/** Token credentials verified lately, per sandbox (see VerifiedSecrets). */
const verifiedOf = perContext((_ctx: SandboxContext) => new VerifiedSecrets());

const present = (row: ApiTokenRow): ApiTokenView => ({
  id: row.id,
  name: row.name,
  permissions: JSON.parse(row.permissions) as Permission[],
  clientId: row.client_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** `POST /tokens`: a new token; the answer carries the client secret, which is never shown again. */
export async function createToken(ctx: SandboxContext, platform: Platform, request: ApiTokenCreateRequest, callerPermissions?: readonly string[]): Promise<ApiTokenView> {
  // A token may mint tokens (MANAGE) but not with more than it holds itself: no way from a MANAGE-only token to TRANSACT.
  const beyond = callerPermissions ? [...new Set(request.permissions)].filter((p) => !callerPermissions.includes(p)) : [];
  if (beyond.length > 0) {
    throw new ApiError(403, ErrorCode.FORBIDDEN, `An API token cannot create a token with permissions it does not hold itself: ${beyond.join(', ')}.`, {
      permissions: beyond,
    });
  }
  // 256 bits of the sandbox's random source (the OS's CSPRNG; with --seed, the seed's stream).
  const clientSecret = Buffer.from(ctx.random.bytes(32)).toString('hex');
  // Stored as every client secret is (salted scrypt), although 256 random bits leave nothing to guess.
  const secretHash = await hashSecret(clientSecret, ctx.random);
  const now = ctx.clock.iso();
  const id = ctx.ids.next('Token');
  const row: ApiTokenRow = {
    id,
    platform_id: platform.id,
    name: request.name,
    permissions: JSON.stringify([...new Set(request.permissions)]),
    client_id: id.slice(id.indexOf(':') + 1).replaceAll('-', ''),
    secret_hash: secretHash,
    created_at: now,
    updated_at: now,
  };
  ctx.tx(() => repoOf(ctx).insert(row));
  verifiedOf(ctx).remember(row.client_id, clientSecret, secretHash);
  return { ...present(row), clientSecret };
}

const iso = (value: string | undefined) => (value === undefined ? undefined : new Date(value).toISOString());

/** `GET /tokens`: the platform's tokens in creation order, never with a secret. */
export function listTokens(ctx: SandboxContext, platform: Platform, query: TokensQuery): Page<ApiTokenView> {
  const filters: TokenFilters = {
    name: query.name,
    createdAfter: iso(query.createdAfter),
    createdBefore: iso(query.createdBefore),
    updatedAfter: iso(query.updatedAfter),
    updatedBefore: iso(query.updatedBefore),
  };
  const repo = repoOf(ctx);
  return paginate(
    query,
    ({ afterKey, take }) => repo.page(platform.id, filters, afterKey, take),
    () => repo.count(platform.id, filters),
    (row) => row.id,
    present,
  );
}

/** `GET /tokens/{tokenId}`; another platform's token is `404 TOKEN_NOT_FOUND`. */
export function getToken(ctx: SandboxContext, platform: Platform, tokenId: string): ApiTokenView {
  const row = repoOf(ctx).byId(platform.id, tokenId);
  if (!row) throw notFound('TOKEN_NOT_FOUND', `Token ${tokenId} not found.`);
  return present(row);
}

/** `DELETE /tokens/{tokenId}`: its credentials stop working on the very next request. */
export function deleteToken(ctx: SandboxContext, platform: Platform, tokenId: string): void {
  const deleted = ctx.tx(() => repoOf(ctx).delete(platform.id, tokenId));
  if (!deleted) throw notFound('TOKEN_NOT_FOUND', `Token ${tokenId} not found.`);
}

/**
 * HTTP Basic with an API token (`<token clientId>:<clientSecret>`): the token's platform and
 * permissions, or undefined if these are not a live token's credentials. The secret is checked
 * against its salted scrypt hash (constant-time compare, in the thread pool) the first time,
 * then from the in-memory record of verified credentials; a token from before (an unsalted
 * SHA-256) is re-hashed on its first successful use. The row is read on every request (no cache
 * of the token itself), so a deleted token fails at once. A valid token without the permission
 * the request needs is `403 FORBIDDEN`.
 */
export async function authenticateApiToken(
  ctx: SandboxContext,
  clientId: string,
  clientSecret: string,
  request: { method: string; path: string },
  platformById: (id: string) => Platform | undefined,
): Promise<{ platform: Platform; permissions: readonly Permission[] } | undefined> {
  const repo = repoOf(ctx);
  let row = repo.byClientId(clientId);
  if (!row) return undefined;
  const verified = verifiedOf(ctx);
  let stored = storedForm(row.secret_hash);
  if (!verified.has(clientId, clientSecret, stored)) {
    if (!(await verifySecret(clientSecret, row.secret_hash))) return undefined;
    if (needsRehash(row.secret_hash)) {
      const upgraded = await hashSecret(clientSecret, ctx.random);
      if (repo.replaceSecretHash(row.id, row.secret_hash, upgraded)) stored = upgraded;
    }
    // Read again after the awaits: the token may have been deleted (or re-hashed) meanwhile.
    row = repo.byClientId(clientId);
    if (!row || storedForm(row.secret_hash) !== stored) return undefined;
    verified.remember(clientId, clientSecret, stored);
  }
  const platform = platformById(row.platform_id);
  if (!platform) return undefined;
  const needed = requiredPermission(request.method, request.path);
  const granted = JSON.parse(row.permissions) as Permission[];
  if (!granted.includes(needed)) {
    throw new ApiError(403, ErrorCode.FORBIDDEN, `This API token lacks the ${needed} permission this request needs.`, {
      requiredPermission: needed,
    });
  }
  return { platform, permissions: granted };
}

/** Whether an API token has this client id (a 401 for an unknown id spends a decoy scrypt). */
export function apiTokenExists(ctx: SandboxContext, clientId: string): boolean {
  return repoOf(ctx).byClientId(clientId) !== undefined;
}

/**
 * HTTP Basic with an API token's credentials, the scheme the server asks after the platform's own
 * credentials (registered by the composition root): the token's platform and permissions.
 */
export const apiTokenScheme: BasicScheme = {
  authenticate: async (ctx, { clientId, clientSecret }, request) => {
    const token = await authenticateApiToken(ctx, clientId, clientSecret, request, (id) => platformService(ctx).byId(id));
    return token && { platform: token.platform, permissions: token.permissions };
  },
  knows: apiTokenExists,
};

/** A stored secret hash as a string: the scrypt string, or a legacy raw SHA-256 digest as hex. */
const storedForm = (hash: string | Buffer): string => (typeof hash === 'string' ? hash : `sha256-raw:${hash.toString('hex')}`);
