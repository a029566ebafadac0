import { createCipheriv, createDecipheriv, createECDH, createHmac, ECDH as NodeEcdh, type ECDH, type JsonWebKey, type webcrypto } from 'node:crypto';
import { CipherSuite, HkdfSha256, AeadId, KemId, NotSupportedError, type AeadEncryptionContext, type AeadInterface } from '@hpke/core';
import { Dhkem, XCryptoKey, type DhkemPrimitives } from '@hpke/common';
import { encodeBase58Check } from './base58check.js';
import { BoundedCache } from '../core/bounded-cache.js';
import { compressPublicKey, toHex, uncompressPublicKey } from './keys.js';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

/**
 * HPKE (RFC 9180) base mode with DHKEM(P-256, HKDF-SHA256), HKDF-SHA256 and AES-256-GCM, through
 * `@hpke/core`, in the public client libraries' conventions: `info` is `turnkey_hpke` and the AAD
 * is the uncompressed encapsulated key followed by the uncompressed recipient key (API.md
 * "Embedded wallet signing"). Pure: no DB, no clock.
 *
 * @hpke/core does the HPKE: the KEM's labeled ExtractAndExpand (its `Dhkem`), the key schedule,
 * the encryption contexts and their nonces. Its primitives come from node:crypto through the
 * library's own extension points (`DhkemPrimitives`, `KdfInterface`, `AeadInterface`): ECDH,
 * HMAC and AES-256-GCM run synchronously in OpenSSL instead of as WebCrypto key imports and
 * async jobs, which made one open cost about 1.6 ms of CPU. The tests check the suite against
 * @hpke/core's stock WebCrypto suite both ways and against @turnkey/crypto.
 */

const asBytes = (x: ArrayBufferLike | ArrayBufferView): Uint8Array => (ArrayBuffer.isView(x) ? new Uint8Array(x.buffer, x.byteOffset, x.byteLength) : new Uint8Array(x));
const asBuffer = (bytes: Uint8Array): ArrayBuffer => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;

function hmac(key: Uint8Array, ...parts: Uint8Array[]): Buffer {
  const h = createHmac('sha256', key);
  for (const part of parts) h.update(part);
  return h.digest();
}

/** RFC 5869 HKDF-Extract with SHA-256 (an absent salt is HashLen zero bytes). */
export const hkdfExtract = (salt: Uint8Array, ikm: Uint8Array): Uint8Array => hmac(salt.length === 0 ? new Uint8Array(32) : salt, ikm);

/** RFC 5869 HKDF-Expand with SHA-256. */
export function hkdfExpand(prk: Uint8Array, info: Uint8Array, length: number): Uint8Array {
  if (length > 255 * 32) throw new Error('HKDF-Expand: length exceeds 255 * HashLen');
  const okm = new Uint8Array(length);
  let block: Uint8Array = new Uint8Array(0);
  for (let i = 1, filled = 0; filled < length; i += 1) {
    block = hmac(prk, block, info, Uint8Array.of(i));
    okm.set(block.subarray(0, Math.min(block.length, length - filled)), filled);
    filled += block.length;
  }
  return okm;
}

/** @hpke/core's HKDF-SHA256 (labels and all) with Extract and Expand computed by node:crypto's HMAC. */
export class HkdfSha256Hmac extends HkdfSha256 {
  override async extract(salt: ArrayBuffer, ikm: ArrayBuffer): Promise<ArrayBuffer> {
    return asBuffer(hkdfExtract(asBytes(salt), asBytes(ikm)));
  }

  override async expand(prk: ArrayBuffer, info: ArrayBuffer, length: number): Promise<ArrayBuffer> {
    return asBuffer(hkdfExpand(asBytes(prk), asBytes(info), length));
  }

  // The stock class answers this one through WebCrypto's HKDF; the KEM calls it once per decap and encap.
  override async extractAndExpand(salt: ArrayBuffer, ikm: ArrayBuffer, info: ArrayBuffer, length: number): Promise<ArrayBuffer> {
    return asBuffer(hkdfExpand(hkdfExtract(asBytes(salt), asBytes(ikm)), asBytes(info), length));
  }
}

/** A P-256 key as raw bytes (65-byte uncompressed point, or 32-byte scalar with its ECDH object). */
class P256Key extends XCryptoKey {
  constructor(
    key: Uint8Array,
    type: 'public' | 'private',
    readonly ecdh?: ECDH,
  ) {
    super('ECDH', key, type, type === 'private' ? ['deriveBits'] : []);
  }
}

/** An uncompressed P-256 point; OpenSSL's point decoding refuses one off the curve. */
const isPoint = (bytes: Uint8Array) => {
  try {
    return bytes.length === 65 && bytes[0] === 4 && NodeEcdh.convertKey(bytes, 'prime256v1', undefined, undefined, 'compressed').length === 33;
  } catch {
    return false;
  }
};

class NotAPointError extends Error {}

/** DHKEM's primitives for P-256 (RFC 9180 §7.1) with node:crypto's ECDH. */
class NodeP256Primitives implements DhkemPrimitives {
  async serializePublicKey(key: CryptoKey): Promise<ArrayBuffer> {
    return asBuffer((key as unknown as P256Key).key);
  }

  async deserializePublicKey(key: ArrayBufferLike | ArrayBufferView): Promise<CryptoKey> {
    const bytes = asBytes(key);
    // SerializePublicKey is the uncompressed point; node:crypto refuses a point off the curve.
    if (!isPoint(bytes)) throw new NotAPointError();
    return new P256Key(bytes.slice(), 'public') as unknown as CryptoKey;
  }

  async serializePrivateKey(key: CryptoKey): Promise<ArrayBuffer> {
    return asBuffer((key as unknown as P256Key).key);
  }

  async deserializePrivateKey(key: ArrayBufferLike | ArrayBufferView): Promise<CryptoKey> {
    return privateKeyOf(asBytes(key)).privateKey as unknown as CryptoKey;
  }

  async importKey(format: 'raw' | 'jwk', key: ArrayBuffer | JsonWebKey, isPublic: boolean): Promise<CryptoKey> {
    if (format !== 'raw') throw new NotSupportedError('only raw P-256 keys are used here');
    return isPublic ? this.deserializePublicKey(key as ArrayBuffer) : this.deserializePrivateKey(key as ArrayBuffer);
  }

  async generateKeyPair(): Promise<CryptoKeyPair> {
    const ecdh = createECDH('prime256v1');
    const publicKey = new Uint8Array(ecdh.generateKeys());
    return { privateKey: new P256Key(new Uint8Array(ecdh.getPrivateKey()), 'private', ecdh), publicKey: new P256Key(publicKey, 'public') } as unknown as CryptoKeyPair;
  }

  async deriveKeyPair(): Promise<CryptoKeyPair> {
    throw new NotSupportedError('DeriveKeyPair is not used by the sandbox');
  }

  async derivePublicKey(key: CryptoKey): Promise<CryptoKey> {
    return privateKeyOf((key as unknown as P256Key).key).publicKey as unknown as CryptoKey;
  }

  async dh(sk: CryptoKey, pk: CryptoKey): Promise<ArrayBuffer> {
    const secret = sk as unknown as P256Key;
    const ecdh = secret.ecdh ?? privateKeyOf(secret.key).privateKey.ecdh!;
    return asBuffer(ecdh.computeSecret((pk as unknown as P256Key).key));
  }
}

/**
 * A recipient's key pair, kept for the keys opened again and again (a platform's OTP target key
 * opens every login): setting an ECDH private key computes its public point.
 */
const recipients = new BoundedCache<{ privateKey: P256Key; publicKey: P256Key }>(64);
function privateKeyOf(secretKey: Uint8Array) {
  return recipients.get(toHex(secretKey), () => {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(secretKey);
    return { privateKey: new P256Key(secretKey.slice(), 'private', ecdh), publicKey: new P256Key(new Uint8Array(ecdh.getPublicKey()), 'public') };
  });
}

/** DHKEM(P-256, HKDF-SHA256), KEM id 0x0010: @hpke/core's Dhkem over the primitives above. */
class DhkemP256HkdfSha256Node extends Dhkem {
  override readonly secretSize = 32;
  override readonly encSize = 65;
  override readonly publicKeySize = 65;
  override readonly privateKeySize = 32;
  constructor() {
    super(KemId.DhkemP256HkdfSha256, new NodeP256Primitives(), new HkdfSha256Hmac());
  }
}

/** AES-256-GCM (AEAD id 0x0002) with node:crypto. */
class Aes256GcmNode implements AeadInterface {
  readonly id = AeadId.Aes256Gcm;
  readonly keySize = 32;
  readonly nonceSize = 12;
  readonly tagSize = 16;

  createEncryptionContext(key: ArrayBufferLike | ArrayBufferView): AeadEncryptionContext {
    const k = asBytes(key).slice();
    return {
      async seal(iv, data, aad) {
        const cipher = createCipheriv('aes-256-gcm', k, asBytes(iv));
        cipher.setAAD(asBytes(aad));
        return asBuffer(Buffer.concat([cipher.update(asBytes(data)), cipher.final(), cipher.getAuthTag()]));
      },
      async open(iv, data, aad) {
        const bytes = asBytes(data);
        const decipher = createDecipheriv('aes-256-gcm', k, asBytes(iv));
        decipher.setAAD(asBytes(aad));
        decipher.setAuthTag(bytes.subarray(bytes.length - 16));
        return asBuffer(Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]));
      },
    };
  }
}

const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256Node(), kdf: new HkdfSha256Hmac(), aead: new Aes256GcmNode() });

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

const concat = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts));

/** The key pair of a 32-byte secret scalar, in the KEM's key type (not cached: an ephemeral key is used once). */
function ephemeralKeyPair(secretKey: Uint8Array): CryptoKeyPair {
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(secretKey);
  return { privateKey: new P256Key(secretKey.slice(), 'private', ecdh), publicKey: new P256Key(new Uint8Array(ecdh.getPublicKey()), 'public') } as unknown as CryptoKeyPair;
}

/**
 * Seals `plaintext` to a P-256 public key (compressed or uncompressed bytes). `ephemeralSecret`
 * is the sender's ephemeral secret scalar when the caller draws it (the sandbox does, from its
 * seedable source, so a seeded run seals alike); else the KEM draws one from the OS.
 */
export async function hpkeSeal(recipientPublicKey: Uint8Array, plaintext: Uint8Array, ephemeralSecret?: Uint8Array): Promise<HpkeSealed> {
  const recipient = recipientPublicKey.length === 65 && recipientPublicKey[0] === 4 ? recipientPublicKey : uncompressPublicKey(recipientPublicKey);
  let sender;
  try {
    sender = await suite.createSenderContext({
      recipientPublicKey: await suite.kem.deserializePublicKey(recipient),
      info: HPKE_INFO,
      // @hpke/core's `ekm`: the ephemeral key pair to encapsulate with (RFC 9180's test vectors use it).
      ...(ephemeralSecret ? { ekm: ephemeralKeyPair(ephemeralSecret) } : {}),
    });
  } catch {
    throw new HpkeError('The recipient key is not a point of the P-256 curve');
  }
  const encappedPublic = new Uint8Array(sender.enc);
  const ciphertext = new Uint8Array(await sender.seal(plaintext, concat(encappedPublic, recipient)));
  return { encappedPublic, ciphertext };
}

/**
 * Opens a sealed message with the recipient's 32-byte secret scalar. Throws {@link HpkeError}
 * naming the failed check (encapsulated key not a curve point, ciphertext too short, tag or key
 * mismatch).
 */
export async function hpkeOpen(recipientSecretKey: Uint8Array, sealed: HpkeSealed): Promise<Uint8Array> {
  const enc = sealed.encappedPublic;
  if (enc.length !== 65 || enc[0] !== 4) throw new HpkeError('encappedPublic must be an uncompressed (130 hex, 04) P-256 key');
  if (sealed.ciphertext.length < 16) throw new HpkeError('ciphertext is shorter than the 16-byte AES-GCM tag');
  const recipientKey = privateKeyOf(recipientSecretKey);
  try {
    const context = await suite.createRecipientContext({ recipientKey: recipientKey as unknown as CryptoKeyPair, enc, info: HPKE_INFO });
    return new Uint8Array(await context.open(sealed.ciphertext, concat(enc, recipientKey.publicKey.key)));
  } catch (error) {
    if (error instanceof NotAPointError) throw new HpkeError('encappedPublic is not a point of the P-256 curve');
    throw new HpkeError('ciphertext does not decrypt to the target key (wrong key, tampered ciphertext or tag)');
  }
}

/**
 * The legacy `encryptedSessionSigningKey`: the session's 32-byte secret scalar sealed to the
 * client's uncompressed key, as Base58Check of the compressed encapsulated key (33 bytes)
 * followed by the ciphertext.
 */
export async function sealSessionSigningKey(clientPublicKey: Uint8Array, sessionSecretKey: Uint8Array, ephemeralSecret?: Uint8Array): Promise<string> {
  const sealed = await hpkeSeal(clientPublicKey, sessionSecretKey, ephemeralSecret);
  return encodeBase58Check(concat(compressPublicKey(sealed.encappedPublic), sealed.ciphertext));
}
