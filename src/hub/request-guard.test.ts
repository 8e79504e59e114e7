import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonDepth } from '../json-depth.js';
import { badEscape, checkRequest, MAX_BODY_DEPTH, nestsDeeper } from './request-guard.js';

describe('badEscape', () => {
  it.each([
    ['/agents/a%20b', undefined],
    ['?q=caf%C3%A9&x=%2F', undefined],
    ['%', '%'],
    ['/x%', '%'],
    ['/x%2', '%2'],
    ['%ZZ/rest', '%ZZ'],
    ['%zz', '%zz'],
    ['%E0%A4%A', '%A'],
    ['%C3%28', '%C3%28'],
    ['%FF', '%FF'],
    ['ok%41%ED%A0%80', '%41%ED%A0%80'],
  ])('%s → %s', (text, escape) => {
    expect(badEscape(text)).toBe(escape);
  });

  it('finds a bad escape exactly where decodeURIComponent would fail (property)', () => {
    const piece = fc.oneof(fc.constantFrom('%', '%2', '%41', '%C3', '%A9', '%E0%A4%A4', '%FF', '%zz', 'a', '/', '?', '='), fc.string({ maxLength: 3 }));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join('');
        let decodes = true;
        try {
          decodeURIComponent(text);
        } catch {
          decodes = false;
        }
        const escape = badEscape(text);
        expect(escape === undefined).toBe(decodes);
        if (escape !== undefined) expect(text).toContain(escape.replace(/…$/, ''));
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('nestsDeeper', () => {
  it('agrees with the depth of the parsed value, strings with brackets and escaped quotes included (property)', () => {
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.constantFrom('[', ']', '{"a":"}"}', '\\"[', 1, null), fc.array(tie('node'), { maxLength: 3 }), fc.dictionary(fc.constantFrom('a', '[', '"}'), tie('node'), { maxKeys: 3 })),
    })).node;
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 6 }), (v, limit) => {
        expect(nestsDeeper(JSON.stringify(v), limit)).toBe(jsonDepth(v, limit) > limit);
      }),
      { numRuns: 5_000 },
    );
  });

  it('counts deep text without parsing it, and leaves short text alone', () => {
    expect(nestsDeeper('['.repeat(1_000_000), MAX_BODY_DEPTH)).toBe(true);
    expect(nestsDeeper(`"${'['.repeat(1_000)}"`, MAX_BODY_DEPTH)).toBe(false);
    expect(nestsDeeper(`${']'.repeat(500)}${'['.repeat(100)}`, MAX_BODY_DEPTH)).toBe(false);
  });
});

describe('checkRequest', () => {
  it('names the part that is wrong', () => {
    expect(() => checkRequest({ path: '/agents/%ZZ', body: '' })).toThrow('the path holds "%ZZ", which is not valid percent-encoding');
    expect(() => checkRequest({ path: '/hub/v1/route', search: '?skill=%E0', body: '' })).toThrow('the query holds "%E0"');
    expect(() => checkRequest({ path: '/hub/v1/agents', body: `{"url":${'['.repeat(129)}${']'.repeat(129)}}` })).toThrow(`the request body nests deeper than ${MAX_BODY_DEPTH} levels`);
    expect(() => checkRequest({ path: '/hub/v1/agents', search: '?q=a%20b', body: `{"url":${'['.repeat(127)}${']'.repeat(127)}}` })).not.toThrow();
  });
});
