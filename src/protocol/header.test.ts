import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readAnyHeader, readHeader } from './header.js';
import type { ParseWarning } from './types.js';

describe('readHeader', () => {
  it('gives what the general reader gives, on any line', () => {
    const piece = fc.constantFrom(' ', 'id', '=', 'x', '"', '\\', ']', '］', 'a b', '“', 'constructor', '__proto__', 'k', '-1', '\u00a0', '\t', '[');
    const line = fc.array(piece, { maxLength: 16 }).map((parts) => `[A2A:task${parts.join('')}`);
    fc.assert(
      fc.property(line, (text) => {
        const fast: ParseWarning[] = [];
        const slow: ParseWarning[] = [];
        expect(readHeader(text, 0, (w) => fast.push(w))).toEqual(readAnyHeader(text, 0, (w) => slow.push(w)));
        expect(fast).toEqual(slow);
      }),
      { numRuns: 20_000 },
    );
  });
});
