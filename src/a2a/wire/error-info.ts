// How an error is named to A2A 1.0 peers, whichever binding carries it: the google.rpc.ErrorInfo
// detail with the reason A2A gives the error, and the google.rpc status a REST error carries.
// Both come from the one error table (src/errors.ts).

import { ERROR_TABLE, type ErrorCode, type ErrorRow, type LiteError } from '../../errors.js';

const DOMAIN = 'a2a-protocol.org';

/**
 * The `details` of an error: one google.rpc.ErrorInfo for an error A2A names, none for the rest,
 * as the official SDK does. JSON-RPC 1.0 sends the same array as `error.data`.
 *
 * @example
 * errorInfoOf('TASK_NOT_FOUND');
 * // [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }]
 */
export function errorInfoOf(code: ErrorCode): Record<string, unknown>[] {
  const row: ErrorRow = ERROR_TABLE[code];
  return row.reason === undefined ? [] : [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: row.reason, domain: DOMAIN }];
}

/**
 * The `details` of `error`: its ErrorInfo, and for invalid parameters that name the field at
 * fault a google.rpc.BadRequest with that field's violation (A2A §11.6: validation errors use
 * BadRequest), so a client can point at the field without reading the message.
 */
export function errorDetailsOf(error: LiteError): Record<string, unknown>[] {
  const details = errorInfoOf(error.code);
  const field = error.details?.field;
  if (error.code === 'INVALID_PARAMS' && typeof field === 'string' && field !== '') {
    details.push({ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field, description: error.message }] });
  }
  return details;
}

/** The google.rpc status name a REST error body carries in `error.status`. */
export function rpcStatusOf(code: ErrorCode): string {
  return ERROR_TABLE[code].status;
}

/**
 * The error code a peer's A2A error stands for, read from its JSON-RPC code or its ErrorInfo
 * reason; undefined for an error this table does not name as A2A's own (`codes` limits the search).
 */
export function codeOfPeerError(codes: readonly ErrorCode[], rpc: unknown, reason: string | undefined): ErrorCode | undefined {
  for (const code of codes) {
    const row: ErrorRow = ERROR_TABLE[code];
    if (rpc === row.rpc || (reason !== undefined && reason === row.reason)) return code;
  }
  return undefined;
}
