import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonDepth } from './json-depth.js';

/** The plain recursive definition. */
function reference(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  return 1 + Math.max(0, ...Object.values(value).map(reference));
}

describe('jsonDepth', () => {
  it('is the nesting depth, up to the limit', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 12 }), (value, limit) => {
        const depth = reference(value);
        expect(jsonDepth(value, limit)).toBe(depth > limit ? limit + 1 : depth);
      }),
    );
  });

  it('stops counting past the limit, however deep the value', () => {
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i += 1) deep = { a: [deep] };
    expect(jsonDepth(deep, 64)).toBe(65);
    // eslint-disable-next-line no-sparse-arrays
    expect(jsonDepth([1, , [{}]], 10)).toBe(3);
  });
});
