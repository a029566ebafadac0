import { randomFillSync } from 'node:crypto';
import type { Clock } from './clock.js';
import type { RandomSource } from './random.js';

/** Fills a buffer with random bytes; injected so tests (and `--seed`) can make ids deterministic. */
export type { RandomSource };

/** Each byte's two lowercase hex digits. */
const HEX: readonly string[] = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

const defaultRandom: RandomSource = (bytes) => {
  randomFillSync(bytes);
};

/**
 * Generates time-ordered UUIDv7 values (RFC 9562) from the sandbox clock. Within one
 * millisecond (or while the clock is behind the last id, after a clock reset) a counter in
 * `rand_a` keeps them strictly increasing, so ids sort in creation order and serve as a stable
 * pagination key.
 */
export class IdGenerator {
  private lastMs: number;
  private counter = 0;
  // Random bytes are drawn 4 KiB at a time: one call to the source per 256 ids.
  private readonly pool = new Uint8Array(4096);
  private poolOffset = 4096;

  /**
   * @param floorMs no id is stamped at or below this instant (the clock's peak before a reset,
   *   so ids keep sorting in creation order when the clock goes back to real time)
   */
  constructor(
    private readonly clock: Clock,
    private readonly random: RandomSource = defaultRandom,
    floorMs = -1,
  ) {
    this.lastMs = floorMs;
    // The floor's millisecond counts as used up: the first id takes the next one.
    if (floorMs > 0) this.counter = 0xfff;
  }

  /** The instant of the latest id made (or the floor): ids made later sort after it. */
  get latestMs(): number {
    return this.lastMs;
  }

  /** A bare UUIDv7 string. */
  uuid(): string {
    let ms = this.clock.now();
    if (ms <= this.lastMs) {
      ms = this.lastMs;
      this.counter += 1;
      if (this.counter > 0xfff) {
        // Counter exhausted within one millisecond: borrow the next millisecond.
        ms = this.lastMs + 1;
        this.counter = 0;
      }
    } else {
      this.counter = 0;
    }
    this.lastMs = ms;
    if (this.poolOffset + 16 > this.pool.length) {
      this.random(this.pool);
      this.poolOffset = 0;
    }
    const pool = this.pool;
    const at = this.poolOffset;
    this.poolOffset += 16;
    // The 48-bit instant, the version and counter, then the variant and 62 random bits, written
    // from a table of byte pairs instead of filling and hex-encoding a 16-byte copy (issue 26:
    // three to fourteen ids a create).
    const whole = Math.floor(ms);
    const high = Math.floor(whole / 0x10000) % 0x1_0000_0000;
    const low = whole % 0x10000;
    return (
      HEX[high >>> 24]! + HEX[(high >>> 16) & 0xff]! + HEX[(high >>> 8) & 0xff]! + HEX[high & 0xff]! + '-' +
      HEX[low >>> 8]! + HEX[low & 0xff]! + '-' +
      HEX[0x70 | ((this.counter >> 8) & 0x0f)]! + HEX[this.counter & 0xff]! + '-' +
      HEX[0x80 | (pool[at + 8]! & 0x3f)]! + HEX[pool[at + 9]!]! + '-' +
      HEX[pool[at + 10]!]! + HEX[pool[at + 11]!]! + HEX[pool[at + 12]!]! + HEX[pool[at + 13]!]! + HEX[pool[at + 14]!]! + HEX[pool[at + 15]!]!
    );
  }

  /** A resource id of the contract's form `<Type>:<uuid>`, e.g. `Customer:0191...`. */
  next(type: string): string {
    return `${type}:${this.uuid()}`;
  }
}
