import bs58check from 'bs58check';

/**
 * Base58Check (Bitcoin alphabet, 4-byte double-SHA-256 checksum) with `bs58check`, as the legacy
 * `encryptedSessionSigningKey` uses. Pure.
 */

/** Encodes bytes as Base58Check. */
export const encodeBase58Check = (bytes: Uint8Array): string => bs58check.encode(bytes);

/** Decodes Base58Check; `undefined` when the text or its checksum is invalid. */
export const decodeBase58Check = (text: string): Uint8Array | undefined => bs58check.decodeUnsafe(text);
