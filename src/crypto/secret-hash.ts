import { createHash, hash, randomBytes, scrypt, scryptSync, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { Random } from '../core/random.js';

/**
 * How a credential the sandbox checks later (a platform's client secret, an API token's secret)
 * is stored: scrypt (node:crypto, RFC 7914), salted and slow by design, in the PHC string
 * format `$scrypt$ln=14,r=8,p=1$<salt>$<hash>` (base64 without padding), so the cost can be
 * raised later without breaking stored hashes. ln=14, r=8, p=1 is node's own default: about
 * 45 ms and 16 MiB per guess, where the SHA-256 it replaces cost a microsecond. Pure: no
 * database, no clock.
 */
const SCHEME = 'scrypt';
const LOG_N = 14;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const SALT_BYTES = 16;
const KEY_BYTES = 32;

/** A stored hash from before this format: `sha256:<hex>`, an unsalted SHA-256 of the secret. */
export const LEGACY_PREFIX = 'sha256:';

interface Parsed {
  options: ScryptOptions;
  salt: Buffer;
  hash: Buffer;
}

const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');
const optionsOf = (logN: number, r: number, p: number): ScryptOptions => ({ N: 2 ** logN, r, p, maxmem: 256 * 2 ** logN * r * p });

function parse(stored: string): Parsed | undefined {
  const match = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/.exec(stored);
  if (!match) return undefined;
  const [logN, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (logN < 1 || logN > 24 || r < 1 || p < 1) return undefined;
  return { options: optionsOf(logN, r, p), salt: Buffer.from(match[4]!, 'base64'), hash: Buffer.from(match[5]!, 'base64') };
}

const format = (salt: Buffer, hash: Buffer) => `$${SCHEME}$ln=${LOG_N},r=${BLOCK_SIZE},p=${PARALLELISM}$${b64(salt)}$${b64(hash)}`;

const scryptAsync = (secret: string, salt: Buffer, length: number, options: ScryptOptions): Promise<Buffer> =>
  new Promise((resolve, reject) => scrypt(secret, salt, length, options, (error, key) => (error ? reject(error) : resolve(key))));

/** A salt from the sandbox's random source (seeded runs stay reproducible), else the OS's. */
const saltOf = (random?: Random): Buffer => (random ? Buffer.from(random.bytes(SALT_BYTES)) : randomBytes(SALT_BYTES));

/** The stored form of a new secret: scrypt in libuv's thread pool, so the event loop stays free. */
export async function hashSecret(secret: string, random?: Random): Promise<string> {
  const salt = saltOf(random);
  return format(salt, await scryptAsync(secret, salt, KEY_BYTES, optionsOf(LOG_N, BLOCK_SIZE, PARALLELISM)));
}

/** `hashSecret` on the calling thread (about 45 ms): for startup, before the server listens. */
export function hashSecretSync(secret: string, random?: Random): string {
  const salt = saltOf(random);
  return format(salt, scryptSync(secret, salt, KEY_BYTES, optionsOf(LOG_N, BLOCK_SIZE, PARALLELISM)));
}

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Whether a stored hash should be replaced once its secret is verified: a legacy SHA-256
 * (unsalted) or scrypt at other costs than today's.
 */
export const needsRehash = (stored: string | Buffer): boolean =>
  typeof stored !== 'string' || !stored.startsWith(`$${SCHEME}$ln=${LOG_N},r=${BLOCK_SIZE},p=${PARALLELISM}$`);

/**
 * Whether `secret` is the one `stored` was made from, compared in constant time. `stored` is a
 * `$scrypt$` string, or a legacy form: `sha256:<hex>`, or the raw 32-byte SHA-256 digest an
 * API token kept. scrypt runs in the thread pool. An unreadable stored form matches nothing.
 */
export async function verifySecret(secret: string, stored: string | Buffer): Promise<boolean> {
  if (Buffer.isBuffer(stored)) return stored.length === 32 && timingSafeEqual(stored, sha256(secret));
  if (stored.startsWith(LEGACY_PREFIX)) {
    const digest = Buffer.from(stored.slice(LEGACY_PREFIX.length), 'hex');
    return digest.length === 32 && timingSafeEqual(digest, sha256(secret));
  }
  const parsed = parse(stored);
  if (!parsed) return false;
  const key = await scryptAsync(secret, parsed.salt, parsed.hash.length, parsed.options);
  return key.length === parsed.hash.length && timingSafeEqual(key, parsed.hash);
}

/** `verifySecret` on the calling thread: for startup, before the server listens. */
export function verifySecretSync(secret: string, stored: string | Buffer): boolean {
  if (Buffer.isBuffer(stored) || stored.startsWith(LEGACY_PREFIX)) {
    const digest = Buffer.isBuffer(stored) ? stored : Buffer.from(stored.slice(LEGACY_PREFIX.length), 'hex');
    return digest.length === 32 && timingSafeEqual(digest, sha256(secret));
  }
  const parsed = parse(stored);
  if (!parsed) return false;
  const key = scryptSync(secret, parsed.salt, parsed.hash.length, parsed.options);
  return key.length === parsed.hash.length && timingSafeEqual(key, parsed.hash);
}

/** A hash nobody's secret matches, verified against for an unknown id so it costs what a known one costs. */
export const DECOY_HASH = format(Buffer.alloc(SALT_BYTES), Buffer.alloc(KEY_BYTES));

/**
 * Verified credentials kept in memory so each request does not pay scrypt again: the key is a
 * SHA-256 of the id and the secret presented (so the secret itself is not kept), the value the
 * stored hash it was verified against (a changed secret no longer matches it). Bounded: the
 * oldest entry goes first. A miss costs one scrypt.
 */
export class VerifiedSecrets {
  private readonly entries = new Map<string, string>();

  constructor(private readonly size = 1024) {}

  private static keyOf(id: string, secret: string): string {
    // One call instead of a Hash object fed three times: this runs on every authenticated request.
    return hash('sha256', `${id}\u0000${secret}`, 'base64');
  }

  /** Whether this id and secret were verified against exactly this stored hash. */
  has(id: string, secret: string, stored: string): boolean {
    return this.entries.get(VerifiedSecrets.keyOf(id, secret)) === stored;
  }

  remember(id: string, secret: string, stored: string): void {
    const key = VerifiedSecrets.keyOf(id, secret);
    this.entries.delete(key);
    if (this.entries.size >= this.size) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, stored);
  }

  clear(): void {
    this.entries.clear();
  }
}
