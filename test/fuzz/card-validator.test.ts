// Fuzzing the card validator: any JSON value, mostly a valid card bent out of shape, gets a
// verdict and never an exception. Each error names a JSON Pointer into the value and a rule;
// deep nesting is refused with one `depth` error; assertCard throws only INVALID_CARD or
// CARD_HAS_CREDENTIAL, naming no secret.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jiajiaCard, mexicoCard } from '../../src/card/examples.js';
import { assertCard, checkCard } from '../../src/card/validate.js';
import { isLiteError } from '../../src/errors.js';
import { check } from './expect-fast.js';
import { applyEdits, edits, hostileKey, hostileValue, nest } from './json-mutations.js';
import { fuzzOptions, fuzzTarget, fuzzTimeout } from './runs.js';

const MAX_DEPTH = 32;

/** The value a JSON Pointer names, or `missing`. */
function at(value: unknown, pointer: string): unknown {
  if (pointer === '/') return value;
  let here = value;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (here === null || typeof here !== 'object' || !Object.hasOwn(here, key)) return missing;
    here = (here as Record<string, unknown>)[key];
  }
  return here;
}
const missing = Symbol('missing');

/** How deep `value` nests (objects and arrays), without recursion. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}

const card = fc.oneof(
  { arbitrary: fc.tuple(fc.constantFrom(jiajiaCard(), mexicoCard()), edits(200, MAX_DEPTH)).map(([base, list]) => applyEdits(base, list)), weight: 8 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 1 },
  { arbitrary: hostileValue, weight: 1 },
  { arbitrary: fc.tuple(hostileKey, hostileValue).map(([key, value]) => JSON.parse(`{"protocol":"a2a-lite/1.0",${JSON.stringify(key)}:${JSON.stringify(value)}}`) as unknown), weight: 1 },
  { arbitrary: fc.integer({ min: 1, max: 3000 }).map((levels) => ({ ...jiajiaCard(), description: nest('x', levels) })), weight: 1 },
);

describe('fuzz: the card validator', () => {
  it(
    'gives every JSON value a verdict, each error with a path into the value and a rule',
    () =>
      fuzzTarget('card validator', () => {
        fc.assert(
          fc.property(card, (value) => {
            const { valid, errors } = checkCard(value);
            check(valid === (errors.length === 0), 'valid means no errors', errors);
            const deep = depthOf(value) > MAX_DEPTH;
            if (deep) check(errors.length === 1 && errors[0]?.rule === 'depth' && errors[0].path === '/', 'deep values get one depth error', errors);
            for (const error of errors) {
              check(typeof error.rule === 'string' && error.rule !== '' && typeof error.message === 'string' && error.message !== '', 'an error has a rule and a message', error);
              check(error.path.startsWith('/'), 'a path is a JSON Pointer', error);
              // A missing property is named under its parent; every other path leads to a value.
              const where = error.rule === 'required' ? error.path.slice(0, error.path.lastIndexOf('/')) || '/' : error.path;
              check(at(value, where) !== missing, 'the path leads into the value', error);
              const found = at(value, error.path);
              if (error.rule === 'credential' && typeof found === 'string' && found.length >= 8) check(!error.message.includes(found), 'a credential is never repeated', error);
            }

            let thrown: unknown;
            try {
              check(assertCard(value) === value, 'assertCard returns the card it accepts');
            } catch (error) {
              thrown = error;
            }
            if (valid) check(thrown === undefined, 'assertCard accepts a valid card', thrown);
            else {
              const code = errors.some((e) => e.rule === 'credential') ? 'CARD_HAS_CREDENTIAL' : 'INVALID_CARD';
              if (!isLiteError(thrown, code)) expect(thrown).toMatchObject({ code });
            }
          }),
          fuzzOptions(),
        );
      }),
    fuzzTimeout(500),
  );
});
