// A Bloom filter of the idempotency keys in the store, so that a send with a new key (nearly
// every one) costs no lookup: the filter says for sure that a key is absent, and only a key it
// may hold is looked up. It is built from the table when the store opens, and each key saved
// joins it (one process writes a store file). A false "may hold" costs one lookup; the answer
// never depends on the filter.

import type { SqliteDatabase } from './driver.js';

/** 2^23 bits (1 MiB): about 2 % false positives at a million keys, with four hashes. */
const BITS = 1 << 23;
const HASHES = 4;
/** Rows read at a time while the filter is built. */
const PAGE = 10_000;

export class KeyFilter {
  private readonly bits = new Uint32Array(BITS / 32);

  /** The filter of every key in `idempotency_keys`. */
  static of(db: SqliteDatabase): KeyFilter {
    const filter = new KeyFilter();
    const first = db.prepare(`SELECT owner, key FROM idempotency_keys ORDER BY owner, key LIMIT ${PAGE}`);
    const next = db.prepare(`SELECT owner, key FROM idempotency_keys WHERE (owner, key) > (?, ?) ORDER BY owner, key LIMIT ${PAGE}`);
    for (let rows = first.all() as { owner: Buffer; key: Buffer }[]; rows.length > 0; ) {
      for (const row of rows) filter.add(row.owner, row.key);
      if (rows.length < PAGE) break;
      const last = rows.at(-1)!;
      rows = next.all(last.owner, last.key) as { owner: Buffer; key: Buffer }[];
    }
    return filter;
  }

  add(owner: Buffer, key: Buffer): void {
    for (const bit of positions(owner, key)) this.bits[bit >>> 5]! |= 1 << (bit & 31);
  }

  /** False when the key is certainly not in the store. */
  mightHave(owner: Buffer, key: Buffer): boolean {
    for (const bit of positions(owner, key)) if ((this.bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    return true;
  }
}

/** The filter's bits for a key: double hashing of two FNV-1a hashes of its bytes. */
function positions(owner: Buffer, key: Buffer): number[] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  const mix = (byte: number): void => {
    a = Math.imul(a ^ byte, 0x01000193);
    b = Math.imul(b ^ byte, 0x5bd1e995);
  };
  for (const byte of owner) mix(byte);
  mix(0x100);
  for (const byte of key) mix(byte);
  b |= 1;
  const out: number[] = [];
  for (let i = 0; i < HASHES; i += 1) out.push(((a + Math.imul(i, b)) >>> 0) % BITS);
  return out;
}
