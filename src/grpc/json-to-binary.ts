// Writes 1.0 JSON (ProtoJSON) straight to the bytes of a protobuf message, without building
// protobuf-es's message objects on the way: the answer a gRPC server encodes on every call.
// It knows what A2A's messages hold (strings, bools, 32-bit integers, enums, bytes, nested and
// repeated messages, string-keyed maps, Struct, Value, ListValue, Timestamp); anything else, or
// JSON it is not sure of, it gives up on, and the caller takes protobuf-es's own path, whose
// bytes are the same and whose errors are the ones reported.

import { ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { bytes, child, entry, finish, isObject, LEN, list, reset, string, struct, tag, timestamp, UNSURE, value, varint } from './proto-writer.js';

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
        const decoded = Buffer.from(json, 'base64');
        if (skipDefault && decoded.length === 0) return;
        varint(tag(number, LEN));
        bytes(decoded);
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
  reset();
  try {
    messageWriter(schema)(json);
  } catch (error) {
    if (error === UNSURE) return undefined;
    throw error;
  }
  return finish();
}
