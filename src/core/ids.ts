import { randomFillSync } from 'node:crypto';
import type { Clock } from './clock.js';
import type { RandomSource } from './random.js';

/** Fills a buffer with random bytes; injected so tests (and `--seed`) can make ids deterministic. */
export type { RandomSource };

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
    const bytes = this.pool.slice(this.poolOffset, this.poolOffset + 16);
    this.poolOffset += 16;
    let t = ms;
    for (let i = 5; i >= 0; i -= 1) {
      bytes[i] = t % 256;
      t = Math.floor(t / 256);
    }
    bytes[6] = 0x70 | ((this.counter >> 8) & 0x0f);
    bytes[7] = this.counter & 0xff;
    bytes[8] = 0x80 | (bytes[8]! & 0x3f);
    const hex = Buffer.from(bytes).toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  /** A resource id of the contract's form `<Type>:<uuid>`, e.g. `Customer:0191...`. */
  next(type: string): string {
    return `${type}:${this.uuid()}`;
  }
}
