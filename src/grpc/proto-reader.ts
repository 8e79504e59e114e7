// The byte reader behind binary-to-json.ts: varints, lengths checked against where their body
// must end, UTF-8 strings that must be UTF-8, skipping what is not known, and the well-known
// types whose JSON is their own (Value, Struct, ListValue, Timestamp). Anything it is not sure
// of throws UNSURE.

/** Thrown (one instance, no stack built per throw) where the fast path gives way. */
export const UNSURE = new Error('not for the fast path');

/** Nested messages read before giving way (protobuf-es's limit, which the caller sets, is higher). */
export const MAX_DEPTH = 48;

const EMPTY = Buffer.alloc(0);
let buf: Buffer = EMPTY;
export let at = 0;

/** A varint's low 32 bits, unsigned. */
export function varint32(end: number): number {
  let result = 0;
  for (let shift = 0; shift < 70; shift += 7) {
    if (at >= end) throw UNSURE;
    const byte = buf[at++]!;
    if (shift < 32) result |= (byte & 0x7f) << shift;
    if (byte < 0x80) return result >>> 0;
  }
  throw UNSURE;
}

/** A tag or a length: a varint of at most 32 bits (protobuf-es refuses more). */
export function uint32(end: number): number {
  let result = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    if (at >= end) throw UNSURE;
    const byte = buf[at++]!;
    if (shift === 28 && byte > 0x0f) throw UNSURE;
    result |= (byte & 0x7f) << shift;
    if (byte < 0x80) return result >>> 0;
  }
  throw UNSURE;
}

/** A varint below 2^53, as a number (a negative int64 gives way). */
function varint53(end: number): number {
  let result = 0;
  let scale = 1;
  for (let i = 0; i < 8; i += 1) {
    if (at >= end) throw UNSURE;
    const byte = buf[at++]!;
    result += (byte & 0x7f) * scale;
    if (byte < 0x80) return result;
    scale *= 128;
  }
  throw UNSURE;
}

/** The end of a length-delimited body that starts here. */
export function bodyEnd(end: number): number {
  const length = uint32(end);
  if (length > end - at) throw UNSURE;
  return at + length;
}

export function string(end: number): string {
  const stop = bodyEnd(end);
  let ascii = true;
  for (let i = at; i < stop; i += 1) {
    if (buf[i]! > 0x7f) {
      ascii = false;
      break;
    }
  }
  const text = buf.toString(ascii ? 'latin1' : 'utf8', at, stop);
  // Bytes that are not UTF-8 come out as U+FFFD: protobuf-es refuses them (and a real U+FFFD takes its path).
  if (!ascii && text.includes('\ufffd')) throw UNSURE;
  at = stop;
  return text;
}

/** Steps over the field of `key` (a tag: its number and wire type); field number 0 is none, as protobuf-es says. */
export function skip(key: number, end: number): void {
  if (key >>> 3 === 0) throw UNSURE;
  const wireType = key & 7;
  if (wireType === 0) varint32(end);
  else if (wireType === 1) at += 8;
  else if (wireType === 2) at = bodyEnd(end);
  else if (wireType === 5) at += 4;
  else throw UNSURE;
  if (at > end) throw UNSURE;
}

/** The key of a record read from the wire: one that would set an object's prototype gives way. */
export function safeKey(key: string): string {
  if (key === '__proto__') throw UNSURE;
  return key;
}


/** google.protobuf.Value: exactly one of its kinds. */
export function value(end: number, depth: number): unknown {
  let result: unknown;
  let set = false;
  while (at < end) {
    const key = uint32(end);
    const number = key >>> 3;
    const wireType = key & 7;
    if (number < 1 || number > 6) {
      skip(key, end);
      continue;
    }
    if (set || wireType !== (number === 1 || number === 4 ? 0 : number === 2 ? 1 : 2)) throw UNSURE;
    set = true;
    if (number === 1) {
      varint32(end);
      result = null;
    } else if (number === 2) {
      if (at + 8 > end) throw UNSURE;
      result = buf.readDoubleLE(at);
      at += 8;
      if (!Number.isFinite(result)) throw UNSURE;
    } else if (number === 3) result = string(end);
    else if (number === 4) result = varint32(end) !== 0;
    else if (depth > MAX_DEPTH) throw UNSURE;
    else result = (number === 5 ? struct : list)(bodyEnd(end), depth + 1);
  }
  if (!set || at !== end) throw UNSURE;
  return result;
}

export function struct(end: number, depth: number): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  while (at < end) {
    const key = uint32(end);
    if (key >>> 3 !== 1) {
      skip(key, end);
      continue;
    }
    if ((key & 7) !== 2) throw UNSURE;
    const entryEnd = bodyEnd(end);
    let name: string | undefined;
    let item: unknown;
    while (at < entryEnd) {
      const tag = uint32(entryEnd);
      if (tag === 0x0a && name === undefined) name = string(entryEnd);
      else if (tag === 0x12 && item === undefined && depth <= MAX_DEPTH) item = value(bodyEnd(entryEnd), depth + 1);
      else throw UNSURE;
    }
    if (name === undefined || item === undefined) throw UNSURE;
    result[safeKey(name)] = item;
  }
  return result;
}

export function list(end: number, depth: number): unknown[] {
  const result: unknown[] = [];
  while (at < end) {
    const key = uint32(end);
    if (key >>> 3 !== 1) {
      skip(key, end);
      continue;
    }
    if ((key & 7) !== 2 || depth > MAX_DEPTH) throw UNSURE;
    result.push(value(bodyEnd(end), depth + 1));
  }
  return result;
}

/** The latest a Timestamp may be in JSON: 9999-12-31T23:59:59Z. */
const MAX_SECONDS = 253_402_300_799;

export function timestamp(end: number): string {
  let seconds = 0;
  let nanos = 0;
  while (at < end) {
    const key = uint32(end);
    if (key === 0x08) seconds = varint53(end);
    else if (key === 0x10) nanos = varint32(end);
    else throw UNSURE;
  }
  if (seconds > MAX_SECONDS || nanos > 999_999_999) throw UNSURE;
  const iso = new Date(seconds * 1000).toISOString();
  if (nanos === 0) return iso.replace('.000Z', 'Z');
  const digits = String(nanos + 1_000_000_000).slice(1);
  const fraction = digits.endsWith('000000') ? digits.slice(0, 3) : digits.endsWith('000') ? digits.slice(0, 6) : digits;
  return iso.replace('.000Z', `.${fraction}Z`);
}

/** Bytes as base64 (standard, padded), as ProtoJSON writes them. */
export function base64(end: number): string {
  const stop = bodyEnd(end);
  const text = buf.toString('base64', at, stop);
  at = stop;
  return text;
}

/** Starts reading `bytes`; their length. */
export function begin(bytes: Uint8Array): number {
  buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  at = 0;
  return buf.length;
}

/** Lets go of the bytes, which are not kept past the call. */
export function release(): void {
  buf = EMPTY;
}
