// How strings become PostgreSQL values. Ids, keys, owners and timestamps are UTF-16BE `bytea`, as
// in the SQLite store (sqlite/rows.ts): PostgreSQL's `text` refuses NUL and cannot hold a lone
// surrogate, and orders by collation, while bytes compare exactly as JavaScript compares strings.
// A btree index entry holds at most ~2.7 kB, so columns that are only compared, never read back,
// hold a long string shortened (`indexKey`); task and push config ids, which are read back and
// joined on, are kept whole and bounded (`checkId`).

import { createHash } from 'node:crypto';
import { LiteError } from '../../errors.js';

/** A string as UTF-16BE bytes, whose byte order is JavaScript's string order. */
export function key(text: string): Buffer {
  return Buffer.from(text, 'utf16le').swap16();
}

/** The string `key` made the bytes of. */
export function unkey(bytes: Buffer): string {
  return Buffer.from(bytes).swap16().toString('utf16le');
}

/** Bytes of a key kept whole in an index column: 256 UTF-16 code units. */
const WHOLE_BYTES = 512;
/** Of a longer key, the leading bytes kept before its digest. */
const PREFIX_BYTES = 478;

/**
 * `key(text)` for a column that is compared and ordered but never read back: whole up to 256
 * code units, else its first 239 code units, a marker byte and the SHA-256 of the whole. The
 * marker makes the length odd, so a shortened key never equals a whole one; two long keys are
 * equal when their texts are. Order among long keys sharing their first 239 code units is the
 * digest's, the one place where it differs from JavaScript's.
 */
export function indexKey(text: string): Buffer {
  const bytes = key(text);
  if (bytes.length <= WHOLE_BYTES) return bytes;
  return Buffer.concat([bytes.subarray(0, PREFIX_BYTES), Buffer.of(0xff), createHash('sha256').update(bytes).digest()]);
}

/** The longest task or push config id the store keeps (in UTF-16 code units). */
export const MAX_ID_LENGTH = 512;

/**
 * Refuses an id too long for the store's indexes with INPUT_TOO_LARGE. The runtime makes task
 * ids (UUIDs) and the wire caps push config ids at 256, so only a caller that skips both meets it.
 */
export function checkId(id: string, what: string): void {
  if (id.length > MAX_ID_LENGTH) {
    throw new LiteError('INPUT_TOO_LARGE', `a ${what} of ${id.length} characters is longer than the PostgreSQL store keeps (${MAX_ID_LENGTH})`, { limit: MAX_ID_LENGTH });
  }
}

/** Lone UTF-16 surrogates, which UTF-8 text cannot hold. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Refuses, with USAGE, a replica or role name that PostgreSQL's `text` cannot keep exactly. These
 * names are the cluster's own (never a client's), kept as text so that an operator reads them.
 */
export function checkName(name: string, what: string): string {
  if (name === '' || name.length > 200 || name.includes('\u0000') || LONE_SURROGATE.test(name)) {
    throw new LiteError('USAGE', `a ${what} name must be 1 to 200 characters of text, without NUL or lone surrogates; got ${JSON.stringify(name.slice(0, 40))}`);
  }
  return name;
}
