import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeName, encodeName } from './file-names.js';

describe('encodeName', () => {
  it.each([
    ['email-001', 'email-001'],
    ['research.v2', 'research.v2'],
    ['..', '%2E.'],
    ['.hidden', '%2Ehidden'],
    ['a/b', 'a%2Fb'],
    ['佳佳', '%E4%BD%B3%E4%BD%B3'],
    ['CON', '%43ON'],
    ['nul.txt', '%6Eul.txt'],
    ['', '%'],
  ])('%j → %j', (id, name) => {
    expect(encodeName(id)).toBe(name);
    expect(decodeName(name)).toBe(id);
  });

  it('gives a safe, reversible single path segment for any id', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (id) => {
        const name = encodeName(id);
        expect(name).toMatch(/^[A-Za-z0-9_%-][A-Za-z0-9_.%-]*$/);
        expect(name).not.toMatch(/^\.|^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i);
        expect(decodeName(name)).toBe(id);
      }),
      { numRuns: 3000 },
    );
  });
});
