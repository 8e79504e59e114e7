// The failures of a request that are the server's own, not the client's: a bug (an exception no
// code meant to throw) or an error the table answers with 5xx (a store that failed). The client
// gets -32603 or 500 and no more; the operator hears of it here (A2A §3.3.2: log system errors).

import { ERROR_TABLE, LiteError } from '../../errors.js';
import { redactCredentials } from '../../secrets.js';

/**
 * Told of each system error: the error, and the operation it ended (`JSON-RPC SendMessage`,
 * `HTTP+JSON GetTask`, `POST /jsonrpc`). Never given the request itself.
 */
export type ErrorReporter = (error: unknown, what: string) => void;

/** True for an error the server, not the client, is to blame for. */
export function isSystemError(error: unknown): boolean {
  return !(error instanceof LiteError) || ERROR_TABLE[error.code].http >= 500;
}

/**
 * `onError` told of system errors only; an onError that throws is ignored, so that reporting
 * never changes the answer. Without one, each is a line on stderr.
 */
export function systemErrorReporter(onError: ErrorReporter = toStderr): ErrorReporter {
  return (error, what) => {
    if (!isSystemError(error)) return;
    try {
      onError(error, what);
    } catch {
      // The client's answer is already decided; a broken reporter must not replace it.
    }
  };
}

/**
 * One line: the operation, then the error's class (or code) and the first line of its message,
 * each cut short and with credential shapes redacted. A thrown value that is not an Error is
 * named by its type only, since it could be anything the request carried.
 */
export function describeSystemError(error: unknown, what: string): string {
  const said = error instanceof LiteError ? `${error.code}: ${error.message}` : error instanceof Error ? `${error.name}: ${error.message}` : `a thrown ${typeof error}`;
  return `a2a-lite: ${oneLine(what, 200)} failed: ${oneLine(said, 300)}`;
}

function oneLine(text: string, max: number): string {
  const line = text.split(/[\r\n]/, 1)[0]!;
  return redactCredentials(line.length > max ? `${line.slice(0, max)}…` : line);
}

function toStderr(error: unknown, what: string): void {
  process.stderr.write(`${describeSystemError(error, what)}\n`);
}
