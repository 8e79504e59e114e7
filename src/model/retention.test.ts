import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './retention.js';

describe('durations', () => {
  // [text, milliseconds (undefined: refused)]
  const cases: [string, number | undefined][] = [
    ['90s', 90_000],
    ['15m', 900_000],
    ['1h30m', 5_400_000],
    ['7d', 604_800_000],
    ['2w', 1_209_600_000],
    ['1d2h3m4s5ms', 93_784_005],
    ['250ms', 250],
    [' 1h ', 3_600_000],
    ['0s', 0],
    ['90', undefined],
    ['', undefined],
    ['1.5h', undefined],
    ['30m1h', undefined],
    ['1h1h', undefined],
    ['-1h', undefined],
    ['1 h', undefined],
    ['1H', undefined],
    ['off', undefined],
    ['99999999999999999d', undefined],
  ];
  it.each(cases)('reads %j as %j', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    [0, '0s'],
    [1_000, '1s'],
    [5_400_000, '1h30m'],
    [604_800_000, '7d'],
    [93_784_005, '1d2h3m4s5ms'],
  ])('writes %j as %j', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('reads back what it writes', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 45 }), (ms) => parseDuration(formatDuration(ms)) === ms));
  });

  it('never throws on any text', () => {
    fc.assert(fc.property(fc.string(), (text) => parseDuration(text) === undefined || Number.isSafeInteger(parseDuration(text))));
  });
});
