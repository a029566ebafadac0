import { describe, expect, it } from 'vitest';
import { ignoredFields, MAX_UNKNOWN_FIELDS } from '../../src/core/warnings.js';

// The fields a request had and its validated form dropped (src/core/warnings.ts): dot paths in
// the request's order, into objects and arrays of objects, and no more than the limit and one.
describe('ignoredFields', () => {
  it('names dropped fields at any depth, in the request order', () => {
    const input = { a: 1, x: 2, items: [{ id: 'i', typo: 3 }, { id: 'j' }, 'plain'], nested: { keep: { deep: 1, gone: 2 }, zz: undefined }, y: null };
    const output = { a: 1, items: [{ id: 'i' }, { id: 'j' }, 'plain'], nested: { keep: { deep: 1 } } };
    expect(ignoredFields(input, output)).toEqual(['x', 'items.0.typo', 'nested.keep.gone', 'y']);
    expect(ignoredFields(input, output, 'body.')).toEqual(['body.x', 'body.items.0.typo', 'body.nested.keep.gone', 'body.y']);
  });

  it('does not walk arrays whose validated form has another length, nor values that are not plain objects', () => {
    expect(ignoredFields({ list: [{ a: 1, b: 2 }] }, { list: [] })).toEqual([]);
    expect(ignoredFields({ when: new Date(0) }, { when: new Date(0) })).toEqual([]);
  });

  it('stops once it has one more than the limit', () => {
    const input = Object.fromEntries(Array.from({ length: MAX_UNKNOWN_FIELDS * 3 }, (_, i) => [`f${i}`, i]));
    expect(ignoredFields(input, {})).toHaveLength(MAX_UNKNOWN_FIELDS + 1);
    expect(ignoredFields(input, {}, '', 2)).toEqual(['f0', 'f1', 'f2']);
  });
});
