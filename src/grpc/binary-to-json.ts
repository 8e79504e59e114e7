// Reads the bytes of a protobuf message straight as 1.0 JSON (ProtoJSON), without building
// protobuf-es's message objects on the way: the request a gRPC server decodes on every call.
// The same kinds json-to-binary.ts writes; bytes it is not sure of (anything malformed, a field
// sent twice, a oneof set twice, what protobuf-es would refuse) it gives up on, and the caller
// takes protobuf-es's own path, whose JSON is the same and whose errors are the ones reported.

import { ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';

/** Thrown (one instance, no stack built per throw) where the fast path gives way. */
const UNSURE = new Error('not for the fast path');

/** Nested messages read before giving way (protobuf-es's limit, which the caller sets, is higher). */
const MAX_DEPTH = 48;

const EMPTY = Buffer.alloc(0);
let buf: Buffer = EMPTY;
let at = 0;

/** A varint's low 32 bits, unsigned. */
function varint32(end: number): number {
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
function uint32(end: number): number {
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
function bodyEnd(end: number): number {
  const length = uint32(end);
  if (length > end - at) throw UNSURE;
  return at + length;
}

function string(end: number): string {
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

function skip(wireType: number, end: number): void {
  if (wireType === 0) varint32(end);
  else if (wireType === 1) at += 8;
  else if (wireType === 2) at = bodyEnd(end);
  else if (wireType === 5) at += 4;
  else throw UNSURE;
  if (at > end) throw UNSURE;
}

/** The key of a record read from the wire: one that would set an object's prototype gives way. */
function safeKey(key: string): string {
  if (key === '__proto__') throw UNSURE;
  return key;
}

type Read = (end: number, depth: number) => unknown;

/** google.protobuf.Value: exactly one of its kinds. */
function value(end: number, depth: number): unknown {
  let result: unknown;
  let set = false;
  while (at < end) {
    const key = uint32(end);
    const number = key >>> 3;
    const wireType = key & 7;
    if (number < 1 || number > 6) {
      skip(wireType, end);
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

function struct(end: number, depth: number): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  while (at < end) {
    const key = uint32(end);
    if (key >>> 3 !== 1) {
      skip(key & 7, end);
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

function list(end: number, depth: number): unknown[] {
  const result: unknown[] = [];
  while (at < end) {
    const key = uint32(end);
    if (key >>> 3 !== 1) {
      skip(key & 7, end);
      continue;
    }
    if ((key & 7) !== 2 || depth > MAX_DEPTH) throw UNSURE;
    result.push(value(bodyEnd(end), depth + 1));
  }
  return result;
}

/** The latest a Timestamp may be in JSON: 9999-12-31T23:59:59Z. */
const MAX_SECONDS = 253_402_300_799;

function timestamp(end: number): string {
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

const messageReaders = new WeakMap<DescMessage, Read>();

/** The reader of a message's body, from `at` to `end`. */
function messageReader(desc: DescMessage): Read {
  const known = messageReaders.get(desc);
  if (known !== undefined) return known;
  let read: Read | undefined;
  if (desc.typeName === 'google.protobuf.Value') read = value;
  else if (desc.typeName === 'google.protobuf.Struct') read = struct;
  else if (desc.typeName === 'google.protobuf.ListValue') read = list;
  else if (desc.typeName === 'google.protobuf.Timestamp') read = timestamp;
  // Any, Duration, FieldMask and the wrappers have JSON forms of their own.
  else if (desc.typeName.startsWith('google.protobuf.') && desc.typeName !== 'google.protobuf.Empty') {
    read = () => {
      throw UNSURE;
    };
  }
  if (read !== undefined) {
    messageReaders.set(desc, read);
    return read;
  }
  let plans: (FieldPlan | undefined)[] | undefined;
  const message: Read = (end, depth) => {
    plans ??= planAll(desc);
    const result: Record<string, unknown> = {};
    let seen = 0;
    let oneofs = 0;
    while (at < end) {
      const key = uint32(end);
      const plan = plans[key >>> 3];
      if (plan === undefined) {
        if (key >>> 3 === 0) throw UNSURE;
        skip(key & 7, end);
        continue;
      }
      if ((key & 7) !== plan.wireType) throw UNSURE;
      if (plan.single) {
        // Sent twice: protobuf merges or takes the last; protobuf-es's path says which.
        if ((seen & plan.bit) !== 0) throw UNSURE;
        seen |= plan.bit;
      }
      if (plan.oneof !== 0) {
        if ((oneofs & plan.oneof) !== 0) throw UNSURE;
        oneofs |= plan.oneof;
      }
      plan.read(result, end, depth);
    }
    if (at !== end) throw UNSURE;
    return result;
  };
  messageReaders.set(desc, message);
  return message;
}

interface FieldPlan {
  wireType: number;
  /** Not repeated: a second occurrence gives way. */
  single: boolean;
  /** The field's bit among the message's fields. */
  bit: number;
  /** Its oneof's bit among the message's oneofs, or 0. */
  oneof: number;
  read: (into: Record<string, unknown>, end: number, depth: number) => void;
}

function planAll(desc: DescMessage): (FieldPlan | undefined)[] {
  const plans: (FieldPlan | undefined)[] = [];
  desc.fields.forEach((field, index) => {
    const oneofIndex = field.oneof === undefined ? -1 : desc.oneofs.indexOf(field.oneof);
    if (index > 30 || oneofIndex > 30 || field.number > 1000) throw new Error(`${desc.typeName} is too large for the fast path`);
    plans[field.number] = { ...readerOf(field), bit: 1 << index, oneof: oneofIndex < 0 ? 0 : 1 << oneofIndex };
  });
  return plans;
}

const REFUSE = (): never => {
  throw UNSURE;
};

function readerOf(field: DescField): Omit<FieldPlan, 'bit' | 'oneof'> {
  const name = field.jsonName;
  const implicit = field.presence === 2; /* IMPLICIT: the default is left out of the JSON */
  switch (field.fieldKind) {
    case 'message': {
      const body = messageReader(field.message);
      return { wireType: 2, single: true, read: (into, end, depth) => void (into[name] = nested(body, end, depth)) };
    }
    case 'scalar':
    case 'enum': {
      const [wireType, read] = field.fieldKind === 'enum' ? enumReader(field.enum.values) : scalarReader(field.scalar);
      const zero = field.fieldKind === 'enum' ? field.enum.values[0]?.name : field.scalar === ScalarType.STRING || field.scalar === ScalarType.BYTES ? '' : field.scalar === ScalarType.BOOL ? false : 0;
      return {
        wireType,
        single: true,
        read: (into, end) => {
          const item = read(end, 0);
          if (!implicit || item !== zero) into[name] = item;
        },
      };
    }
    case 'list': {
      if (field.listKind !== 'message' && field.packed) return { wireType: 2, single: false, read: REFUSE };
      const [wireType, read] = field.listKind === 'message' ? messageItem(field.message) : field.listKind === 'enum' ? enumReader(field.enum.values) : scalarReader(field.scalar);
      return {
        wireType,
        single: false,
        read: (into, end, depth) => {
          const item = read(end, depth);
          ((into[name] ??= []) as unknown[]).push(item);
        },
      };
    }
    case 'map': {
      if (field.mapKey !== ScalarType.STRING) return { wireType: 2, single: false, read: REFUSE };
      const [wireType, read] = field.mapKind === 'message' ? messageItem(field.message) : field.mapKind === 'enum' ? enumReader(field.enum.values) : scalarReader(field.scalar);
      const valueTag = 2 * 8 + wireType;
      return {
        wireType: 2,
        single: false,
        read: (into, end, depth) => {
          const entryEnd = bodyEnd(end);
          let key: string | undefined;
          let item: unknown;
          let hasItem = false;
          while (at < entryEnd) {
            const tag = uint32(entryEnd);
            if (tag === 0x0a && key === undefined) key = string(entryEnd);
            else if (tag === valueTag && !hasItem) {
              item = read(entryEnd, depth);
              hasItem = true;
            } else throw UNSURE;
          }
          if (key === undefined || !hasItem) throw UNSURE;
          ((into[name] ??= {}) as Record<string, unknown>)[safeKey(key)] = item;
        },
      };
    }
  }
}

function nested(body: Read, end: number, depth: number): unknown {
  if (depth > MAX_DEPTH) throw UNSURE;
  const stop = bodyEnd(end);
  return body(stop, depth + 1);
}

type ItemReader = [wireType: number, read: (end: number, depth: number) => unknown];

function messageItem(desc: DescMessage): ItemReader {
  const body = messageReader(desc);
  return [2, (end, depth) => nested(body, end, depth)];
}

function enumReader(values: readonly { name: string; number: number }[]): ItemReader {
  const names = new Map(values.map((each) => [each.number, each.name]));
  return [
    0,
    (end) => {
      const number = varint32(end) | 0;
      return names.get(number) ?? number;
    },
  ];
}

function scalarReader(scalar: ScalarType): ItemReader {
  switch (scalar) {
    case ScalarType.STRING:
      return [2, string];
    case ScalarType.BOOL:
      return [0, (end) => varint32(end) !== 0];
    case ScalarType.INT32:
      return [0, (end) => varint32(end) | 0];
    case ScalarType.UINT32:
      return [0, varint32];
    case ScalarType.BYTES:
      return [
        2,
        (end) => {
          const stop = bodyEnd(end);
          const text = buf.toString('base64', at, stop);
          at = stop;
          return text;
        },
      ];
    default:
      return [0, REFUSE];
  }
}

/**
 * The bytes of a `schema` message as its 1.0 JSON object, or undefined where the fast path is
 * not sure of them (the caller then asks protobuf-es, which reads them the same way or says
 * what is wrong).
 */
export function binaryToJson(schema: DescMessage, bytes: Uint8Array): Record<string, unknown> | undefined {
  buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  at = 0;
  try {
    const json = messageReader(schema)(buf.length, 0);
    return typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : undefined;
  } catch (error) {
    if (error === UNSURE) return undefined;
    throw error;
  } finally {
    // The request's bytes are not kept past the call.
    buf = EMPTY;
  }
}
