import { Secret, TOTP } from 'otpauth';

/**
 * TOTP (RFC 6238) over the `otpauth` library, which implements HOTP/TOTP and the `otpauth://`
 * key-URI format: SHA-1, 6 digits, 30-second steps, the authenticator-app defaults. Pure: the
 * time is passed in, never read.
 */

/** The parameters every authenticator app assumes when the URI names none. */
export const TOTP_DIGITS = 6;
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_ALGORITHM = 'SHA1';

/** A shared secret in the two encodings the contract returns. */
export interface TotpSecret {
  /** The raw secret bytes, hex. */
  hex: string;
  /** The same bytes, RFC 4648 base32 without padding (what apps accept for manual entry). */
  base32: string;
}

/** The encodings of a raw secret (20 bytes is RFC 4226's recommended length). */
export function totpSecretOf(bytes: Uint8Array): TotpSecret {
  const secret = new Secret({ buffer: Uint8Array.from(bytes).buffer });
  return { hex: secret.hex.toLowerCase(), base32: secret.base32 };
}

/** Parses a secret given as hex (the contract's raw `secret`) or base32; undefined when it is neither. */
export function parseTotpSecret(value: string): TotpSecret | undefined {
  const trimmed = value.trim();
  try {
    if (/^[0-9a-fA-F]+$/.test(trimmed) && trimmed.length % 2 === 0 && trimmed.length >= 32) {
      return totpSecretOf(new Uint8Array(Secret.fromHex(trimmed).buffer));
    }
    if (/^[A-Za-z2-7]+=*$/.test(trimmed) && trimmed.length >= 16) {
      return totpSecretOf(new Uint8Array(Secret.fromBase32(trimmed.toUpperCase()).buffer));
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** The code of the time step containing `timestampMs`. */
export function totpCode(secretHex: string, timestampMs: number, options: { digits?: number; algorithm?: string } = {}): string {
  return TOTP.generate({
    secret: Secret.fromHex(secretHex),
    algorithm: options.algorithm ?? TOTP_ALGORITHM,
    digits: options.digits ?? TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    timestamp: timestampMs,
  });
}

/**
 * Whether `code` is the code of the step at `timestampMs` or of one step either side (the usual
 * allowance for clock drift between device and server).
 */
export function verifyTotp(secretHex: string, code: string, timestampMs: number, window = 1): boolean {
  if (!/^\d{6}$/.test(code)) return false;
  const delta = TOTP.validate({
    token: code,
    secret: Secret.fromHex(secretHex),
    algorithm: TOTP_ALGORITHM,
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    timestamp: timestampMs,
    window,
  });
  return delta !== null;
}

/** The `otpauth://totp/...` provisioning URI an authenticator app scans. */
export function totpUri(secretBase32: string, issuer: string, label: string): string {
  return new TOTP({
    issuer,
    label,
    secret: Secret.fromBase32(secretBase32),
    algorithm: TOTP_ALGORITHM,
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
  }).toString();
}
