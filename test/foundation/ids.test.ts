import { describe, expect, it } from 'vitest';
import { IdGenerator } from '../../src/core/ids.js';
import type { Clock } from '../../src/core/clock.js';

/** A UUIDv7 written byte by byte, as RFC 9562 lays it out: 48-bit instant, version 7 and a 12-bit counter, variant 10 and random bits. */
function reference(ms: number, counter: number, random: Uint8Array): string {
  const bytes = new Uint8Array(16);
  bytes.set(random);
  let t = Math.floor(ms);
  for (let i = 5; i >= 0; i -= 1) {
    bytes[i] = t % 256;
    t = Math.floor(t / 256);
  }
  bytes[6] = 0x70 | ((counter >> 8) & 0x0f);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = Buffer.from(bytes).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A random source that writes a known sequence of bytes (a simple LCG), one 4 KiB pool at a time. */
function sequenceSource() {
  let state = 12345;
  const drawn: number[] = [];
  return {
    drawn,
    fill: (pool: Uint8Array) => {
      for (let i = 0; i < pool.length; i += 1) {
        state = (state * 1103515245 + 12345) >>> 0;
        pool[i] = state >>> 24;
        drawn.push(pool[i]!);
      }
    },
  };
}

describe('IdGenerator', () => {
  it('writes each UUIDv7 exactly as its bytes lay it out: instant, version and counter, variant and random bits', () => {
    let now = Date.parse('2026-11-27T12:00:00.000Z');
    const clock = { now: () => now } as Clock;
    const source = sequenceSource();
    const ids = new IdGenerator(clock, source.fill);
    let counter = -1;
    let last = -1;
    const made: string[] = [];
    // Many ids in one millisecond (the counter runs out and borrows the next one), then the clock
    // moving on, back, and to the edges of the 48-bit instant's bytes.
    const instants = [...Array(5000).fill(now), now + 1, now + 7, now + 3, 0xff_ffff_ffff, 0x1_0000_0000_00, 2 ** 47 + 255];
    for (const [index, instant] of instants.entries()) {
      now = instant;
      const id = ids.uuid();
      let ms = instant;
      if (ms <= last) {
        ms = last;
        counter += 1;
        if (counter > 0xfff) {
          ms = last + 1;
          counter = 0;
        }
      } else {
        counter = 0;
      }
      last = ms;
      expect(id).toBe(reference(ms, counter, Uint8Array.from(source.drawn.slice(index * 16, index * 16 + 16))));
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      made.push(id);
    }
    // Strictly increasing as made.
    for (let i = 1; i < made.length; i += 1) expect(made[i]! > made[i - 1]!, `${made[i - 1]} then ${made[i]}`).toBe(true);
    expect(ids.next('Customer')).toMatch(/^Customer:[0-9a-f]{8}-/);
  });
});
