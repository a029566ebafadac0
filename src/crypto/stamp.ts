import { sign, verify } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { fromHex, KeyFormatError, parsePublicKey, publicKeyObject, signingKeyOf, toHex, type SigningKey } from './keys.js';

/**
 * The `Service-Wallet-Signature` API-key stamp (API.md "Embedded wallet signing"): base64url
 * (no padding) of JSON `{publicKey, scheme, signature}`, where `signature` is a DER ECDSA P-256
 * signature (hex) over SHA-256 of the exact payload bytes and `publicKey` the compressed key.
 * Pure: no DB, no clock.
 */

/** The only scheme a stamp may name. */
export const STAMP_SCHEME = 'SIGNATURE_SCHEME_TK_API_P256';

/** A parsed stamp. */
export interface Stamp {
  /** Compressed SEC1 hex, lower-cased. */
  publicKey: string;
  scheme: typeof STAMP_SCHEME;
  /** DER signature hex. */
  signature: string;
  /** The public key's uncompressed SEC1 bytes (from the curve check). */
  point: Uint8Array;
}

/** A stamp that cannot be read (`MALFORMED`) or does not verify (`INVALID`); `reason` names the check. */
export class StampError extends Error {
  constructor(
    readonly kind: 'MALFORMED' | 'INVALID',
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'StampError';
  }
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Decodes a stamp header value, checking its shape, scheme, key encoding and DER signature syntax. */
export function parseStamp(header: string): Stamp {
  if (!BASE64URL.test(header)) throw new StampError('MALFORMED', 'Stamp is not base64url without padding');
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
  } catch {
    throw new StampError('MALFORMED', 'Stamp does not decode to JSON');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new StampError('MALFORMED', 'Stamp is not a JSON object');
  const { publicKey, scheme, signature } = json as Record<string, unknown>;
  if (typeof publicKey !== 'string' || typeof scheme !== 'string' || typeof signature !== 'string') {
    throw new StampError('MALFORMED', 'Stamp needs string publicKey, scheme and signature');
  }
  if (scheme !== STAMP_SCHEME) throw new StampError('MALFORMED', `Stamp scheme must be ${STAMP_SCHEME}`);
  let point: Uint8Array;
  try {
    point = parsePublicKey(publicKey, 'Stamp publicKey', 'compressed').uncompressed;
    p256.Signature.fromBytes(fromHex(signature, 'Stamp signature'), 'der');
  } catch (error) {
    if (error instanceof KeyFormatError) throw new StampError('MALFORMED', error.reason);
    throw new StampError('MALFORMED', 'Stamp signature is not a DER ECDSA signature');
  }
  return { publicKey: publicKey.toLowerCase(), scheme: STAMP_SCHEME, signature: signature.toLowerCase(), point };
}

/**
 * Checks the stamp's signature over the exact `payload` string (UTF-8 bytes, SHA-256 prehash).
 * High-S signatures are accepted, as the reference stamper (Node's crypto) does not normalise S.
 * The check runs in OpenSSL through node:crypto (parsing stays with @noble/curves): the pure-JS
 * verification costs over ten times more CPU per signed request.
 */
export function verifyStamp(stamp: Stamp, payload: string): boolean {
  try {
    return verify('sha256', Buffer.from(payload, 'utf8'), publicKeyObject(stamp.point), Buffer.from(stamp.signature, 'hex'));
  } catch {
    return false;
  }
}

/** Signs `payload` with a signing key and returns the stamp header value, as ApiKeyStamper makes it (the key's compressed public key, DER signature hex). */
export function stampWith(payload: string, key: SigningKey): string {
  const stamp = { publicKey: toHex(key.publicKey), scheme: STAMP_SCHEME, signature: sign('sha256', Buffer.from(payload, 'utf8'), key.keyObject).toString('hex') };
  return Buffer.from(JSON.stringify(stamp), 'utf8').toString('base64url');
}

/** Signs `payload` with a secret scalar (hex) and returns the stamp header value (CLI helper, tests, benchmarks). */
export const signStamp = (payload: string, secretKeyHex: string): string => stampWith(payload, signingKeyOf(fromHex(secretKeyHex, 'private key')));
