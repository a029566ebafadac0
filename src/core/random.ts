import { randomFillSync } from 'node:crypto';
import { rngChacha20 } from '@noble/ciphers/chacha.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';

/**
 * The sandbox's one source of randomness. Every value the sandbox draws at random (ids, keys,
 * secrets, tokens, salts, ephemeral HPKE keys, fault probabilities) comes from a stream of this
 * source, so that `--seed` makes them all a function of the seed and the order of requests.
 *
 * Unseeded, each stream is the operating system's CSPRNG (`crypto.randomFillSync`). Seeded, each
 * stream is a ChaCha20 keystream (@noble/ciphers' `rngChacha20`, key and nonce derived from the
 * seed with HKDF-SHA256 from @noble/hashes): deterministic, and as unpredictable as ChaCha20 to
 * whoever does not know the seed.
 */
export interface Random {
  /** Fills `bytes` with random bytes. */
  fill(bytes: Uint8Array): void;
  /** `length` fresh random bytes. */
  bytes(length: number): Uint8Array;
  /** A uniform float in [0, 1) (53 bits). */
  float(): number;
  /**
   * An independent stream for one consumer. Seeded, its bytes depend only on the seed, the
   * label and how much this stream has drawn, so one consumer drawing more (or at another
   * moment) never shifts another's values.
   */
  stream(label: string): Random;
  /** Whether the values are a function of a seed. */
  readonly seeded: boolean;
}

/** Fills a buffer with random bytes (the shape the id generator takes). */
export type RandomSource = (bytes: Uint8Array) => void;

abstract class BaseRandom implements Random {
  abstract fill(bytes: Uint8Array): void;
  abstract stream(label: string): Random;
  abstract readonly seeded: boolean;

  bytes(length: number): Uint8Array {
    const out = new Uint8Array(length);
    this.fill(out);
    return out;
  }

  float(): number {
    const b = this.bytes(7);
    // 53 bits: 5 from the first byte, then 48.
    let value = b[0]! & 0x1f;
    for (let i = 1; i < 7; i += 1) value = value * 256 + b[i]!;
    return value / 2 ** 53;
  }
}

class SystemRandom extends BaseRandom {
  readonly seeded = false;
  fill(bytes: Uint8Array): void {
    randomFillSync(bytes);
  }
  stream(): Random {
    return this;
  }
}

const SALT = new TextEncoder().encode('service-sandbox seed v1');

class SeededRandom extends BaseRandom {
  readonly seeded = true;
  private readonly prg;

  /**
   * @param seed the seed as given (`--seed`)
   * @param label the stream's name (and the database's start count: see `seededRandom`)
   */
  constructor(
    private readonly seed: string,
    private readonly label: string,
  ) {
    super();
    // 40 bytes: rngChacha20's whole key || nonce state.
    this.prg = rngChacha20(hkdf(sha256, new TextEncoder().encode(seed), SALT, new TextEncoder().encode(label), 40));
  }

  fill(bytes: Uint8Array): void {
    bytes.set(this.prg.randomBytes(bytes.length));
  }

  stream(label: string): Random {
    return new SeededRandom(this.seed, `${this.label}/${label}`);
  }
}

/** The operating system's randomness (the default: no seed). */
export const systemRandom = (): Random => new SystemRandom();

/**
 * A deterministic source for `seed`. `epoch` tells apart the starts of one database (a sandbox
 * restarted on the same file with the same seed must not draw the same secrets again).
 */
export const seededRandom = (seed: string, epoch = 0): Random => new SeededRandom(seed, `epoch-${epoch}`);

/** The id generator's shape of a stream. */
export const sourceOf = (random: Random): RandomSource => (bytes) => random.fill(bytes);
