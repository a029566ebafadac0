import type { SandboxContext } from '../store/context.js';
import type { Platform } from '../tenancy/index.js';

/**
 * Who a request is, as the server knows it. The server declares these types and the schemes
 * that produce them; the schemes themselves (platform credentials, API tokens, agent bearer
 * tokens) belong to the areas that own those credentials, and the composition root (src/index.ts)
 * registers them. The server imports none of those areas.
 */

/** Who HTTP Basic credentials identify: a platform, and the permissions of the API token used, if one was. */
export interface PlatformPrincipal {
  platform: Platform;
  /** The permissions of the API token that authenticated (unset for the platform's own credentials). */
  permissions?: readonly string[];
}

/** Who an AgentAuth bearer token identifies: an agent of a platform. */
export interface AgentPrincipal {
  platform: Platform;
  agentId: string;
}

/** The two halves of `Authorization: Basic base64(clientId:clientSecret)`. */
export interface BasicCredentials {
  clientId: string;
  clientSecret: string;
}

/** A kind of HTTP Basic credentials (the contract's BasicAuth): a platform's own, or an API token's. */
export interface BasicScheme {
  /**
   * The principal of these credentials, or undefined when they are not valid credentials of this
   * scheme. May throw an ApiError of its own (an API token without the permission the request needs
   * is 403). `request.path` is relative to the API base (`/customers`). Answers at once when it
   * can (credentials it verified before), else a promise.
   */
  authenticate(ctx: SandboxContext, credentials: BasicCredentials, request: { method: string; path: string }): PlatformPrincipal | undefined | Promise<PlatformPrincipal | undefined>;
  /** Whether this client id is one of this scheme's: an id no scheme knows costs a decoy scrypt, so a 401 does not tell which ids exist. */
  knows(ctx: SandboxContext, clientId: string): boolean;
}

/** A kind of bearer token (the contract's AgentAuth): the principal of the `Authorization` header, or a 401 ApiError naming the failed check. */
export interface BearerScheme {
  authenticate(ctx: SandboxContext, header: string | undefined): AgentPrincipal;
}

/** The authentication schemes of an app, by the contract's security scheme names. */
export interface AuthSchemes {
  /** Asked in this order; the first that accepts the credentials answers. */
  BasicAuth: readonly BasicScheme[];
  AgentAuth: BearerScheme;
}
