import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import type { MetaRepo } from '../store/meta.js';
import type { Random } from '../core/random.js';
import { publicKeyOf, secretKeyFrom } from '../crypto/keys.js';

/** Where the database keeps its webhook signing key (PKCS#8 PEM). Never logged, never served. */
const SIGNING_KEY_META = 'webhooks.signingKey';

/** The name of the signature header on every delivery (the contract's). */
export const SIGNATURE_HEADER = 'X-Service-Signature';

/**
 * Every name a delivery carries its signature under, the same value in each: the contract's, and
 * the one the production service's own clients verify.
 */
export const SIGNATURE_HEADERS = [SIGNATURE_HEADER, 'X-Grid-Signature'] as const;

/**
 * Signs webhook bodies with the sandbox database's P-256 key: ECDSA over SHA-256 of the exact
 * body bytes, DER-encoded and base64'd into `X-Service-Signature: {"v":"1","s":"..."}` (and the
 * same value under `X-Grid-Signature`).
 */
export class WebhookSigner {
  /** The public key as an SPKI PEM (`-----BEGIN PUBLIC KEY-----`). */
  readonly publicKeyPem: string;

  /** The secret scalar, kept only by a signer that signs deterministically. */
  private readonly secretKey: Uint8Array | undefined;

  private constructor(
    private readonly privateKey: KeyObject,
    deterministic: boolean,
  ) {
    this.publicKeyPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
    this.secretKey = deterministic ? new Uint8Array(Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url')) : undefined;
  }

  /**
   * The signer of this database: loads its key from `meta`, or makes a P-256 key pair the first
   * time and stores it there, so the public key stays the same across restarts. With a seeded
   * `random` (`--seed`) the key is drawn from it and every signature is deterministic (RFC 6979,
   * by @noble/curves), so two seeded runs sign their deliveries alike; otherwise the key comes
   * from the OS and OpenSSL signs (with a random nonce, about 70 times faster).
   */
  static forDatabase(meta: MetaRepo, transaction: <T>(fn: () => T) => T, random?: Random): WebhookSigner {
    return transaction(() => {
      let pem = meta.get(SIGNING_KEY_META);
      if (!pem) {
        const privateKey = random?.seeded ? keyObjectOf(secretKeyFrom(random)) : generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
        pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
        meta.set(SIGNING_KEY_META, pem);
      }
      return new WebhookSigner(createPrivateKey(pem), random?.seeded === true);
    });
  }

  /** The base64 DER ECDSA P-256 signature over SHA-256 of `body`. */
  signature(body: string | Uint8Array): string {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    if (this.secretKey) return Buffer.from(p256.sign(bytes, this.secretKey, { format: 'der' })).toString('base64');
    return sign('sha256', bytes, { key: this.privateKey, dsaEncoding: 'der' }).toString('base64');
  }

  /** The `X-Service-Signature` header value for `body`. */
  header(body: string | Uint8Array): string {
    return JSON.stringify({ v: '1', s: this.signature(body) });
  }

  /** The signature headers of a delivery of `body`: signed once, the same value under each name. */
  headers(body: string | Uint8Array): Record<(typeof SIGNATURE_HEADERS)[number], string> {
    return signatureHeadersOf(this.header(body));
  }

  /** Keeps the private key out of logs and JSON dumps. */
  toJSON(): { publicKeyPem: string } {
    return { publicKeyPem: this.publicKeyPem };
  }
}

/** A node:crypto private key of a secret scalar. */
function keyObjectOf(secretKey: Uint8Array): KeyObject {
  const point = publicKeyOf(secretKey, false);
  const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
  return createPrivateKey({ key: { kty: 'EC', crv: 'P-256', d: b64url(secretKey), x: b64url(point.subarray(1, 33)), y: b64url(point.subarray(33)) }, format: 'jwk' });
}

/** One signature header value under every name of `SIGNATURE_HEADERS`. */
export function signatureHeadersOf(value: string): Record<(typeof SIGNATURE_HEADERS)[number], string> {
  return Object.fromEntries(SIGNATURE_HEADERS.map((name) => [name, value])) as Record<(typeof SIGNATURE_HEADERS)[number], string>;
}
