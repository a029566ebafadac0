import { decodeJwt } from 'jose';
import { createHash } from 'node:crypto';

/**
 * OIDC ID-token claim checks of the sandbox (API.md "Sandbox behaviour"): the token must be
 * JWT-shaped and its claims are checked; the signature segment is not (sandbox skips signature
 * verification only). Decoding through `jose`'s `decodeJwt`. Pure: time and the issuer table
 * are passed in.
 */

/** The identity an OAuth credential is registered to. */
export interface OidcIdentity {
  iss: string;
  aud: string;
  sub: string;
}

/** A token that is not a JWT (`MALFORMED`, a 400) or whose claims fail a check (`REJECTED`, a 401). */
export class OidcError extends Error {
  constructor(
    readonly kind: 'MALFORMED' | 'REJECTED',
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'OidcError';
  }
}

/** The literal that the service no longer accepts. */
export const RETIRED_SANDBOX_OIDC_TOKEN = 'sandbox-valid-oidc-token';

/** Decodes the payload of a JWT-shaped token (three base64url segments, JSON payload). */
export function decodeOidcToken(token: string): Record<string, unknown> {
  if (token === RETIRED_SANDBOX_OIDC_TOKEN) throw new OidcError('REJECTED', 'The literal sandbox-valid-oidc-token is no longer accepted; send a JWT-shaped ID token');
  if (token.split('.').length !== 3) throw new OidcError('MALFORMED', 'oidcToken is not a JWT (three dot-separated segments)');
  try {
    return decodeJwt(token) as Record<string, unknown>;
  } catch {
    throw new OidcError('MALFORMED', 'oidcToken payload is not base64url JSON');
  }
}

/** Options of a claim check. */
export interface OidcCheckOptions {
  /**
   * When the check runs (ms). Several instants (the sandbox clock, then real time): the time
   * claims must all hold at one of them, each with the same age and skew rules.
   */
  nowMs: number | readonly number[];
  supportedIssuers: ReadonlySet<string>;
  maxAgeSeconds: number;
  skewSeconds: number;
}

/**
 * Checks the registration claims (`iss` supported, `aud` a non-empty string or one-element
 * array, `sub` non-empty, numeric `iat` at most `maxAgeSeconds` old and not in the future
 * beyond the skew, numeric `exp` after now, all at one of the `nowMs` instants) and returns the
 * identity.
 */
export function checkOidcClaims(claims: Record<string, unknown>, options: OidcCheckOptions): OidcIdentity {
  const { iss, sub, aud, iat, exp } = claims;
  if (typeof iss !== 'string' || !options.supportedIssuers.has(iss)) throw new OidcError('MALFORMED', 'oidcToken iss is not a supported issuer');
  const audience = typeof aud === 'string' ? aud : Array.isArray(aud) && aud.length === 1 && typeof aud[0] === 'string' ? aud[0] : undefined;
  if (!audience) throw new OidcError('REJECTED', 'oidcToken aud must be a non-empty string or a one-element string array');
  if (typeof sub !== 'string' || sub.length === 0) throw new OidcError('REJECTED', 'oidcToken sub must be a non-empty string');
  if (typeof iat !== 'number' || typeof exp !== 'number') throw new OidcError('REJECTED', 'oidcToken iat and exp must be numeric');
  const instants = typeof options.nowMs === 'number' ? [options.nowMs] : options.nowMs;
  const problems = [];
  for (const ms of instants) {
    const problem = timeProblem(iat, exp, ms / 1000, options);
    if (problem === undefined) return { iss, aud: audience, sub };
    problems.push(problem);
  }
  if (problems.length === 1) throw new OidcError('REJECTED', problems[0]!);
  // The sandbox clock was moved: say what each clock found (the first is the sandbox clock's).
  throw new OidcError('REJECTED', `${problems[0]} on the sandbox clock, and ${problems[1]!.replace(/^oidcToken /, '')} on real time`);
}

/** What is wrong with `iat`/`exp` at `now` (seconds), or undefined when they hold. */
function timeProblem(iat: number, exp: number, now: number, options: OidcCheckOptions): string | undefined {
  if (iat > now + options.skewSeconds) return 'oidcToken iat is in the future';
  if (iat < now - options.maxAgeSeconds - options.skewSeconds) return `oidcToken iat is more than ${options.maxAgeSeconds} seconds old`;
  if (exp <= now) return 'oidcToken has expired (exp)';
  return undefined;
}

/** The nonce a verify token must carry: hex SHA-256 of the exact `clientPublicKey` string. */
export const oidcNonceOf = (clientPublicKey: string): string => createHash('sha256').update(clientPublicKey, 'utf8').digest('hex');

/** Checks a verify token against the registered identity and the request's `clientPublicKey`. */
export function checkOidcVerify(claims: Record<string, unknown>, registered: OidcIdentity, clientPublicKey: string, options: OidcCheckOptions): OidcIdentity {
  const identity = checkOidcClaims(claims, options);
  if (identity.iss !== registered.iss || identity.aud !== registered.aud || identity.sub !== registered.sub) {
    throw new OidcError('REJECTED', 'oidcToken iss, aud and sub do not match the registered OAuth credential');
  }
  if (claims.nonce !== oidcNonceOf(clientPublicKey)) throw new OidcError('REJECTED', 'oidcToken nonce is not the hex SHA-256 of clientPublicKey');
  return identity;
}
