// How an error crosses the gRPC binding (A2A 1.0.1, §10.6): its gRPC status code, its message,
// and a google.rpc.Status whose details hold the ErrorInfo (and, for a bad field, the
// BadRequest) that every binding sends, carried in the `grpc-status-details-bin` trailer. The
// code is the table's google.rpc status (src/errors.ts), the name §5.4 gives each A2A error for
// gRPC as for HTTP+JSON, but where the table's `grpc` column says otherwise.

import { createRegistry, fromBinary, fromJson, toBinary, toJson, type JsonValue } from '@bufbuild/protobuf';
import { ERROR_TABLE, LiteError, type ErrorRow } from '../errors.js';
import { errorDetailsOf } from '../a2a/wire/error-info.js';
import { BadRequestSchema, ErrorInfoSchema } from './gen/google/rpc/error_details_pb.js';
import { StatusSchema } from './gen/google/rpc/status_pb.js';

/** The gRPC status codes by name (grpc/grpc, doc/statuscodes.md). */
export const GRPC_CODES = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

export type GrpcCodeName = keyof typeof GRPC_CODES;

/** The trailer that carries the google.rpc.Status of a failure, details and all. */
export const STATUS_DETAILS_KEY = 'grpc-status-details-bin';

/** A failure as gRPC sends it. */
export interface GrpcStatus {
  code: number;
  message: string;
  /** A google.rpc.Status with the same code and message, and the details. */
  details: Uint8Array;
}

const DETAILS = createRegistry(ErrorInfoSchema, BadRequestSchema);
const NAMES = new Map<number, GrpcCodeName>(Object.entries(GRPC_CODES).map(([name, code]) => [code, name as GrpcCodeName]));

/** The gRPC code of a google.rpc status name; UNKNOWN for a name gRPC does not have. */
export function grpcCodeOf(name: string): number {
  return Object.hasOwn(GRPC_CODES, name) ? GRPC_CODES[name as GrpcCodeName] : GRPC_CODES.UNKNOWN;
}

/** The name of a gRPC code (`NOT_FOUND`), or the number when gRPC has no such code. */
export function grpcCodeName(code: number): string {
  return NAMES.get(code) ?? String(code);
}

/**
 * `error` as a gRPC status. Anything but a LiteError is a bug of ours and goes out as INTERNAL
 * with no word of what it was.
 *
 * @example
 * grpcStatusOf(new LiteError('TASK_NOT_FOUND', 'no task "t1"')).code; // 5, NOT_FOUND
 */
export function grpcStatusOf(error: unknown): GrpcStatus {
  const lite = error instanceof LiteError ? error : new LiteError('INTERNAL', 'internal error');
  const row: ErrorRow = ERROR_TABLE[lite.code];
  return statusWith(grpcCodeOf(row.grpc ?? row.status), lite.message, errorDetailsOf(lite));
}

/** A status of `code` with `message` and `details` (JSON objects with their `@type`). */
export function statusWith(code: number, message: string, details: readonly Record<string, unknown>[] = []): GrpcStatus {
  const status = fromJson(StatusSchema, { code, message, details: details as JsonValue[] }, { registry: DETAILS });
  return { code, message, details: toBinary(StatusSchema, status) };
}

/**
 * The details of a `grpc-status-details-bin` trailer, as JSON objects with their `@type`, as
 * the other bindings carry them. Details of a type this package does not know, and bytes that
 * are not a google.rpc.Status, give none: they are the agent's extras, not its error.
 */
export function detailsOfStatus(bytes: Uint8Array | undefined): Record<string, unknown>[] {
  if (bytes === undefined || bytes.length === 0) return [];
  try {
    const status = fromBinary(StatusSchema, bytes, { readUnknownFields: false });
    return status.details.flatMap((any) => {
      try {
        const json = toJson(StatusSchema, { ...status, details: [any] }, { registry: DETAILS }) as { details?: Record<string, unknown>[] };
        return json.details ?? [];
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}
