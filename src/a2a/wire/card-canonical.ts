// The bytes an Agent Card signature covers (A2A 1.0.1 §8.4.1): the card without `signatures`,
// with unset and default values left out, written as RFC 8785 (JCS) canonical JSON.

import canonicalize from 'canonicalize';
import { jsonDepth } from '../../json-depth.js';

/** The deepest card canonicalized; a card deeper than any real one is refused, not walked. */
export const MAX_CANONICAL_DEPTH = 64;

/**
 * Fields the 1.0 proto declares without presence (plain `bool`), so `false` is their unset
 * value and is left out. Every other `false` was said on purpose (`optional bool`) and stays.
 */
const IMPLICIT_FALSE = new Set(['required', 'pkceRequired']);

/**
 * The canonical payload of `card`: what is signed and what a signature is checked against.
 *
 * Values that mean "not set" are left out at every depth, as the official SDKs leave them out:
 * `null`, `""`, `[]`, `{}` (after their own contents were cleaned), and `false` in the fields the
 * proto declares without presence (`required` of an extension, `pkceRequired` of an OAuth
 * flow). Every other member stays, whether the 1.0 schema knows it or not: a field a reader may
 * act on (a 0.3 client reads `url`) is covered by the signature.
 *
 * Throws a plain Error for what JCS cannot write (a lone surrogate, a number that is not
 * finite) and for nesting past {@link MAX_CANONICAL_DEPTH}; the verifier words it.
 *
 * @example
 * canonicalCard({ name: 'A', description: '', skills: [], signatures: [] }); // '{"name":"A"}'
 */
export function canonicalCard(card: Record<string, unknown>): string {
  if (jsonDepth(card, MAX_CANONICAL_DEPTH) > MAX_CANONICAL_DEPTH) throw new Error(`the card nests deeper than ${MAX_CANONICAL_DEPTH} levels`);
  const rest = Object.fromEntries(Object.entries(card).filter(([key]) => key !== 'signatures'));
  return canonicalize(cleaned(rest, '') ?? {}) ?? '{}';
}

/** `value` without its unset parts; undefined when nothing is left of it. */
function cleaned(value: unknown, key: string): unknown {
  if (value === null || value === undefined || value === '') return undefined;
  if (value === false && IMPLICIT_FALSE.has(key)) return undefined;
  if (Array.isArray(value)) {
    const items = value.map((item) => cleaned(item, '')).filter((item) => item !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (typeof value === 'object') {
    // fromEntries makes own properties, so a member named "__proto__" stays a member.
    const entries = Object.entries(value).flatMap(([name, member]) => {
      const kept = cleaned(member, name);
      return kept === undefined ? [] : [[name, kept] as const];
    });
    return entries.length > 0 ? Object.fromEntries(entries) : undefined;
  }
  return value;
}
