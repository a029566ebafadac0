import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { timeOrderedName } from '../../src/resources/customers/service.js';

// A customer's default UMA name is the instant and counter of its UUIDv7 id (60 bits) in 12
// base-36 characters (src/resources/customers/service.ts). Checked here against that definition,
// written with BigInt: the service computes it from two 30-bit limbs.
const byDefinition = (uuid: string): string => {
  const hex = uuid.replace(/-/g, '');
  return ((BigInt(`0x${hex.slice(0, 12)}`) << 12n) | BigInt(`0x${hex.slice(13, 16)}`)).toString(36).padStart(12, '0');
};

const uuidOf = (hex: string): string => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
const v7 = (ms: number, counter: number, rest = randomBytes(8).toString('hex')): string =>
  uuidOf(`${ms.toString(16).padStart(12, '0')}7${counter.toString(16).padStart(3, '0')}${(0x8000 | (parseInt(rest.slice(0, 4), 16) & 0x3fff)).toString(16)}${rest.slice(4, 16)}`);

describe('default UMA names', () => {
  it('are the 60 bits of instant and counter in 12 base-36 characters, at the edges', () => {
    for (const [ms, counter] of [[0, 0], [0, 1], [1, 0], [0, 0xfff], [0xffffffffffff, 0xfff], [0x3ffff, 0xfff], [0x40000, 0], [Date.UTC(2026, 10, 28), 0x7ab]] as const) {
      const uuid = v7(ms, counter);
      expect(timeOrderedName(uuid)).toBe(byDefinition(uuid));
    }
    expect(timeOrderedName(v7(0, 0))).toBe('000000000000');
    expect(timeOrderedName(v7(0xffffffffffff, 0xfff))).toBe((2n ** 60n - 1n).toString(36));
  });

  it('match the definition for random ids, and keep their order', () => {
    const ids = Array.from({ length: 20_000 }, () => v7(Math.floor(Math.random() * 2 ** 48), Math.floor(Math.random() * 4096)));
    for (const uuid of ids) expect(timeOrderedName(uuid)).toBe(byDefinition(uuid));
    const sorted = [...ids].sort();
    const names = sorted.map(timeOrderedName);
    expect([...names].sort()).toEqual(names);
  });
});
