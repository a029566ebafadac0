import { p256 } from '@noble/curves/nist.js';
import { fromHex, KeyFormatError, parsePublicKey, publicKeyOf, toHex } from './keys.js';

/**
 * Signed enclave bundles in the public client libraries' format: a JSON string
 * `{version, data, dataSignature, enclaveQuorumPublic}` where `data` is hex of a JSON document,
 * `dataSignature` a DER ECDSA P-256 signature (hex) over SHA-256 of the `data` bytes, and
 * `enclaveQuorumPublic` the signer's uncompressed key (hex). Pure: no DB, no clock.
 */

/** The bundle version the client libraries expect. */
export const BUNDLE_VERSION = 'v1.0.0';

/** A bundle that cannot be parsed; `reason` names the check. */
export class BundleError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'BundleError';
  }
}

/** A parsed bundle. */
export interface ParsedBundle {
  version: string;
  /** The signed document. */
  data: Record<string, unknown>;
  dataHex: string;
  dataSignature: string;
  enclaveQuorumPublic: string;
}

/** Signs `data` with the enclave's secret scalar (low-S, RFC 6979 deterministic) and returns the bundle string. */
export function signBundle(data: Record<string, unknown>, signerSecretKey: Uint8Array): string {
  const bytes = new TextEncoder().encode(JSON.stringify(data));
  const signature = p256.sign(bytes, signerSecretKey, { format: 'der' });
  return JSON.stringify({
    version: BUNDLE_VERSION,
    data: toHex(bytes),
    dataSignature: toHex(signature),
    enclaveQuorumPublic: toHex(publicKeyOf(signerSecretKey, false)),
  });
}

/** Parses a bundle string (without checking the signature). */
export function parseBundle(text: string): ParsedBundle {
  let outer: unknown;
  try {
    outer = JSON.parse(text);
  } catch {
    throw new BundleError('Bundle is not JSON');
  }
  const { version, data, dataSignature, enclaveQuorumPublic } = (outer ?? {}) as Record<string, unknown>;
  if (typeof version !== 'string' || typeof data !== 'string' || typeof dataSignature !== 'string' || typeof enclaveQuorumPublic !== 'string') {
    throw new BundleError('Bundle needs string version, data, dataSignature and enclaveQuorumPublic');
  }
  let inner: unknown;
  try {
    inner = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(fromHex(data, 'Bundle data')));
  } catch (error) {
    throw new BundleError(error instanceof KeyFormatError ? error.reason : 'Bundle data is not hex-encoded JSON');
  }
  if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) throw new BundleError('Bundle data is not a JSON object');
  return { version, data: inner as Record<string, unknown>, dataHex: data, dataSignature, enclaveQuorumPublic };
}

/** Whether `dataSignature` verifies against `enclaveQuorumPublic` (and, when given, that key is `expectedSigner`). */
export function verifyBundle(bundle: ParsedBundle, expectedSigner?: string): boolean {
  if (expectedSigner !== undefined && bundle.enclaveQuorumPublic.toLowerCase() !== expectedSigner.toLowerCase()) return false;
  try {
    const signer = parsePublicKey(bundle.enclaveQuorumPublic, 'enclaveQuorumPublic').bytes;
    return p256.verify(fromHex(bundle.dataSignature), fromHex(bundle.dataHex), signer, { format: 'der' });
  } catch {
    return false;
  }
}
