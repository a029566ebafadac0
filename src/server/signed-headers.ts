import { ApiError, ErrorCode } from '../core/errors.js';
import type { AppContext } from './env.js';

// The signing headers of a request (API.md "Embedded wallet signing"): read here, in the HTTP
// core, so that an operation a wallet signature guards (a quote's execution, a customer's
// contact change) passes them on to the guard that registered with it, without importing it.
// What a stamp must sign, and the pending requests of signed retries, are wallet-auth's.

/** The signing headers of a request. */
export interface SignedHeaders {
  signature?: string | undefined;
  requestId?: string | undefined;
}

/**
 * The names the wallet stamp may come under, accepted alike: the contract's and the one the
 * production service's own clients send.
 */
export const WALLET_SIGNATURE_HEADERS = ['Service-Wallet-Signature', 'Grid-Wallet-Signature'] as const;

/**
 * The wallet stamp of a request, from either header name. Both present with different values
 * is a 400 naming both (which one to check would be a guess).
 */
export function walletSignatureOf(c: AppContext): string | undefined {
  const [service, grid] = WALLET_SIGNATURE_HEADERS.map((name) => c.req.header(name));
  if (service !== undefined && grid !== undefined && service !== grid) {
    const message = 'Send the wallet stamp under one header: Service-Wallet-Signature and Grid-Wallet-Signature carry different values.';
    throw new ApiError(400, ErrorCode.INVALID_INPUT, message, {
      errors: WALLET_SIGNATURE_HEADERS.map((field) => ({ field, constraint: { equalTo: WALLET_SIGNATURE_HEADERS.find((other) => other !== field) }, message: 'Send one of the two headers, or the same stamp in both.' })),
    });
  }
  return service ?? grid;
}

/** Reads the wallet stamp (`Service-Wallet-Signature` or `Grid-Wallet-Signature`) and `Request-Id`. */
export const signedHeadersOf = (c: AppContext): SignedHeaders => ({
  signature: walletSignatureOf(c),
  requestId: c.req.header('Request-Id'),
});
