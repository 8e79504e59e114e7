// The methods of A2A's gRPC service (lf.a2a.v1.A2AService, generated from proto/a2a.proto) and
// the one conversion between their protobuf messages and the 1.0 JSON the method tables read
// and write: ProtoJSON (camelCase names, enum names, RFC 3339 times, base64 bytes), which is
// what A2A 1.0 defines its JSON to be (§5.5). Both sides use it: the server decodes requests and
// encodes answers, the client the other way round. Each way goes straight between bytes and JSON
// first (binary-to-json.ts, json-to-binary.ts) and through protobuf-es's messages only for what
// that path gives way on, so that protobuf-es alone ever words an error.

import { fromBinary, fromJson, toBinary, toJson, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import { LiteError } from '../errors.js';
import { jsonDepth } from '../json-depth.js';
import { A2AService } from './gen/a2a_pb.js';
import { binaryToJson } from './binary-to-json.js';
import { jsonToBinary } from './json-to-binary.js';

/** One method of the service, named as the JSON-RPC binding names it (`SendMessage`). */
export interface GrpcMethod {
  name: string;
  /** The HTTP/2 path gRPC calls it at: `/lf.a2a.v1.A2AService/SendMessage`. */
  path: string;
  /** Answers with a stream of StreamResponse messages. */
  streaming: boolean;
  input: DescMessage;
  output: DescMessage;
}

/** The service's full name, as its paths begin. */
export const SERVICE_NAME = A2AService.typeName;

/** Nested messages a request may hold (Struct and Value nest one level each). */
const MAX_DEPTH = 64;

/** Every method of the service, by name. */
export const GRPC_METHODS: ReadonlyMap<string, GrpcMethod> = new Map(
  A2AService.methods.map((method) => [
    method.name,
    { name: method.name, path: `/${SERVICE_NAME}/${method.name}`, streaming: method.methodKind === 'server_streaming', input: method.input, output: method.output },
  ]),
);

/** The methods by path, as the server routes a call. */
export const GRPC_PATHS: ReadonlyMap<string, GrpcMethod> = new Map([...GRPC_METHODS.values()].map((method) => [method.path, method]));

/** The method `name`, which the service must have. */
export function grpcMethod(name: string): GrpcMethod {
  const method = GRPC_METHODS.get(name);
  if (method === undefined) throw new LiteError('INTERNAL', `the gRPC service has no method "${name}"`);
  return method;
}

/**
 * A message's bytes as 1.0 JSON, for `schema` (a request on the server, an answer on the
 * client). Bytes that are not such a message are INVALID_PARAMS naming the message type; an
 * empty message is `{}`.
 */
export function messageToJson(schema: DescMessage, bytes: Uint8Array): Record<string, unknown> {
  // Straight from bytes where it can; protobuf-es's messages (the same JSON) for the rest.
  const fast = binaryToJson(schema, bytes);
  if (fast !== undefined) return fast;
  let json: JsonValue;
  try {
    json = toJson(schema, fromBinary(schema, bytes, { readUnknownFields: false, recursionLimit: MAX_DEPTH }));
  } catch (error) {
    throw new LiteError('INVALID_PARAMS', `the message is not a valid ${schema.typeName}: ${reasonOf(error)}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    // Only the well-known types read as something else, and no method takes one.
    throw new LiteError('INVALID_PARAMS', `the message is not a valid ${schema.typeName}`);
  }
  return json as Record<string, unknown>;
}

/**
 * 1.0 JSON as the bytes of a `schema` message (an answer on the server, a request on the
 * client). Fields the message has no place for are left out: the 1.0 JSON of the method tables
 * and of peers may carry more than the proto defines. JSON the message cannot hold (a wrong
 * type, an unknown enum name) is INVALID_PARAMS naming the message type.
 */
export function jsonToMessage(schema: DescMessage, json: unknown): Uint8Array {
  if (jsonDepth(json, MAX_DEPTH) > MAX_DEPTH) throw new LiteError('INVALID_PARAMS', `a ${schema.typeName} may nest at most ${MAX_DEPTH} levels`);
  // Straight to bytes where it can; protobuf-es's messages (the same bytes) for the rest.
  const fast = jsonToBinary(schema, json ?? {});
  if (fast !== undefined) return fast;
  try {
    return toBinary(schema, fromJson(schema, (json ?? {}) as JsonValue, { ignoreUnknownFields: true }));
  } catch (error) {
    throw new LiteError('INVALID_PARAMS', `the JSON is not a valid ${schema.typeName}: ${reasonOf(error)}`);
  }
}

/** What protobuf-es said was wrong, on one line and cut short (it may quote the input). */
function reasonOf(error: unknown): string {
  const said = error instanceof Error ? error.message : 'unreadable';
  const line = said.split(/[\r\n]/, 1)[0]!.replace(/^cannot (?:decode|encode) [\w.]+ (?:from|to) (?:binary|JSON): /, '');
  return line.length > 160 ? `${line.slice(0, 160)}…` : line;
}
