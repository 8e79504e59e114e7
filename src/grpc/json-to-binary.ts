// Writes 1.0 JSON (ProtoJSON) straight to the bytes of a protobuf message, without building
// protobuf-es's message objects on the way: the answer a gRPC server encodes on every call.
// It knows what A2A's messages hold (strings, bools, 32-bit integers, enums, bytes, nested and
// repeated messages, string-keyed maps, Struct, Value, ListValue, Timestamp); anything else, or
// JSON it is not sure of, it gives up on, and the caller takes protobuf-es's own path, whose
// bytes are the same and whose errors are the ones reported.

import { ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';

/** Thrown (one instance, no stack built per throw) where the fast path gives way. */
const UNSURE = new Error('not for the fast path');

let buf = Buffer.allocUnsafe(16 * 1024);
let pos = 0;

function ensure(more: number): void {
  if (pos + more <= buf.length) return;
  const next = Buffer.allocUnsafe(Math.max(buf.length * 2, pos + more));
  buf.copy(next, 0, 0, pos);
  buf = next;
}

/** A varint of a non-negative integer below 2^53. */
function varint(value: number): void {
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

function string(value: string): void {
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
function open(): number {
  ensure(1);
  return pos++;
}

/** Closes the body `open` began, moving it up when its length needs more than one byte. */
function close(start: number): void {
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

const LEN = 2;
const tag = (number: number, wireType: number): number => number * 8 + wireType;

function isObject(json: unknown): json is Record<string, unknown> {
  return typeof json === 'object' && json !== null && !Array.isArray(json);
}

/** google.protobuf.Value: null, number, string, bool, Struct or ListValue. */
function value(json: unknown): void {
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
function entry(number: number, key: string, write: Write, item: unknown): void {
  varint(tag(number, LEN));
  const at = open();
  varint(tag(1, LEN));
  string(key);
  write(item);
  close(at);
}

/** Field 2 of a map entry or any message field: the tag, then the body `write` gives. */
function child(number: number, write: Write, json: unknown): void {
  varint(tag(number, LEN));
  const at = open();
  write(json);
  close(at);
}

const structValue: Write = (json) => {
  if (json === undefined) throw UNSURE;
  child(2, value, json);
};

function struct(json: Record<string, unknown>): void {
  for (const key of Object.keys(json)) entry(1, key, structValue, json[key]);
}

function list(json: readonly unknown[]): void {
  for (const item of json) child(1, value, item);
}

const RFC3339_UTC = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/;

function timestamp(json: unknown): void {
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

type Write = (json: unknown) => void;

const messageWriters = new WeakMap<DescMessage, Write>();

/** The writer of a message's body (its fields, not its own tag and length). */
function messageWriter(desc: DescMessage): Write {
  const known = messageWriters.get(desc);
  if (known !== undefined) return known;
  switch (desc.typeName) {
    case 'google.protobuf.Value':
      messageWriters.set(desc, value);
      return value;
    case 'google.protobuf.Struct': {
      const write: Write = (json) => (isObject(json) ? struct(json) : (() => { throw UNSURE; })());
      messageWriters.set(desc, write);
      return write;
    }
    case 'google.protobuf.ListValue': {
      const write: Write = (json) => (Array.isArray(json) ? list(json) : (() => { throw UNSURE; })());
      messageWriters.set(desc, write);
      return write;
    }
    case 'google.protobuf.Timestamp':
      messageWriters.set(desc, timestamp);
      return timestamp;
    case 'google.protobuf.Empty':
      break;
    default:
      // Any, Duration, FieldMask and the wrappers have JSON forms of their own.
      if (desc.typeName.startsWith('google.protobuf.')) {
        const write: Write = () => {
          throw UNSURE;
        };
        messageWriters.set(desc, write);
        return write;
      }
  }
  let plans: FieldPlan[] | undefined;
  const write: Write = (json) => {
    if (!isObject(json)) throw UNSURE;
    plans ??= [...desc.fields].sort((a, b) => a.number - b.number).map(planOf);
    let oneofs = 0;
    for (const plan of plans) {
      let item = json[plan.jsonName];
      if (plan.protoName !== undefined) {
        const other = json[plan.protoName];
        if (other !== undefined) {
          // The same field under both its names: protobuf-es refuses it.
          if (item !== undefined) throw UNSURE;
          item = other;
        }
      }
      if (item === undefined) continue;
      if (item === null && !plan.takesNull) {
        // ProtoJSON's null is the default, but protobuf-es counts some of them as setting a oneof.
        if (plan.oneof >= 0 && plan.field.fieldKind !== 'scalar') throw UNSURE;
        continue;
      }
      if (plan.oneof >= 0) {
        const bit = 1 << plan.oneof;
        if ((oneofs & bit) !== 0) throw UNSURE;
        oneofs |= bit;
      }
      plan.write(item);
    }
  };
  messageWriters.set(desc, write);
  return write;
}

interface FieldPlan {
  field: DescField;
  jsonName: string;
  /** The proto name, where it differs from the JSON one (ProtoJSON reads both). */
  protoName: string | undefined;
  /** The field's oneof, by its index in the message, or -1. */
  oneof: number;
  /** JSON null is a value here (google.protobuf.Value, NullValue), not the default. */
  takesNull: boolean;
  write: Write;
}

function planOf(field: DescField): FieldPlan {
  const oneof = field.oneof === undefined ? -1 : field.parent.oneofs.indexOf(field.oneof);
  if (oneof > 30) throw new Error(`too many oneofs in ${field.parent.typeName}`);
  const takesNull = (field.fieldKind === 'message' && field.message.typeName === 'google.protobuf.Value') || (field.fieldKind === 'enum' && field.enum.typeName === 'google.protobuf.NullValue');
  return { field, jsonName: field.jsonName, protoName: field.name === field.jsonName ? undefined : field.name, oneof, takesNull, write: fieldWriter(field) };
}

function fieldWriter(field: DescField): Write {
  const number = field.number;
  switch (field.fieldKind) {
    case 'message': {
      const body = messageWriter(field.message);
      return (json) => child(number, body, json);
    }
    case 'scalar':
    case 'enum': {
      const write = field.fieldKind === 'enum' ? enumWriter(field.enum.values, number) : scalarWriter(field.scalar, number);
      return field.presence === 2 /* IMPLICIT */ ? (json) => write(json, true) : (json) => write(json, false);
    }
    case 'list': {
      if (field.listKind !== 'message' && field.packed) {
        return (json) => {
          if (!Array.isArray(json) || json.length > 0) throw UNSURE;
        };
      }
      const item = itemWriter(field.listKind === 'message' ? field.message : field.listKind === 'enum' ? field.enum.values : field.scalar, number);
      return (json) => {
        if (!Array.isArray(json)) throw UNSURE;
        for (const each of json) item(each);
      };
    }
    case 'map': {
      if (field.mapKey !== ScalarType.STRING) {
        return () => {
          throw UNSURE;
        };
      }
      const write = itemWriter(field.mapKind === 'message' ? field.message : field.mapKind === 'enum' ? field.enum.values : field.scalar, 2);
      return (json) => {
        if (!isObject(json)) throw UNSURE;
        for (const key of Object.keys(json)) entry(number, key, write, json[key]);
      };
    }
  }
}

/**
 * The writer of one item of a list, or of a map entry's value (field 2): always written, even
 * when it is the default; null only where it is a value (google.protobuf.Value).
 */
function itemWriter(kind: DescMessage | readonly { name: string; number: number }[] | ScalarType, number: number): Write {
  if (typeof kind === 'object' && 'typeName' in kind) {
    const body = messageWriter(kind);
    const takesNull = kind.typeName === 'google.protobuf.Value';
    return (json) => {
      if (json === undefined || (json === null && !takesNull)) throw UNSURE;
      child(number, body, json);
    };
  }
  const write = typeof kind === 'object' ? enumWriter(kind, number) : scalarWriter(kind, number);
  return (json) => {
    if (json === null || json === undefined) throw UNSURE;
    write(json, false);
  };
}

type ScalarWrite = (json: unknown, skipDefault: boolean) => void;

function enumWriter(values: readonly { name: string; number: number }[], number: number): ScalarWrite {
  const byName = new Map(values.map((each) => [each.name, each.number]));
  const zero = values[0]?.number ?? 0;
  const key = tag(number, 0);
  return (json, skipDefault) => {
    const found = json === null ? zero : typeof json === 'string' ? byName.get(json) : typeof json === 'number' && Number.isInteger(json) ? json : undefined;
    if (found === undefined || found < 0 || found > 0x7fffffff) throw UNSURE;
    if (skipDefault && found === zero) return;
    varint(key);
    varint(found);
  };
}

function scalarWriter(scalar: ScalarType, number: number): ScalarWrite {
  switch (scalar) {
    case ScalarType.STRING:
      return (json, skipDefault) => {
        if (typeof json !== 'string') throw UNSURE;
        if (skipDefault && json === '') return;
        varint(tag(number, LEN));
        string(json);
      };
    case ScalarType.BOOL:
      return (json, skipDefault) => {
        if (typeof json !== 'boolean') throw UNSURE;
        if (skipDefault && !json) return;
        varint(tag(number, 0));
        varint(json ? 1 : 0);
      };
    case ScalarType.INT32:
    case ScalarType.UINT32:
      // Negative int32s take ten bytes of two's complement: rare enough to leave to protobuf-es.
      return (json, skipDefault) => {
        if (typeof json !== 'number' || !Number.isInteger(json) || json < 0 || json > (scalar === ScalarType.INT32 ? 0x7fffffff : 0xffffffff)) throw UNSURE;
        if (skipDefault && json === 0) return;
        varint(tag(number, 0));
        varint(json);
      };
    case ScalarType.BYTES:
      return (json, skipDefault) => {
        if (typeof json !== 'string' || !BASE64.test(json) || json.replace(/=+$/, '').length % 4 === 1) throw UNSURE;
        const bytes = Buffer.from(json, 'base64');
        if (skipDefault && bytes.length === 0) return;
        varint(tag(number, LEN));
        varint(bytes.length);
        ensure(bytes.length);
        pos += bytes.copy(buf, pos);
      };
    default:
      return () => {
        throw UNSURE;
      };
  }
}

/** Standard or URL-safe base64, padded or not. */
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * `json` as the bytes of a `schema` message, or undefined where the fast path is not sure of
 * it (the caller then asks protobuf-es, which encodes it the same way or says what is wrong).
 */
export function jsonToBinary(schema: DescMessage, json: unknown): Uint8Array | undefined {
  pos = 0;
  try {
    messageWriter(schema)(json);
  } catch (error) {
    if (error === UNSURE) return undefined;
    throw error;
  }
  // A Buffer (small ones from Node's pool), which gRPC takes as it is.
  const bytes = Buffer.allocUnsafe(pos);
  buf.copy(bytes, 0, 0, pos);
  // One very large answer does not keep its buffer for good.
  if (buf.length > 1024 * 1024) buf = Buffer.allocUnsafe(16 * 1024);
  return bytes;
}
