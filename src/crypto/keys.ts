import { createECDH, createPrivateKey, createPublicKey, ECDH, type KeyObject } from 'node:crypto';
import { KeyCache } from './key-cache.js';

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

/**
 * Parses a P-256 public key in SEC1 hex and checks that it is a point of the curve. With `form`,
 * only that encoding is accepted. Returns the form and the raw bytes as given.
 */
export function parsePublicKey(hex: string, what = 'public key', form?: KeyForm): { form: KeyForm; bytes: Uint8Array } {
  const bytes = fromHex(hex, what);
  let actual: KeyForm;
  if (bytes.length === 33 && (bytes[0] === 2 || bytes[0] === 3)) actual = 'compressed';
  else if (bytes.length === 65 && bytes[0] === 4) actual = 'uncompressed';
  else throw new KeyFormatError(`${what} must be a compressed (66 hex, 02/03) or uncompressed (130 hex, 04) SEC1 P-256 key`);
  if (form && form !== actual) throw new KeyFormatError(`${what} must be ${form === 'compressed' ? 'a compressed (66 hex, 02/03)' : 'an uncompressed (130 hex, 04)'} SEC1 P-256 key`);
  try {
    convert(bytes, actual);
  } catch {
    throw new KeyFormatError(`${what} is not a point of the P-256 curve`);
  }
  return { form: actual, bytes };
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

/** A fresh P-256 key pair (secret scalar and compressed public key), from the OS random source. */
export function generateKeyPair(): { secretKey: Uint8Array; publicKey: Uint8Array } {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  // OpenSSL drops leading zero bytes of the scalar; keys are always 32 bytes here.
  const secretKey = new Uint8Array(32);
  const raw = ecdh.getPrivateKey();
  secretKey.set(raw, 32 - raw.length);
  return { secretKey, publicKey: new Uint8Array(ecdh.getPublicKey(null, 'compressed')) };
}

// DER SubjectPublicKeyInfo prefix of a compressed P-256 key (id-ecPublicKey, prime256v1, 33-byte BIT STRING).
const SPKI_COMPRESSED_PREFIX = Buffer.from('3039301306072a8648ce3d020106082a8648ce3d030107032200', 'hex');

const publicKeyObjects = new KeyCache<KeyObject>(1024);

/**
 * A node:crypto public KeyObject of a SEC1 P-256 key (either form). Kept for the keys that sign
 * again and again (a session key stamps every request of its session).
 */
export function publicKeyObject(publicKey: Uint8Array): KeyObject {
  const compressed = publicKey.length === 33 ? publicKey : compressPublicKey(publicKey);
  return publicKeyObjects.get(toHex(compressed), () =>
    createPublicKey({ key: Buffer.concat([SPKI_COMPRESSED_PREFIX, compressed]), format: 'der', type: 'spki' }),
  );
}

/** A node:crypto private KeyObject of a 32-byte secret scalar. */
export function privateKeyObject(secretKey: Uint8Array): KeyObject {
  const point = publicKeyOf(secretKey, false);
  const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
  return createPrivateKey({ key: { kty: 'EC', crv: 'P-256', d: b64(secretKey), x: b64(point.slice(1, 33)), y: b64(point.slice(33)) }, format: 'jwk' });
}
