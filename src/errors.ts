// The one error class of the package and the table that maps each code to how it surfaces:
// the CLI's exit code, and the JSON-RPC code, HTTP status, google.rpc (and gRPC) status and A2A
// reason.

/** How one error code surfaces, at every edge it can cross. */
export interface ErrorRow {
  /** The CLI's exit status. */
  exit: number;
  /** The JSON-RPC error code. */
  rpc: number;
  /** The HTTP status of an HTTP+JSON (REST) answer. */
  http: number;
  /**
   * The google.rpc status name a REST error body carries (A2A 1.0.1, §5.4), and the gRPC status
   * code a gRPC error is sent with, unless `grpc` says otherwise.
   */
  status: string;
  /** The gRPC status, where §5.4 gives gRPC another than `status`. */
  grpc?: string;
  /** The google.rpc.ErrorInfo reason A2A gives the error, where it has one of its own. */
  reason?: string;
  summary: string;
}

/**
 * How each error code surfaces: the CLI's exit status, and the JSON-RPC code, HTTP status,
 * google.rpc status and A2A reason when the same failure crosses the A2A bridge, whichever
 * side (server or client) it is on. docs/errors.md lists the same table.
 */
export const ERROR_TABLE = {
  // The caller used a command or function wrongly.
  USAGE: { exit: 2, rpc: -32602, http: 400, status: 'INVALID_ARGUMENT', summary: 'A command or option was used wrongly.' },
  INPUT_TOO_LARGE: { exit: 2, rpc: -32602, http: 413, status: 'RESOURCE_EXHAUSTED', summary: 'Input is larger than the limit.' },
  // Content that does not follow the protocol or the card schema.
  INVALID_MESSAGE: { exit: 3, rpc: -32602, http: 400, status: 'INVALID_ARGUMENT', summary: 'A protocol message breaks a per-type rule.' },
  INVALID_CARD: { exit: 3, rpc: -32602, http: 400, status: 'INVALID_ARGUMENT', summary: 'An Agent Card breaks the schema.' },
  INVALID_JSON: { exit: 3, rpc: -32700, http: 400, status: 'INVALID_ARGUMENT', summary: 'A file or input is not valid JSON.' },
  INVALID_KEY: { exit: 3, rpc: -32602, http: 400, status: 'INVALID_ARGUMENT', summary: 'A key file or key set holds no key usable to sign or verify an Agent Card.' },
  INVALID_PLAN: { exit: 3, rpc: -32602, http: 400, status: 'INVALID_ARGUMENT', summary: 'A plan for a2a-lite run breaks a rule; the message names the step and field.' },
  CARD_REPLY_INCOMPLETE: {
    exit: 3,
    rpc: -32602,
    http: 400,
    status: 'INVALID_ARGUMENT',
    summary: 'An [A2A:card] reply lacks what a card needs (an id or a name).',
  },
  // Things that are not where they were expected.
  CARD_NOT_FOUND: { exit: 4, rpc: -32001, http: 404, status: 'NOT_FOUND', summary: "This agent's own card does not exist yet." },
  AGENT_NOT_FOUND: { exit: 4, rpc: -32001, http: 404, status: 'NOT_FOUND', summary: 'No cached card for that agent id.' },
  TASK_NOT_FOUND: { exit: 4, rpc: -32001, http: 404, status: 'NOT_FOUND', reason: 'TASK_NOT_FOUND', summary: 'No task with that id in the ledger.' },
  // A2A has no code of its own for this; the spec and the official SDK answer -32001 too.
  PUSH_CONFIG_NOT_FOUND: { exit: 4, rpc: -32001, http: 404, status: 'NOT_FOUND', reason: 'TASK_NOT_FOUND', summary: 'The task has no push notification config with that id.' },
  RUN_NOT_FOUND: { exit: 4, rpc: -32001, http: 404, status: 'NOT_FOUND', summary: 'No plan run with that id in the home.' },
  FILE_NOT_FOUND: { exit: 4, rpc: -32602, http: 404, status: 'NOT_FOUND', summary: 'A file named on the command line does not exist.' },
  // Requests that contradict what is already stored.
  CARD_EXISTS: { exit: 5, rpc: -32600, http: 409, status: 'ABORTED', summary: 'A card is already there; pass --force to replace it.' },
  TASK_EXISTS: { exit: 5, rpc: -32600, http: 409, status: 'ABORTED', summary: 'A different task with that id is already recorded.' },
  TASK_AMBIGUOUS: { exit: 5, rpc: -32600, http: 409, status: 'ABORTED', summary: 'Several peers use that task id; name the peer.' },
  IDEMPOTENCY_CONFLICT: { exit: 5, rpc: -32602, http: 422, status: 'INVALID_ARGUMENT', summary: 'An Idempotency-Key was already used for a different message.' },
  ILLEGAL_TRANSITION: {
    exit: 5,
    rpc: -32600,
    http: 409,
    status: 'ABORTED',
    summary: 'The state change is not allowed by the task state machine.',
  },
  TASK_TERMINAL: {
    exit: 5,
    rpc: -32002,
    // A2A 1.0.1 moved TaskNotCancelable from 409 to 400 (spec §5.4).
    http: 400,
    status: 'FAILED_PRECONDITION',
    reason: 'TASK_NOT_CANCELABLE',
    summary: 'The task has already ended; it takes no more updates or cancels.',
  },
  ROLE_MISMATCH: {
    exit: 5,
    rpc: -32600,
    http: 409,
    status: 'ABORTED',
    summary: 'A message came from the wrong side of the task (e.g. a status from the requester).',
  },
  PEER_REQUIRED: { exit: 2, rpc: -32602, http: 400, status: 'INVALID_ARGUMENT', summary: 'A new task needs --from or --to to name the peer.' },
  // Security refusals.
  CARD_HAS_CREDENTIAL: {
    exit: 6,
    rpc: -32602,
    http: 400,
    status: 'INVALID_ARGUMENT',
    summary: 'A card carries something that looks like a credential; it is not written.',
  },
  WEBHOOK_REFUSED: {
    exit: 6,
    rpc: -32602,
    http: 400,
    status: 'INVALID_ARGUMENT',
    summary: 'A push notification URL leads to a loopback, private, link-local or reserved address.',
  },
  CARD_SIGNATURE_INVALID: {
    exit: 6,
    rpc: -32602,
    http: 403,
    status: 'PERMISSION_DENIED',
    summary: 'An Agent Card is not signed where a signature is required, or its signature does not verify.',
  },
  FORBIDDEN: {
    exit: 6,
    rpc: -32602,
    http: 403,
    status: 'PERMISSION_DENIED',
    summary: 'A file or an address lies outside what this agent may send or call.',
  },
  // Requests an A2A peer made that this agent will not serve.
  INVALID_REQUEST: { exit: 3, rpc: -32600, http: 400, status: 'INVALID_ARGUMENT', summary: 'A JSON-RPC request is not a valid request object.' },
  METHOD_NOT_FOUND: { exit: 9, rpc: -32601, http: 404, status: 'NOT_FOUND', summary: 'No such JSON-RPC method or REST path.' },
  INVALID_PARAMS: { exit: 3, rpc: -32602, http: 400, status: 'INVALID_ARGUMENT', reason: 'INVALID_PARAMS', summary: 'The parameters of a request are missing or malformed.' },
  UNSUPPORTED_OPERATION: {
    exit: 9,
    rpc: -32004,
    http: 400,
    status: 'FAILED_PRECONDITION',
    reason: 'UNSUPPORTED_OPERATION',
    summary: 'The operation is not possible on this task now (e.g. a message to an ended task).',
  },
  PUSH_NOT_SUPPORTED: { exit: 9, rpc: -32003, http: 400, status: 'FAILED_PRECONDITION', reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED', summary: 'This agent does not send push notifications.' },
  // 400, not 415: A2A 1.0.1 maps ContentTypeNotSupported to 400 (spec §5.4).
  CONTENT_TYPE_NOT_SUPPORTED: { exit: 9, rpc: -32005, http: 400, status: 'INVALID_ARGUMENT', reason: 'CONTENT_TYPE_NOT_SUPPORTED', summary: 'The request body has a content type this agent does not read.' },
  VERSION_NOT_SUPPORTED: { exit: 9, rpc: -32009, http: 400, status: 'FAILED_PRECONDITION', reason: 'VERSION_NOT_SUPPORTED', summary: 'The A2A-Version asked for is not served here.' },
  EXTENSION_SUPPORT_REQUIRED: { exit: 9, rpc: -32008, http: 400, status: 'FAILED_PRECONDITION', reason: 'EXTENSION_SUPPORT_REQUIRED', summary: 'The request does not activate an extension the agent card marks required.' },
  EXTENDED_CARD_NOT_CONFIGURED: { exit: 9, rpc: -32007, http: 400, status: 'FAILED_PRECONDITION', reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED', summary: 'This agent has no extended card.' },
  // A remote agent (a2a-lite send, discover) did not give what was asked.
  // InvalidAgentResponseError: §5.4 sends it over gRPC as INTERNAL.
  PEER_ERROR: { exit: 8, rpc: -32006, http: 502, status: 'UNKNOWN', grpc: 'INTERNAL', summary: 'The remote agent answered with an error, or with something that is not A2A.' },
  AUTH_REQUIRED: { exit: 14, rpc: -32600, http: 401, status: 'UNAUTHENTICATED', summary: 'The remote agent wants credentials that were not given or not accepted.' },
  PEER_UNREACHABLE: { exit: 15, rpc: -32603, http: 502, status: 'UNAVAILABLE', summary: 'The remote agent could not be reached, or did not answer in time.' },
  // Replicas of one agent behind a load balancer: the one a request needs did not answer.
  CLUSTER_UNAVAILABLE: { exit: 7, rpc: -32603, http: 503, status: 'UNAVAILABLE', summary: 'Another replica of this agent, or the bus between replicas, did not answer in time; try again.' },
  // The environment failed us.
  LEDGER_BUSY: { exit: 7, rpc: -32603, http: 503, status: 'UNAVAILABLE', summary: 'The ledger stayed contended past the retry limit.' },
  // 429 and RESOURCE_EXHAUSTED: what gRPC and HTTP say of a quota that is used up for now; A2A
  // has no code for it, so JSON-RPC's first implementation-defined server error.
  STORE_FULL: { exit: 7, rpc: -32000, http: 429, status: 'RESOURCE_EXHAUSTED', summary: 'The task store holds its most tasks and none of them has ended; a new task is refused.' },
  // The same answer for a caller over its own limits (`serve --rate-limit`, `--max-streams-per-caller` …).
  RATE_LIMITED: { exit: 7, rpc: -32000, http: 429, status: 'RESOURCE_EXHAUSTED', summary: 'The caller sent too many requests, or holds too many streams or tasks, for now; try again after Retry-After.' },
  LEDGER_CORRUPT: { exit: 7, rpc: -32603, http: 500, status: 'INTERNAL', summary: 'A ledger or cache file could not be read back.' },
  IO_ERROR: { exit: 7, rpc: -32603, http: 500, status: 'INTERNAL', summary: 'The file system refused a read or a write.' },
  INTERNAL: { exit: 1, rpc: -32603, http: 500, status: 'INTERNAL', summary: 'A bug: please report it with the command that caused it.' },
} as const satisfies Record<string, ErrorRow>;

export type ErrorCode = keyof typeof ERROR_TABLE;

/** Extra facts attached to an error, printed with `--json` (never secrets). */
export type ErrorDetails = Record<string, unknown>;

/**
 * The package's only error class. `code` is stable and documented; `message` is one
 * sentence meant for the person or agent who caused it.
 *
 * @example
 * throw new LiteError('TASK_NOT_FOUND', 'no task "email-009" in the ledger');
 */
export class LiteError extends Error {
  override readonly name = 'LiteError';
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetails, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.details = details;
  }

  get exitCode(): number {
    return ERROR_TABLE[this.code].exit;
  }

  get rpcCode(): number {
    return ERROR_TABLE[this.code].rpc;
  }

  get httpStatus(): number {
    return ERROR_TABLE[this.code].http;
  }

  toJSON(): { code: ErrorCode; message: string; details?: ErrorDetails } {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

/** True for a LiteError carrying one of `codes` (any code when none are given). */
export function isLiteError(value: unknown, ...codes: ErrorCode[]): value is LiteError {
  return value instanceof LiteError && (codes.length === 0 || codes.includes(value.code));
}
