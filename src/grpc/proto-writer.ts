// The byte writer behind json-to-binary.ts: one growing buffer reused for every message, varints,
// UTF-8 strings, length-delimited bodies whose length is written once they end, and the
// well-known types whose JSON is their own (Value, Struct, ListValue, Timestamp).

/** Thrown (one instance, no stack built per throw) where the fast path gives way. */
export const UNSURE = new Error('not for the fast path');

let buf = Buffer.allocUnsafe(16 * 1024);
let pos = 0;

export function ensure(more: number): void {
  if (pos + more <= buf.length) return;
  const next = Buffer.allocUnsafe(Math.max(buf.length * 2, pos + more));
  buf.copy(next, 0, 0, pos);
  buf = next;
}

/** A varint of a non-negative integer below 2^53. */
export function varint(value: number): void {
  ensure(8);
  while (value > 0x7f) {
    buf[pos++] = (value % 128) | 0x80;
    value = Math.floor(value / 128);
  }
  buf[pos++] = value;
}

function varintSize(value: number): number {
  let size = 1;
  while (value > 0x7f) {
    value = Math.floor(value / 128);
    size += 1;
  }
  return size;
}

/** A UTF-16 surrogate without its pair: protobuf-es refuses such a string. */
const LONE_SURROGATE = /\p{Cs}/u;

export function string(value: string): void {
  const length = value.length;
  // Up to 42 UTF-16 units are at most 126 bytes: one byte of length, written after.
  if (length < 43) {
    ensure(1 + length * 3);
    const start = pos++;
    let i = 0;
    for (; i < length; i += 1) {
      const code = value.charCodeAt(i);
      if (code > 0x7f) break;
      buf[pos + i] = code;
    }
    if (i < length && LONE_SURROGATE.test(value)) throw UNSURE;
    const written = i === length ? length : buf.write(value, pos, 'utf8');
    buf[start] = written;
    pos += written;
    return;
  }
  const size = Buffer.byteLength(value, 'utf8');
  if (size !== length && LONE_SURROGATE.test(value)) throw UNSURE;
  varint(size);
  ensure(size);
  pos += buf.write(value, pos, 'utf8');
}

/** Opens a length-delimited body: one byte kept for its length, where `close` writes it. */
export function open(): number {
  ensure(1);
  return pos++;
}

/** Closes the body `open` began, moving it up when its length needs more than one byte. */
export function close(start: number): void {
  const length = pos - start - 1;
  if (length < 0x80) {
    buf[start] = length;
    return;
  }
  const extra = varintSize(length) - 1;
  ensure(extra);
  buf.copyWithin(start + 1 + extra, start + 1, pos);
  const end = pos + extra;
  pos = start;
  varint(length);
  pos = end;
}

export const LEN = 2;
export const tag = (number: number, wireType: number): number => number * 8 + wireType;

export function isObject(json: unknown): json is Record<string, unknown> {
  return typeof json === 'object' && json !== null && !Array.isArray(json);
}

/** google.protobuf.Value: null, number, string, bool, Struct or ListValue. */
export function value(json: unknown): void {
  switch (typeof json) {
    case 'string':
      varint(tag(3, LEN));
      return string(json);
    case 'number':
      if (!Number.isFinite(json)) throw UNSURE;
      ensure(9);
      buf[pos++] = tag(2, 1);
      pos = buf.writeDoubleLE(json, pos);
      return;
    case 'boolean':
      ensure(2);
      buf[pos++] = tag(4, 0);
      buf[pos++] = json ? 1 : 0;
      return;
    case 'object': {
      if (json === null) {
        ensure(2);
        buf[pos++] = tag(1, 0);
        buf[pos++] = 0;
        return;
      }
      const isList = Array.isArray(json);
      varint(tag(isList ? 6 : 5, LEN));
      const at = open();
      if (isList) list(json);
      else struct(json as Record<string, unknown>);
      return close(at);
    }
    default:
      throw UNSURE;
  }
}

/** A map entry of a string key: its key, and its value's tag and body by `write`. */
export function entry(number: number, key: string, write: (json: unknown) => void, item: unknown): void {
  varint(tag(number, LEN));
  const at = open();
  varint(tag(1, LEN));
  string(key);
  write(item);
  close(at);
}

/** Field 2 of a map entry or any message field: the tag, then the body `write` gives. */
export function child(number: number, write: (json: unknown) => void, json: unknown): void {
  varint(tag(number, LEN));
  const at = open();
  write(json);
  close(at);
}

const structValue = (json: unknown): void => {
  if (json === undefined) throw UNSURE;
  child(2, value, json);
};

export function struct(json: Record<string, unknown>): void {
  for (const key of Object.keys(json)) entry(1, key, structValue, json[key]);
}

export function list(json: readonly unknown[]): void {
  for (const item of json) child(1, value, item);
}

const RFC3339_UTC = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/;

export function timestamp(json: unknown): void {
  const match = typeof json === 'string' ? RFC3339_UTC.exec(json) : null;
  if (match === null) throw UNSURE;
  const ms = Date.parse(`${match[1]}Z`);
  if (!(ms >= 0)) throw UNSURE;
  const seconds = ms / 1000;
  const nanos = match[2] === undefined ? 0 : Number(match[2].padEnd(9, '0'));
  if (seconds !== 0) {
    varint(tag(1, 0));
    varint(seconds);
  }
  if (nanos !== 0) {
    varint(tag(2, 0));
    varint(nanos);
  }
}

/** Bytes as a length-delimited field's body. */
export function bytes(value: Buffer): void {
  varint(value.length);
  ensure(value.length);
  pos += value.copy(buf, pos);
}

/** Starts a message. */
export function reset(): void {
  pos = 0;
}

/** The message written since `reset`, as a Buffer of its own (small ones from Node's pool, which gRPC takes as they are). */
export function finish(): Buffer {
  const out = Buffer.allocUnsafe(pos);
  buf.copy(out, 0, 0, pos);
  // One very large answer does not keep its buffer for good.
  if (buf.length > 1024 * 1024) buf = Buffer.allocUnsafe(16 * 1024);
  return out;
}
