import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { base58, base64, bech32, bech32m, createBase58check, hex } from '@scure/base';
import { countrySpecs, isValidBIC, validateIBAN, ValidationErrorsIBAN } from 'ibantools';
import { isCalendarDate } from '../../core/clock.js';

/**
 * Format checks of external-account identifiers. Each returns a problem message, or
 * undefined when the value is valid. Libraries do the encodings: ibantools (IBAN country
 * lengths, BBAN formats and mod-97), @scure/base (base58, base58check, bech32, bech32m) and
 * @noble/hashes (keccak-256 for EIP-55, SHA-256 for base58check).
 */

const base58check = createBase58check(sha256);
const encoder = new TextEncoder();

/** ISO 3166-1 alpha-2: is this an assigned country code? */
export function isCountryCode(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && Object.prototype.hasOwnProperty.call(countrySpecs, code);
}

/** IBAN: country, per-country length, BBAN format and the mod-97 check. */
export function ibanProblem(iban: string): string | undefined {
  const result = validateIBAN(iban);
  if (result.valid) return undefined;
  const errors = new Set(result.errorCodes);
  if (errors.has(ValidationErrorsIBAN.NoIBANCountry)) return `${iban.slice(0, 2)} is not a country that uses IBANs.`;
  if (errors.has(ValidationErrorsIBAN.WrongBBANLength)) {
    const spec = countrySpecs[iban.slice(0, 2)];
    return `An IBAN of ${iban.slice(0, 2)} has ${spec?.chars ?? 'a fixed number of'} characters; this one has ${iban.length}.`;
  }
  if (errors.has(ValidationErrorsIBAN.WrongBBANFormat)) return `The account part of this IBAN does not have the format of ${iban.slice(0, 2)}.`;
  if (errors.has(ValidationErrorsIBAN.WrongIBANChecksum) || errors.has(ValidationErrorsIBAN.WrongAccountBankBranchChecksum)) {
    return 'The IBAN check digits are wrong (mod-97 check failed).';
  }
  return 'This is not a valid IBAN.';
}

/** SWIFT BIC: 8 or 11 characters with an assigned country code. */
export function bicProblem(bic: string): string | undefined {
  if (!/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(bic)) return 'A SWIFT BIC has 8 or 11 characters: bank (4 letters), country (2), location (2), branch (3, optional).';
  if (!isValidBIC(bic) || !isCountryCode(bic.slice(4, 6))) return `${bic.slice(4, 6)} in this BIC is not a country code.`;
  return undefined;
}

/** US ABA routing number: 9 digits whose weighted sum (3, 7, 1) is a multiple of 10. */
export function abaProblem(routing: string): string | undefined {
  if (!/^[0-9]{9}$/.test(routing)) return 'A routing number has 9 digits.';
  const d = [...routing].map(Number);
  const sum = 3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]! + d[8]!);
  return sum % 10 === 0 ? undefined : 'The routing number fails the ABA checksum.';
}

/** International calling codes of the countries whose accounts carry a phone number. */
const callingCodes: Readonly<Record<string, string>> = {
  BD: '880', BJ: '229', BR: '55', BW: '267', CG: '242', CI: '225', CM: '237', CN: '86', CO: '57', EG: '20', GH: '233',
  HT: '509', ID: '62', KE: '254', MW: '265', PK: '92', RW: '250', SN: '221', SV: '503', TG: '228', TZ: '255', UG: '256',
  ZM: '260',
};

/** E.164: `+`, country calling code, subscriber number, 15 digits at most; with `country`, its calling code. */
export function e164Problem(phone: string, country?: string): string | undefined {
  if (!/^\+[1-9][0-9]{6,14}$/.test(phone)) return 'An E.164 phone number is + and 7 to 15 digits, e.g. +254712345678.';
  const code = country ? callingCodes[country] : undefined;
  if (code && !phone.startsWith(`+${code}`)) return `A phone number in ${country} starts with +${code}.`;
  return undefined;
}

/** A PIX key of the given kind. CPF/CNPJ check digits are not enforced: the sandbox suffix rules need the last digits free. */
export function pixKeyProblem(key: string, kind: string): string | undefined {
  switch (kind) {
    case 'CPF':
      return /^[0-9]{11}$/.test(key) ? undefined : 'A CPF key is 11 digits.';
    case 'CNPJ':
      return /^[0-9]{14}$/.test(key) ? undefined : 'A CNPJ key is 14 digits.';
    case 'EMAIL':
      return /^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$/.test(key) && key.length <= 77 ? undefined : 'An EMAIL key is an email address of at most 77 characters.';
    case 'PHONE':
      return /^\+55[0-9]{10,11}$/.test(key) ? undefined : 'A PHONE key is a Brazilian number in E.164: +55, area code and number (10 or 11 digits).';
    case 'RANDOM':
      return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(key) ? undefined : 'A RANDOM key is a UUID such as 123e4567-e89b-12d3-a456-426614174000 (lower case).';
    default:
      return `${kind} is not a PIX key type.`;
  }
}

/** UPI virtual payment address: `handle@psp`. */
export function vpaProblem(vpa: string): string | undefined {
  return /^[a-zA-Z0-9.\-_]{2,256}@[a-zA-Z][a-zA-Z0-9]{1,63}$/.test(vpa) ? undefined : 'A UPI VPA looks like name@bank (letters, digits, dot, dash, underscore before @; the PSP handle after).';
}

/** The EIP-55 checksummed form of a 40-hex-digit address. */
export function toChecksumAddress(address: string): string {
  const lower = address.slice(2).toLowerCase();
  const digest = hex.encode(keccak_256(encoder.encode(lower)));
  let out = '0x';
  for (let i = 0; i < 40; i += 1) out += parseInt(digest[i]!, 16) >= 8 ? lower[i]!.toUpperCase() : lower[i]!;
  return out;
}

/** EVM address: 0x + 40 hex digits; when it mixes cases, the EIP-55 checksum must hold. */
export function evmAddressProblem(address: string): string | undefined {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return 'An EVM address is 0x followed by 40 hexadecimal digits.';
  const body = address.slice(2);
  if (body === body.toLowerCase() || body === body.toUpperCase()) return undefined;
  return toChecksumAddress(address) === address ? undefined : 'The mixed-case address fails its EIP-55 checksum.';
}

/** Solana address: base58 of a 32-byte public key. */
export function solanaAddressProblem(address: string): string | undefined {
  try {
    if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address)) throw new Error('alphabet');
    return base58.decode(address).length === 32 ? undefined : 'A Solana address encodes 32 bytes.';
  } catch {
    return 'A Solana address is base58 (32 to 44 characters, no 0, O, I or l) of a 32-byte public key.';
  }
}

/** Tron address: base58check of 0x41 + 20 bytes, so it starts with T. */
export function tronAddressProblem(address: string): string | undefined {
  try {
    const bytes = base58check.decode(address);
    return bytes.length === 21 && bytes[0] === 0x41 ? undefined : 'A Tron address is base58check of 0x41 and 20 bytes (it starts with T).';
  } catch {
    return 'A Tron address is base58check with a valid checksum, 34 characters starting with T.';
  }
}

/** Spark network prefixes (bech32m human-readable parts). */
const sparkPrefixes = new Set(['spark', 'sparkt', 'sparkrt', 'sparks', 'sparkl']);

/** Decodes a Spark address: bech32m whose payload carries the 33-byte identity public key (protobuf field 1). */
export function sparkIdentityKey(address: string): Uint8Array | undefined {
  try {
    const decoded = bech32m.decode(address.toLowerCase() as `${string}1${string}`, 1023);
    if (!sparkPrefixes.has(decoded.prefix)) return undefined;
    const payload = bech32m.fromWords(decoded.words);
    if (payload[0] !== 0x0a || payload[1] !== 0x21) return undefined;
    const key = payload.slice(2, 35);
    return key.length === 33 && (key[0] === 2 || key[0] === 3) ? key : undefined;
  } catch {
    return undefined;
  }
}

/** Spark address: bech32m (`spark1...`, `sparkt1...`, `sparkrt1...`) holding a compressed identity key. */
export function sparkAddressProblem(address: string): string | undefined {
  if (address !== address.toLowerCase() && address !== address.toUpperCase()) return 'A Spark address must not mix upper and lower case.';
  return sparkIdentityKey(address)
    ? undefined
    : 'A Spark address is bech32m with prefix spark (or sparkt, sparkrt, sparks, sparkl) carrying a 33-byte identity public key, with a valid checksum.';
}

/** Lightning BOLT11 invoice: bech32 with prefix ln + network (bc, tb, bcrt, tbs) and optional amount. */
export function bolt11Problem(invoice: string): string | undefined {
  try {
    const decoded = bech32.decode(invoice.toLowerCase() as `${string}1${string}`, 7089);
    if (!/^ln(bc|tb|bcrt|tbs)([0-9]+[munp]?)?$/.test(decoded.prefix)) return 'A BOLT11 invoice starts with lnbc, lntb, lnbcrt or lntbs.';
    return undefined;
  } catch {
    return 'A BOLT11 invoice is bech32 (lnbc...) with a valid checksum.';
  }
}

/** Lightning BOLT12 offer: `lno1` and bech32 characters, without checksum; `+` may join continued parts. */
export function bolt12Problem(offer: string): string | undefined {
  const joined = offer.toLowerCase().replace(/\+\s*/g, '');
  return /^lno1[02-9ac-hj-np-z]{20,}$/.test(joined) ? undefined : 'A BOLT12 offer starts with lno1 followed by bech32 characters.';
}

/** Lightning address (LUD-16): `user@domain`, user part lower-case letters, digits, `-_.+`. */
export function lightningAddressProblem(address: string): string | undefined {
  return /^[a-z0-9\-_.+]+@([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/.test(address) ? undefined : 'A lightning address looks like user@domain.com (lower case).';
}

/** `YYYY-MM-DD` that is a real calendar date. */
export function dateProblem(value: string): string | undefined {
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(value)) return 'A date is YYYY-MM-DD.';
  return isCalendarDate(value) ? undefined : `${value} is not a calendar date.`;
}

/** A plain email address. */
export function emailProblem(value: string): string | undefined {
  return /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/.test(value) && value.length <= 255 ? undefined : 'This is not an email address.';
}

// ---------------------------------------------------------------------------
// Wallet signatures (ownership verification)
// ---------------------------------------------------------------------------

function recoverSecp256k1(signature65: Uint8Array, recovery: number, digest: Uint8Array): Uint8Array | undefined {
  try {
    const signature = secp256k1.Signature.fromBytes(signature65.slice(0, 64), 'compact').addRecoveryBit(recovery);
    return signature.recoverPublicKey(digest).toBytes(false);
  } catch {
    return undefined;
  }
}

function hexBytes(value: string): Uint8Array | undefined {
  const body = value.startsWith('0x') ? value.slice(2) : value;
  if (!/^([0-9a-fA-F]{2})+$/.test(body)) return undefined;
  return hex.decode(body.toLowerCase());
}

function prefixedKeccak(prefix: string, message: string): Uint8Array {
  const bytes = encoder.encode(message);
  return keccak_256(new Uint8Array([...encoder.encode(`${prefix}${bytes.length}`), ...bytes]));
}

function recoverFromRsv(signatureHex: string, digest: Uint8Array): Uint8Array | undefined {
  const signature = hexBytes(signatureHex);
  if (!signature || signature.length !== 65) return undefined;
  const v = signature[64]!;
  const recovery = v >= 27 ? v - 27 : v;
  if (recovery !== 0 && recovery !== 1) return undefined;
  return recoverSecp256k1(signature, recovery, digest);
}

/** EIP-191 (`personal_sign`): does the 65-byte hex signature over `message` recover to `address`? */
export function verifyEip191(address: string, message: string, signatureHex: string): boolean {
  const publicKey = recoverFromRsv(signatureHex, prefixedKeccak('\x19Ethereum Signed Message:\n', message));
  if (!publicKey) return false;
  const recovered = hex.encode(keccak_256(publicKey.slice(1)).slice(12));
  return recovered === address.slice(2).toLowerCase();
}

/** TRON `signMessageV2`: the same as EIP-191 with the TRON prefix; the address is base58check(0x41 + 20 bytes). */
export function verifyTronMessage(address: string, message: string, signatureHex: string): boolean {
  const publicKey = recoverFromRsv(signatureHex, prefixedKeccak('\x19TRON Signed Message:\n', message));
  if (!publicKey) return false;
  const body = keccak_256(publicKey.slice(1)).slice(12);
  return base58check.encode(new Uint8Array([0x41, ...body])) === address;
}

/** Solana: base58 Ed25519 signature over the UTF-8 message by the address's public key. */
export function verifySolanaMessage(address: string, message: string, signatureBase58: string): boolean {
  try {
    const signature = base58.decode(signatureBase58);
    if (signature.length !== 64) return false;
    return ed25519.verify(signature, encoder.encode(message), base58.decode(address));
  } catch {
    return false;
  }
}

function varint(n: number): Uint8Array {
  if (n < 0xfd) return new Uint8Array([n]);
  return new Uint8Array([0xfd, n & 0xff, n >> 8]);
}

/** The Bitcoin signed-message digest: double SHA-256 of the magic prefix and the message. */
export function bitcoinMessageDigest(message: string): Uint8Array {
  const magic = encoder.encode('Bitcoin Signed Message:\n');
  const body = encoder.encode(message);
  return sha256(sha256(new Uint8Array([magic.length, ...magic, ...varint(body.length), ...body])));
}

/**
 * BIP-137 (or Electrum) message signature, base64 of 65 bytes with a header byte: does it
 * recover to this compressed public key? BIP-137 headers are 27..42; Electrum uses 27..34.
 */
export function verifyBitcoinMessage(publicKey33: Uint8Array, message: string, signatureBase64: string, scheme: 'bip137' | 'electrum'): boolean {
  let signature: Uint8Array;
  try {
    signature = base64.decode(signatureBase64);
  } catch {
    return false;
  }
  if (signature.length !== 65) return false;
  const header = signature[0]!;
  const maxHeader = scheme === 'electrum' ? 34 : 42;
  if (header < 27 || header > maxHeader) return false;
  const recovered = recoverSecp256k1(signature.slice(1), (header - 27) & 3, bitcoinMessageDigest(message));
  if (!recovered) return false;
  const compressed = secp256k1.Point.fromBytes(recovered).toBytes(true);
  return hex.encode(compressed) === hex.encode(publicKey33);
}
