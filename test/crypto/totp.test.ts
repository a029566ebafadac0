import { describe, expect, it } from 'vitest';
import { parseTotpSecret, totpCode, totpSecretOf, totpUri, verifyTotp } from '../../src/crypto/totp.js';

// RFC 6238 Appendix B: the seeds are the ASCII strings "12345678901234567890" (SHA1),
// "12345678901234567890123456789012" (SHA256) and the 64-byte one (SHA512); 8-digit codes.
const seed = (text: string) => Buffer.from(text, 'ascii').toString('hex');
const sha1 = seed('12345678901234567890');
const sha256 = seed('12345678901234567890123456789012');
const sha512 = seed('1234567890123456789012345678901234567890123456789012345678901234');

const vectors: Array<[number, string, string, string]> = [
  // [T (seconds), SHA1, SHA256, SHA512]
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
];

describe('TOTP (RFC 6238 Appendix B)', () => {
  it.each(vectors)('T=%i gives the RFC codes for SHA1, SHA256 and SHA512', (t, a, b, c) => {
    expect(totpCode(sha1, t * 1000, { digits: 8, algorithm: 'SHA1' })).toBe(a);
    expect(totpCode(sha256, t * 1000, { digits: 8, algorithm: 'SHA256' })).toBe(b);
    expect(totpCode(sha512, t * 1000, { digits: 8, algorithm: 'SHA512' })).toBe(c);
  });

  it('6-digit codes are the last six digits of the 8-digit ones; verification allows one step of drift', () => {
    expect(totpCode(sha1, 59_000)).toBe('287082');
    expect(verifyTotp(sha1, '287082', 59_000)).toBe(true);
    expect(verifyTotp(sha1, '287082', 59_000 + 30_000)).toBe(true);
    expect(verifyTotp(sha1, '287082', 59_000 + 90_000)).toBe(false);
    expect(verifyTotp(sha1, '287083', 59_000)).toBe(false);
    expect(verifyTotp(sha1, 'abcdef', 59_000)).toBe(false);
  });

  it('encodes the secret as hex and base32 and builds the otpauth:// URI', () => {
    const secret = totpSecretOf(Buffer.from('12345678901234567890', 'ascii'));
    expect(secret.hex).toBe(sha1);
    expect(secret.base32).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect(parseTotpSecret(secret.base32)).toEqual(secret);
    expect(parseTotpSecret(secret.hex)).toEqual(secret);
    expect(parseTotpSecret('not a secret')).toBeUndefined();
    const uri = totpUri(secret.base32, 'Service', 'Customer:1');
    expect(uri).toMatch(/^otpauth:\/\/totp\/Service:Customer%3A1\?/);
    expect(uri).toContain('secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect(uri).toContain('issuer=Service');
  });
});
