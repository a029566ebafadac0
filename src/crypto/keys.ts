import { createECDH, createPrivateKey, createPublicKey, ECDH, type KeyObject } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { BoundedCache } from '../core/bounded-cache.js';
import type { Random } from '../core/random.js';

/**
 * P-256 key helpers shared by the wallet crypto modules: hex parsing with a reason on failure,
 * compressed/uncompressed SEC1 conversions. Pure: no DB, no clock.
 */

/** A key or encoding problem; `reason` names the check that failed. */
export class KeyFormatError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'KeyFormatError';
  }
}

const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/** Decodes even-length hex, or throws {@link KeyFormatError} naming `what`. */
export function fromHex(hex: string, what = 'value'): Uint8Array {
  if (typeof hex !== 'string' || !HEX.test(hex)) throw new KeyFormatError(`${what} is not valid hex`);
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

/** Lower-case hex of bytes. */
export const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** The SEC1 form of a public key hex string: `compressed` (66 hex, 02/03) or `uncompressed` (130 hex, 04). */
export type KeyForm = 'compressed' | 'uncompressed';

/** A parsed public key: the form and bytes as given, and both SEC1 encodings. */
export interface ParsedPublicKey {
  form: KeyForm;
  bytes: Uint8Array;
  compressed: Uint8Array;
  uncompressed: Uint8Array;
}

/**
 * Parses a P-256 public key in SEC1 hex and checks that it is a point of the curve. With `form`,
 * only that encoding is accepted. Returns the form and the raw bytes as given, and both encodings
 * (the check is the conversion to the other one, so callers need not convert again).
 */
export function parsePublicKey(hex: string, what = 'public key', form?: KeyForm): ParsedPublicKey {
  const bytes = fromHex(hex, what);
  let actual: KeyForm;
  if (bytes.length === 33 && (bytes[0] === 2 || bytes[0] === 3)) actual = 'compressed';
  else if (bytes.length === 65 && bytes[0] === 4) actual = 'uncompressed';
  else throw new KeyFormatError(`${what} must be a compressed (66 hex, 02/03) or uncompressed (130 hex, 04) SEC1 P-256 key`);
  if (form && form !== actual) throw new KeyFormatError(`${what} must be ${form === 'compressed' ? 'a compressed (66 hex, 02/03)' : 'an uncompressed (130 hex, 04)'} SEC1 P-256 key`);
  let other: Uint8Array;
  try {
    other = convert(bytes, actual === 'compressed' ? 'uncompressed' : 'compressed');
  } catch {
    throw new KeyFormatError(`${what} is not a point of the P-256 curve`);
  }
  return actual === 'compressed' ? { form: actual, bytes, compressed: bytes, uncompressed: other } : { form: actual, bytes, compressed: other, uncompressed: bytes };
}

/**
 * SEC1 conversion in OpenSSL through node:crypto, which refuses bytes that are not a point of
 * the curve (a compressed x with no square root, an uncompressed point off the curve). Five
 * times cheaper than the pure-JS square root on every compressed key of a signed request.
 */
const convert = (bytes: Uint8Array, form: KeyForm): Uint8Array => new Uint8Array(ECDH.convertKey(bytes, 'prime256v1', undefined, undefined, form) as Buffer);

/** The compressed SEC1 encoding (33 bytes) of a public key given in either form. */
export const compressPublicKey = (bytes: Uint8Array): Uint8Array => convert(bytes, 'compressed');

/** The uncompressed SEC1 encoding (65 bytes) of a public key given in either form. */
export const uncompressPublicKey = (bytes: Uint8Array): Uint8Array => convert(bytes, 'uncompressed');

/** The public key of a 32-byte secret scalar (OpenSSL through node:crypto: the pure-JS scalar multiplication is far slower). */
export function publicKeyOf(secretKey: Uint8Array, compressed = true): Uint8Array {
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(secretKey);
  return new Uint8Array(ecdh.getPublicKey(null, compressed ? 'compressed' : 'uncompressed'));
}

/**
 * A secret P-256 scalar drawn from `random`: @noble/curves maps 48 random bytes onto [1, n-1]
 * (FIPS 186-5 B.4.1, without the modulo bias of 32 bytes).
 */
export const secretKeyFrom = (random: Random): Uint8Array => p256.utils.randomSecretKey(random.bytes(48));

/**
 * A fresh P-256 key pair (secret scalar and compressed public key), from `random` (the sandbox's
 * source, seedable) or else the OS random source.
 */
export function generateKeyPair(random?: Random): { secretKey: Uint8Array; publicKey: Uint8Array } {
  if (random) {
    const secretKey = secretKeyFrom(random);
    return { secretKey, publicKey: publicKeyOf(secretKey) };
  }
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { secretKey: secretOf(ecdh), publicKey: new Uint8Array(ecdh.getPublicKey(null, 'compressed')) };
}

/** The 32-byte secret scalar of an ECDH object (OpenSSL drops leading zero bytes; keys are always 32 bytes here). */
function secretOf(ecdh: ECDH): Uint8Array {
  const secretKey = new Uint8Array(32);
  const raw = ecdh.getPrivateKey();
  secretKey.set(raw, 32 - raw.length);
  return secretKey;
}

const publicKeyObjects = new BoundedCache<KeyObject>(1024);
const b64url = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');

/**
 * A node:crypto public KeyObject of a SEC1 P-256 key (either form). Kept for the keys that sign
 * again and again (a session key stamps every request of its session). Imported as a JWK from
 * the affine coordinates: OpenSSL's SPKI decoder (and the square root of a compressed key) cost
 * about twice as much per fresh key.
 */
export function publicKeyObject(publicKey: Uint8Array): KeyObject {
  const point = publicKey.length === 65 ? publicKey : uncompressPublicKey(publicKey);
  return publicKeyObjects.get(toHex(point), () =>
    createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: b64url(point.subarray(1, 33)), y: b64url(point.subarray(33)) }, format: 'jwk' }),
  );
}

/** A P-256 key that signs: its secret scalar, both public encodings and its node:crypto private KeyObject. */
export interface SigningKey {
  secretKey: Uint8Array;
  /** Compressed SEC1 (33 bytes), the form a stamp names. */
  publicKey: Uint8Array;
  /** Uncompressed SEC1 (65 bytes). */
  publicKeyUncompressed: Uint8Array;
  keyObject: KeyObject;
}

/** The signing key of an ECDH object holding a key pair (one scalar multiplication, done by OpenSSL when the pair was made). */
function signingKeyFromEcdh(ecdh: ECDH): SigningKey {
  const secretKey = secretOf(ecdh);
  const point = new Uint8Array(ecdh.getPublicKey());
  const keyObject = createPrivateKey({ key: { kty: 'EC', crv: 'P-256', d: b64url(secretKey), x: b64url(point.subarray(1, 33)), y: b64url(point.subarray(33)) }, format: 'jwk' });
  return { secretKey, publicKey: new Uint8Array(ecdh.getPublicKey(null, 'compressed')), publicKeyUncompressed: point, keyObject };
}

/** The signing key of a 32-byte secret scalar. */
export function signingKeyOf(secretKey: Uint8Array): SigningKey {
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(secretKey);
  return signingKeyFromEcdh(ecdh);
}

/** A fresh signing key, from the OS random source (a client's per-login session key). */
export function generateSigningKey(): SigningKey {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return signingKeyFromEcdh(ecdh);
}

/** A node:crypto private KeyObject of a 32-byte secret scalar. */
export const privateKeyObject = (secretKey: Uint8Array): KeyObject => signingKeyOf(secretKey).keyObject;
