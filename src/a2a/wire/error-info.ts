// How an error is named to A2A 1.0 peers, whichever binding carries it: the google.rpc.ErrorInfo
// reason the spec gives each A2A error, and the google.rpc status name a REST error carries.

import { ERROR_TABLE, type ErrorCode } from '../../errors.js';

/** The ErrorInfo reason A2A 1.0 gives each error, where it has one. */
const REASONS: Partial<Record<ErrorCode, string>> = {
  TASK_NOT_FOUND: 'TASK_NOT_FOUND',
  // A2A has no error of its own for a missing push config; the official SDK sends TaskNotFound.
  PUSH_CONFIG_NOT_FOUND: 'TASK_NOT_FOUND',
  TASK_TERMINAL: 'TASK_NOT_CANCELABLE',
  PUSH_NOT_SUPPORTED: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
  UNSUPPORTED_OPERATION: 'UNSUPPORTED_OPERATION',
  CONTENT_TYPE_NOT_SUPPORTED: 'CONTENT_TYPE_NOT_SUPPORTED',
  EXTENDED_CARD_NOT_CONFIGURED: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
  VERSION_NOT_SUPPORTED: 'VERSION_NOT_SUPPORTED',
  INVALID_PARAMS: 'INVALID_PARAMS',
};

/** The A2A errors whose google.rpc status the spec sets apart from their HTTP status (§5.4). */
const PRECONDITIONS = new Set<ErrorCode>([
  'TASK_TERMINAL',
  'PUSH_NOT_SUPPORTED',
  'UNSUPPORTED_OPERATION',
  'EXTENDED_CARD_NOT_CONFIGURED',
  'VERSION_NOT_SUPPORTED',
]);

/** The google.rpc status name of every other error, from its HTTP status. */
const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  413: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/**
 * The `details` of an error: one google.rpc.ErrorInfo for an A2A error, none for the rest, as
 * the official SDK does. JSON-RPC 1.0 sends the same array as `error.data`.
 *
 * @example
 * errorInfoOf('TASK_NOT_FOUND');
 * // [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }]
 */
export function errorInfoOf(code: ErrorCode): Record<string, unknown>[] {
  const reason = REASONS[code];
  return reason === undefined ? [] : [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' }];
}

/** The google.rpc status name a REST error body carries in `error.status`. */
export function rpcStatusOf(code: ErrorCode): string {
  if (PRECONDITIONS.has(code)) return 'FAILED_PRECONDITION';
  return STATUS_NAMES[ERROR_TABLE[code].http] ?? 'UNKNOWN';
}
