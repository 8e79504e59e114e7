import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { uuidv7 } from './ids.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The millisecond timestamp in the first 48 bits. */
const msOf = (id: string): number => Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

describe('uuidv7', () => {
  it('is an RFC 9562 version 7 UUID carrying the time it was made', () => {
    const before = Date.now();
    const id = uuidv7();
    expect(id).toMatch(UUID_V7);
    expect(msOf(id)).toBeGreaterThanOrEqual(before);
    expect(msOf(id)).toBeLessThanOrEqual(Date.now());
  });

  it('encodes any 48-bit timestamp, and later times sort later as text', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 48 - 1 }), fc.integer({ min: 0, max: 2 ** 48 - 1 }), (a, b) => {
        const [x, y] = [uuidv7(a), uuidv7(b)];
        expect(x).toMatch(UUID_V7);
        expect(msOf(x)).toBe(a);
        if (a < b) expect(x < y).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  it('never repeats within one millisecond (74 random bits)', () => {
    const ids = new Set(Array.from({ length: 50_000 }, () => uuidv7(1_700_000_000_000)));
    expect(ids.size).toBe(50_000);
  });
});
