// Reads the bytes of a protobuf message straight as 1.0 JSON (ProtoJSON), without building
// protobuf-es's message objects on the way: the request a gRPC server decodes on every call.
// The same kinds json-to-binary.ts writes; bytes it is not sure of (anything malformed, a field
// sent twice, a oneof set twice, what protobuf-es would refuse) it gives up on, and the caller
// takes protobuf-es's own path, whose JSON is the same and whose errors are the ones reported.

import { ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { at, base64, begin, bodyEnd, list, MAX_DEPTH, release, safeKey, skip, string, struct, timestamp, uint32, UNSURE, value, varint32 } from './proto-reader.js';

type Read = (end: number, depth: number) => unknown;

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
        skip(key, end);
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
      return [2, base64];
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
  const length = begin(bytes);
  try {
    const json = messageReader(schema)(length, 0);
    return typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : undefined;
  } catch (error) {
    if (error === UNSURE) return undefined;
    throw error;
  } finally {
    release();
  }
}
