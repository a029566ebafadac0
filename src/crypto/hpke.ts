import { createCipheriv, createDecipheriv, createECDH, createHmac, type ECDH } from 'node:crypto';
import { encodeBase58Check } from './base58check.js';
import { KeyCache } from './key-cache.js';
import { compressPublicKey, toHex, uncompressPublicKey } from './keys.js';

/**
 * HPKE (RFC 9180) base mode, single shot, for the one suite of the public client libraries:
 * DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM, with `info` `turnkey_hpke` and as AAD the
 * uncompressed encapsulated key followed by the uncompressed recipient key (API.md "Embedded
 * wallet signing"). Pure: no DB, no clock.
 *
 * Written out with node:crypto (ECDH, HMAC, AES-GCM in OpenSSL, all synchronous) rather than
 * through @hpke/core's CipherSuite, whose KEM and AEAD go through WebCrypto: a key import for the
 * encapsulated key, an export of the recipient key, its own HKDF and an async job per step made
 * one open or seal cost about 1.6 ms of CPU, against about 0.25 ms here. The steps below name the
 * RFC's functions; the tests check the result against @hpke/core and @turnkey/crypto both ways and
 * against @turnkey/crypto known answers.
 */

/** The HPKE `info` of the client libraries. */
export const HPKE_INFO = new TextEncoder().encode('turnkey_hpke');

/** A sealed message: the uncompressed encapsulated key (65 bytes) and the AES-GCM ciphertext with its tag. */
export interface HpkeSealed {
  encappedPublic: Uint8Array;
  ciphertext: Uint8Array;
}

/** Why HPKE input was refused; `reason` names the check. */
export class HpkeError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'HpkeError';
  }
}

const concat = (...parts: Uint8Array[]): Uint8Array => Buffer.concat(parts);
const ascii = (text: string) => Buffer.from(text, 'latin1');

function hmac(key: Uint8Array, ...parts: Uint8Array[]): Buffer {
  const h = createHmac('sha256', key);
  for (const part of parts) h.update(part);
  return h.digest();
}

const HASH_LEN = 32;

/** RFC 5869 HKDF-Extract with SHA-256 (an absent salt is HashLen zero bytes). */
export const hkdfExtract = (salt: Uint8Array, ikm: Uint8Array): Uint8Array => hmac(salt.length === 0 ? new Uint8Array(HASH_LEN) : salt, ikm);

/** RFC 5869 HKDF-Expand with SHA-256. */
export function hkdfExpand(prk: Uint8Array, info: Uint8Array, length: number): Uint8Array {
  if (length > 255 * HASH_LEN) throw new Error('HKDF-Expand: length exceeds 255 * HashLen');
  const okm = new Uint8Array(length);
  let block: Uint8Array = new Uint8Array(0);
  for (let i = 1, filled = 0; filled < length; i += 1) {
    block = hmac(prk, block, info, Uint8Array.of(i));
    okm.set(block.subarray(0, Math.min(block.length, length - filled)), filled);
    filled += block.length;
  }
  return okm;
}

// RFC 9180 section 4 and 7: suite ids of DHKEM(P-256, HKDF-SHA256) 0x0010, HKDF-SHA256 0x0001, AES-256-GCM 0x0002.
const HPKE_V1 = ascii('HPKE-v1');
const KEM_SUITE_ID = concat(ascii('KEM'), Uint8Array.of(0x00, 0x10));
const HPKE_SUITE_ID = concat(ascii('HPKE'), Uint8Array.of(0x00, 0x10, 0x00, 0x01, 0x00, 0x02));
const EMPTY = new Uint8Array(0);
const N_K = 32;
const N_N = 12;
const N_T = 16;
const N_SECRET = 32;

const labeledExtract = (suiteId: Uint8Array, salt: Uint8Array, label: string, ikm: Uint8Array) => hkdfExtract(salt, concat(HPKE_V1, suiteId, ascii(label), ikm));
const labeledExpand = (suiteId: Uint8Array, prk: Uint8Array, label: string, info: Uint8Array, length: number) =>
  hkdfExpand(prk, concat(Uint8Array.of(length >> 8, length & 0xff), HPKE_V1, suiteId, ascii(label), info), length);

/** DHKEM ExtractAndExpand: the KEM shared secret of a DH output and the KEM context `enc || pkRm`. */
function extractAndExpand(dh: Uint8Array, kemContext: Uint8Array): Uint8Array {
  const eaePrk = labeledExtract(KEM_SUITE_ID, EMPTY, 'eae_prk', dh);
  return labeledExpand(KEM_SUITE_ID, eaePrk, 'shared_secret', kemContext, N_SECRET);
}

// KeySchedule in mode_base (0x00), no PSK: the context depends on `info` only, which is fixed.
const KEY_SCHEDULE_CONTEXT = concat(Uint8Array.of(0x00), labeledExtract(HPKE_SUITE_ID, EMPTY, 'psk_id_hash', EMPTY), labeledExtract(HPKE_SUITE_ID, EMPTY, 'info_hash', HPKE_INFO));

/** KeySchedule: the AEAD key and base nonce of a shared secret (the first message uses the base nonce as is). */
function keySchedule(sharedSecret: Uint8Array): { key: Uint8Array; nonce: Uint8Array } {
  const secret = labeledExtract(HPKE_SUITE_ID, sharedSecret, 'secret', EMPTY);
  return { key: labeledExpand(HPKE_SUITE_ID, secret, 'key', KEY_SCHEDULE_CONTEXT, N_K), nonce: labeledExpand(HPKE_SUITE_ID, secret, 'base_nonce', KEY_SCHEDULE_CONTEXT, N_N) };
}

/** DH(sk, pk): the x-coordinate of the shared point; node:crypto refuses a `pk` that is not a point of the curve. */
function dh(ecdh: ECDH, publicKey: Uint8Array, what: string): Uint8Array {
  try {
    return ecdh.computeSecret(publicKey);
  } catch {
    throw new HpkeError(`${what} is not a point of the P-256 curve`);
  }
}

/** Seals `plaintext` to a P-256 public key (compressed or uncompressed bytes). */
export async function hpkeSeal(recipientPublicKey: Uint8Array, plaintext: Uint8Array): Promise<HpkeSealed> {
  const recipient = recipientPublicKey.length === 65 && recipientPublicKey[0] === 4 ? recipientPublicKey : uncompressPublicKey(recipientPublicKey);
  // Encap: a fresh ephemeral key pair from the OS random source.
  const ephemeral = createECDH('prime256v1');
  const encappedPublic = new Uint8Array(ephemeral.generateKeys());
  const { key, nonce } = keySchedule(extractAndExpand(dh(ephemeral, recipient, 'The recipient key'), concat(encappedPublic, recipient)));
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(concat(encappedPublic, recipient));
  const ciphertext = new Uint8Array(Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]));
  return { encappedPublic, ciphertext };
}

/**
 * A recipient's ECDH object and uncompressed public key, kept for the keys opened again and
 * again (a platform's OTP target key opens every login): deriving the public key is a scalar
 * multiplication.
 */
const recipients = new KeyCache<{ ecdh: ECDH; recipient: Uint8Array }>(64);
const recipientOf = (secretKey: Uint8Array) =>
  recipients.get(toHex(secretKey), () => {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(secretKey);
    return { ecdh, recipient: new Uint8Array(ecdh.getPublicKey()) };
  });

/**
 * Opens a sealed message with the recipient's 32-byte secret scalar. Throws {@link HpkeError}
 * naming the failed check (encapsulated key not a curve point, ciphertext too short, tag or key
 * mismatch).
 */
export async function hpkeOpen(recipientSecretKey: Uint8Array, sealed: HpkeSealed): Promise<Uint8Array> {
  const enc = sealed.encappedPublic;
  if (enc.length !== 65 || enc[0] !== 4) throw new HpkeError('encappedPublic must be an uncompressed (130 hex, 04) P-256 key');
  const { ecdh, recipient } = recipientOf(recipientSecretKey);
  // Decap: DH with the encapsulated key, which must be a point of the curve.
  const shared = dh(ecdh, enc, 'encappedPublic');
  if (sealed.ciphertext.length < N_T) throw new HpkeError('ciphertext is shorter than the 16-byte AES-GCM tag');
  const { key, nonce } = keySchedule(extractAndExpand(shared, concat(enc, recipient)));
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, nonce);
    decipher.setAAD(concat(enc, recipient));
    decipher.setAuthTag(sealed.ciphertext.subarray(sealed.ciphertext.length - N_T));
    return new Uint8Array(Buffer.concat([decipher.update(sealed.ciphertext.subarray(0, sealed.ciphertext.length - N_T)), decipher.final()]));
  } catch {
    throw new HpkeError('ciphertext does not decrypt to the target key (wrong key, tampered ciphertext or tag)');
  }
}

/**
 * The legacy `encryptedSessionSigningKey`: the session's 32-byte secret scalar sealed to the
 * client's uncompressed key, as Base58Check of the compressed encapsulated key (33 bytes)
 * followed by the ciphertext.
 */
export async function sealSessionSigningKey(clientPublicKey: Uint8Array, sessionSecretKey: Uint8Array): Promise<string> {
  const sealed = await hpkeSeal(clientPublicKey, sessionSecretKey);
  return encodeBase58Check(concat(compressPublicKey(sealed.encappedPublic), sealed.ciphertext));
}
