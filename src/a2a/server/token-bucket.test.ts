import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BucketTable, parseRate } from './token-bucket.js';

/** A clock the test moves by hand. */
function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let at = start;
  return { now: () => at, advance: (ms) => (at += ms) };
}

describe('BucketTable', () => {
  it('lets a burst through, then refuses with the seconds until a token is back', () => {
    const time = clock();
    const table = new BucketTable({ perSecond: 2, burst: 3 }, time.now);
    expect([table.take('a'), table.take('a'), table.take('a')]).toEqual([0, 0, 0]);
    expect(table.take('a')).toBe(1);
    time.advance(499);
    expect(table.take('a')).toBe(1);
    time.advance(1);
    // Half a second at 2/s earns one token.
    expect(table.take('a')).toBe(0);
    expect(table.take('a')).toBeGreaterThanOrEqual(1);
  });

  it('keeps keys apart', () => {
    const table = new BucketTable({ perSecond: 1, burst: 1 }, clock().now);
    expect(table.take('a')).toBe(0);
    expect(table.take('a')).toBe(1);
    expect(table.take('b')).toBe(0);
  });

  it('says a slow rate in whole seconds', () => {
    const table = new BucketTable({ perSecond: 1 / 60, burst: 1 }, clock().now);
    expect(table.take('a')).toBe(0);
    expect(table.take('a')).toBe(60);
  });

  it('never fills past the burst, however long a key was idle', () => {
    const time = clock();
    const table = new BucketTable({ perSecond: 10, burst: 2 }, time.now);
    table.take('a');
    time.advance(3_600_000);
    expect([table.take('a'), table.take('a'), table.take('a')]).toEqual([0, 0, 1]);
  });

  it('earns nothing from a clock that goes back', () => {
    const time = clock();
    const table = new BucketTable({ perSecond: 1, burst: 1 }, time.now);
    table.take('a');
    time.advance(-10_000);
    expect(table.take('a')).toBeGreaterThanOrEqual(1);
  });

  it('stays within its size while addresses rotate, dropping idle keys first', () => {
    const time = clock();
    const table = new BucketTable({ perSecond: 1, burst: 5 }, time.now, 100);
    // A caller that is being limited now…
    for (let i = 0; i < 6; i += 1) table.take('busy');
    // …then 10 000 addresses, each seen once.
    for (let i = 0; i < 10_000; i += 1) {
      table.take(`10.0.${i >> 8}.${i & 255}`);
      expect(table.size).toBeLessThanOrEqual(100);
    }
    expect(table.size).toBe(100);
  });

  it('drops idle (refilled) buckets before busy ones', () => {
    const time = clock();
    const table = new BucketTable({ perSecond: 1, burst: 2 }, time.now, 3);
    table.take('idle');
    time.advance(5000);
    table.take('busy');
    table.take('busy');
    table.take('other');
    // Full: "idle" has refilled and goes first; "busy" keeps its debt.
    table.take('new');
    expect(table.take('busy')).toBe(1);
  });

  it('refuses a rate it cannot keep', () => {
    expect(() => new BucketTable({ perSecond: 0, burst: 1 })).toThrow(RangeError);
    expect(() => new BucketTable({ perSecond: 1, burst: 0 })).toThrow(RangeError);
  });
});

describe('parseRate', () => {
  it.each([
    ['20/s', 20],
    ['600/m', 10],
    ['3600/h', 1],
    ['5', 5],
    ['0.5/s', 0.5],
  ] as const)('%s is %d a second', (text, perSecond) => {
    expect(parseRate(text)).toBeCloseTo(perSecond);
  });

  it.each(['', '0/s', '-1/s', '20/d', '20 per second', '/s', '1e9', 'NaN', '20/s/s'])('refuses %j', (text) => {
    expect(parseRate(text)).toBeUndefined();
  });

  it('never throws', () => {
    fc.assert(fc.property(fc.string(), (text) => {
      const rate = parseRate(text);
      return rate === undefined || (rate > 0 && Number.isFinite(rate));
    }));
  });
});
