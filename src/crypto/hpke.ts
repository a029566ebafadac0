import { createHmac } from 'node:crypto';
import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { encodeBase58Check } from './base58check.js';
import { KeyCache } from './key-cache.js';
import { compressPublicKey, KeyFormatError, parsePublicKey, publicKeyOf, toHex, uncompressPublicKey } from './keys.js';

/**
 * HPKE (RFC 9180) base mode with DHKEM(P-256, HKDF-SHA256), HKDF-SHA256 and AES-256-GCM, through
 * `@hpke/core`, in the public client libraries' conventions: `info` is `turnkey_hpke` and the AAD
 * is the uncompressed encapsulated key followed by the uncompressed recipient key (API.md
 * "Embedded wallet signing"). Pure: no DB, no clock.
 */

const asBytes = (x: ArrayBuffer | ArrayBufferView): Uint8Array => (ArrayBuffer.isView(x) ? new Uint8Array(x.buffer, x.byteOffset, x.byteLength) : new Uint8Array(x));

/**
 * @hpke/core's HKDF-SHA256 with its two primitives (RFC 5869 Extract and Expand) computed by
 * node:crypto's HMAC instead of WebCrypto: the key schedule calls them six times per context,
 * and each WebCrypto call (a key import, then an async job) cost more than the HMAC itself.
 * The HPKE labels, key schedule and AEAD stay @hpke/core's; interoperability is tested against
 * @turnkey/crypto. Halves the time to open an OTP bundle.
 */
export class HkdfSha256Hmac extends HkdfSha256 {
  override async extract(salt: ArrayBuffer, ikm: ArrayBuffer): Promise<ArrayBuffer> {
    // RFC 5869: an absent salt is HashLen zero bytes.
    const digest = createHmac('sha256', salt.byteLength === 0 ? new Uint8Array(32) : asBytes(salt)).update(asBytes(ikm)).digest();
    return digest.buffer.slice(digest.byteOffset, digest.byteOffset + digest.byteLength) as ArrayBuffer;
  }

  override async expand(prk: ArrayBuffer, info: ArrayBuffer, length: number): Promise<ArrayBuffer> {
    if (length > 255 * 32) throw new Error('HKDF-Expand: length exceeds 255 * HashLen');
    const okm = new Uint8Array(length);
    let block: Uint8Array = new Uint8Array(0);
    for (let i = 1, filled = 0; filled < length; i += 1) {
      block = createHmac('sha256', asBytes(prk)).update(block).update(asBytes(info)).update(Uint8Array.of(i)).digest();
      okm.set(block.subarray(0, Math.min(block.length, length - filled)), filled);
      filled += block.length;
    }
    return okm.buffer;
  }
}

const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256Hmac(), aead: new Aes256Gcm() });

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

const concat = (a: Uint8Array, b: Uint8Array) => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
};

type HpkeKey = Awaited<ReturnType<typeof suite.kem.importKey>>;

/** Recipient public keys as WebCrypto keys (a platform's OTP target is sealed to at every login). */
const publicKeys = new KeyCache<Promise<HpkeKey>>(64);
const recipientPublic = (recipient: Uint8Array): Promise<HpkeKey> =>
  publicKeys.getAsync(toHex(recipient), () => suite.kem.deserializePublicKey(recipient.slice().buffer as ArrayBuffer));

/** Seals `plaintext` to a P-256 public key (compressed or uncompressed bytes). */
export async function hpkeSeal(recipientPublicKey: Uint8Array, plaintext: Uint8Array): Promise<HpkeSealed> {
  const recipient = uncompressPublicKey(recipientPublicKey);
  const sender = await suite.createSenderContext({ recipientPublicKey: await recipientPublic(recipient), info: HPKE_INFO });
  const encappedPublic = new Uint8Array(sender.enc);
  const ciphertext = new Uint8Array(await sender.seal(plaintext, concat(encappedPublic, recipient)));
  return { encappedPublic, ciphertext };
}

/** A recipient's uncompressed public key and its key pair as WebCrypto keys. */
interface Recipient {
  recipient: Uint8Array;
  keyPair: { privateKey: HpkeKey; publicKey: HpkeKey };
}

/**
 * The recipient's key pair as WebCrypto keys, kept for the keys opened again and again (a
 * platform's OTP target key opens every login): importing an EC key costs more than the whole
 * decryption. Giving @hpke/core the public half too spares it deriving one (an export and an
 * import).
 */
const recipients = new KeyCache<Promise<Recipient>>(64);
const recipientKeys = (secretKey: Uint8Array): Promise<Recipient> =>
  recipients.getAsync(toHex(secretKey), async () => {
    const recipient = publicKeyOf(secretKey, false);
    const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
    const jwk: Parameters<typeof suite.kem.importKey>[1] = { kty: 'EC', crv: 'P-256', d: b64(secretKey), x: b64(recipient.slice(1, 33)), y: b64(recipient.slice(33)) };
    const [privateKey, publicKey] = await Promise.all([suite.kem.importKey('jwk', jwk, false), recipientPublic(recipient)]);
    return { recipient, keyPair: { privateKey, publicKey } };
  });

/**
 * Opens a sealed message with the recipient's 32-byte secret scalar. Throws {@link HpkeError}
 * naming the failed check (encapsulated key not a curve point, ciphertext too short, tag or key
 * mismatch).
 */
export async function hpkeOpen(recipientSecretKey: Uint8Array, sealed: HpkeSealed): Promise<Uint8Array> {
  if (sealed.encappedPublic.length !== 65 || sealed.encappedPublic[0] !== 4) {
    throw new HpkeError('encappedPublic must be an uncompressed (130 hex, 04) P-256 key');
  }
  try {
    parsePublicKey(toHex(sealed.encappedPublic), 'encappedPublic', 'uncompressed');
  } catch (error) {
    throw new HpkeError(error instanceof KeyFormatError ? error.reason : 'encappedPublic is invalid');
  }
  if (sealed.ciphertext.length < 16) throw new HpkeError('ciphertext is shorter than the 16-byte AES-GCM tag');
  try {
    const { recipient, keyPair } = await recipientKeys(recipientSecretKey);
    const context = await suite.createRecipientContext({
      recipientKey: keyPair,
      enc: sealed.encappedPublic.slice().buffer as ArrayBuffer,
      info: HPKE_INFO,
    });
    return new Uint8Array(await context.open(sealed.ciphertext, concat(sealed.encappedPublic, recipient)));
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
