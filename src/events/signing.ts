import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { MetaRepo } from '../store/meta.js';

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

  private constructor(private readonly privateKey: KeyObject) {
    this.publicKeyPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
  }

  /**
   * The signer of this database: loads its key from `meta`, or generates a P-256 key pair the
   * first time and stores it there, so the public key stays the same across restarts.
   */
  static forDatabase(meta: MetaRepo, transaction: <T>(fn: () => T) => T): WebhookSigner {
    return transaction(() => {
      let pem = meta.get(SIGNING_KEY_META);
      if (!pem) {
        const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
        pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
        meta.set(SIGNING_KEY_META, pem);
      }
      return new WebhookSigner(createPrivateKey(pem));
    });
  }

  /** The base64 DER ECDSA P-256 signature over SHA-256 of `body`. */
  signature(body: string | Uint8Array): string {
    return sign('sha256', typeof body === 'string' ? Buffer.from(body, 'utf8') : body, { key: this.privateKey, dsaEncoding: 'der' }).toString('base64');
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

/** One signature header value under every name of `SIGNATURE_HEADERS`. */
export function signatureHeadersOf(value: string): Record<(typeof SIGNATURE_HEADERS)[number], string> {
  return Object.fromEntries(SIGNATURE_HEADERS.map((name) => [name, value])) as Record<(typeof SIGNATURE_HEADERS)[number], string>;
}
