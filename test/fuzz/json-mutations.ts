// Mutating a valid JSON document into a near-valid hostile one: a value anywhere replaced by
// one of the wrong type, deleted, given a hostile sibling key, or buried under deep nesting.
// Grammar-aware fuzzing of JSON inputs: most cases stay close enough to valid to reach deep code.
import fc from 'fast-check';
import { piece, words } from './hostile-text.js';

type Json = unknown;

/** Values that break type assumptions: wrong types, edge numbers, credentials, odd strings. */
export const hostileValue: fc.Arbitrary<Json> = fc.oneof(
  { arbitrary: fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, -0, '', ' ', '[]', '{}', [], {}, [null], { '': null }), weight: 3 },
  { arbitrary: words(4), weight: 3 },
  { arbitrary: fc.constantFrom('sk-proj-Abc123Def456Ghi789Jkl012Mno345', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'https://u:p@h.example/', 'Zx81Qw0PlmNbV7cXe2RtYu9Io3As'), weight: 1 },
  { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 2 },
  { arbitrary: fc.array(piece, { maxLength: 4 }), weight: 1 },
);

/** Keys that trip naive code: prototype names, secret-looking names, path characters, empty. */
export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'toString', 'prototype', 'hasOwnProperty', 'apiKey', 'token', 'password', '', '/', '~', '~1', 'a/b~c', 'kind', 'id', 'url', 'text'),
  piece,
);

/**
 * `inner` nested `depth` deep, built without recursion: in arrays alone for an odd depth (what
 * String() and join recurse into), in arrays and objects by turns for an even one.
 */
export function nest(inner: Json, depth: number): Json {
  let value = inner;
  for (let i = 0; i < depth; i += 1) value = depth % 2 === 1 || i % 2 === 0 ? [value] : { a: value };
  return value;
}

/** `n` in 0..max, most often small, sometimes just around `around` (a depth limit). */
export const depth = (around: number, max: number): fc.Arbitrary<number> =>
  fc.oneof({ arbitrary: fc.integer({ min: 1, max: 8 }), weight: 4 }, { arbitrary: fc.integer({ min: around - 3, max: around + 3 }), weight: 2 }, { arbitrary: fc.integer({ min: 1, max }), weight: 1 });

/** One edit: where (an index into the document's places), what (0–4) and with what. */
export type Edit = [number, number, Json, string, number];

/** Which edit: mostly replacing, deleting and adding; nesting and replacing everything less often. */
const editKind = fc.oneof(
  { arbitrary: fc.constant(0), weight: 4 },
  { arbitrary: fc.constant(1), weight: 2 },
  { arbitrary: fc.constant(2), weight: 2 },
  { arbitrary: fc.constant(3), weight: 1 },
  { arbitrary: fc.constant(4), weight: 1 },
);

/** Up to three edits, nesting up to `maxDepth` (often near `limit`), with values from `values`. */
export const edits = (maxDepth: number, limit: number, values: fc.Arbitrary<Json> = hostileValue): fc.Arbitrary<Edit[]> =>
  fc.array(fc.tuple(fc.nat(), editKind, values, hostileKey, depth(limit, maxDepth)), { maxLength: 3 });

/** Every object and array in `value`, with the keys under which they hold something. */
function places(value: Json): { holder: Record<string, Json> | Json[]; key: string | number }[] {
  const found: { holder: Record<string, Json> | Json[]; key: string | number }[] = [];
  const stack: Json[] = [value];
  while (stack.length > 0 && found.length < 200) {
    const item = stack.pop();
    if (Array.isArray(item)) {
      item.forEach((child, i) => {
        found.push({ holder: item, key: i });
        stack.push(child);
      });
    } else if (item !== null && typeof item === 'object') {
      for (const [key, child] of Object.entries(item)) {
        found.push({ holder: item as Record<string, Json>, key });
        stack.push(child);
      }
    }
  }
  return found;
}

/**
 * Applies `edits` to a deep copy of `document`: 0 replaces a value, 1 deletes it, 2 adds a sibling
 * under a hostile key (an own `__proto__` too, as JSON.parse makes it), 3 nests it, 4 replaces the
 * whole document by a hostile value.
 */
export function applyEdits(document: Json, list: readonly Edit[]): Json {
  let root = structuredClone(document);
  for (const [at, kind, shared, key, levels] of list) {
    // A copy: constants are shared between cases, and an edit may later change what it put in.
    const value = typeof shared === 'object' && shared !== null ? structuredClone(shared) : shared;
    const all = places(root);
    const place = all[at % Math.max(all.length, 1)];
    if (kind === 4 || place === undefined) {
      root = kind === 3 ? nest(root, levels) : value;
      continue;
    }
    const { holder, key: slot } = place;
    if (kind === 0) (holder as Record<string, Json>)[slot] = value;
    else if (kind === 1) {
      if (Array.isArray(holder)) holder.splice(slot as number, 1);
      else Reflect.deleteProperty(holder, slot);
    } else if (kind === 2) {
      if (Array.isArray(holder)) holder.push(value);
      else Object.defineProperty(holder, key, { value, enumerable: true, writable: true, configurable: true });
    } else {
      (holder as Record<string, Json>)[slot] = nest((holder as Record<string, Json>)[slot], levels);
    }
  }
  return root;
}
