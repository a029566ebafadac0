import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { encodeBase58Check } from './base58check.js';
import { compressPublicKey, KeyFormatError, parsePublicKey, publicKeyOf, toHex, uncompressPublicKey } from './keys.js';

/**
 * HPKE (RFC 9180) base mode with DHKEM(P-256, HKDF-SHA256), HKDF-SHA256 and AES-256-GCM, through
 * `@hpke/core`, in the public client libraries' conventions: `info` is `turnkey_hpke` and the AAD
 * is the uncompressed encapsulated key followed by the uncompressed recipient key (API.md
 * "Embedded wallet signing"). Pure: no DB, no clock.
 */

const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });

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

/** Seals `plaintext` to a P-256 public key (compressed or uncompressed bytes). */
export async function hpkeSeal(recipientPublicKey: Uint8Array, plaintext: Uint8Array): Promise<HpkeSealed> {
  const recipient = uncompressPublicKey(recipientPublicKey);
  const sender = await suite.createSenderContext({ recipientPublicKey: await suite.kem.deserializePublicKey(recipient), info: HPKE_INFO });
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
  if (sealed.encappedPublic.length !== 65 || sealed.encappedPublic[0] !== 4) {
    throw new HpkeError('encappedPublic must be an uncompressed (130 hex, 04) P-256 key');
  }
  try {
    parsePublicKey(toHex(sealed.encappedPublic), 'encappedPublic', 'uncompressed');
  } catch (error) {
    throw new HpkeError(error instanceof KeyFormatError ? error.reason : 'encappedPublic is invalid');
  }
  if (sealed.ciphertext.length < 16) throw new HpkeError('ciphertext is shorter than the 16-byte AES-GCM tag');
  const recipient = publicKeyOf(recipientSecretKey, false);
  try {
    const context = await suite.createRecipientContext({
      recipientKey: await suite.kem.importKey('raw', recipientSecretKey.slice().buffer as ArrayBuffer, false),
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
