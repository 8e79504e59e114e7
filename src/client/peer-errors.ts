// What an agent's failures become for the user: its A2A errors as the LiteErrors they mean (read
// by JSON-RPC code or by the google.rpc.ErrorInfo reason, from the one error table), an answer
// that is not A2A, and an agent that could not be reached.

import { codeOfPeerError } from '../a2a/wire/error-info.js';
import { LiteError, isLiteError, type ErrorCode } from '../errors.js';
import type { RemoteInterface } from '../model/remote-access.js';

/** The agent's errors that mean what ours mean; any other is PEER_ERROR with the agent's words. */
const TAKEN_AS_THEIR_OWN: readonly ErrorCode[] = ['TASK_NOT_FOUND', 'TASK_TERMINAL'];

/**
 * An A2A error from the agent, as the LiteError a user would expect for it. Over HTTP+JSON the
 * reason is in a google.rpc.ErrorInfo of `details` (one status, FAILED_PRECONDITION, stands for
 * several errors); over JSON-RPC it is the code.
 */
export function peerError(error: unknown, target: RemoteInterface, httpStatus?: number): LiteError {
  const object = typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {};
  const code = typeof object.code === 'number' ? object.code : httpStatus;
  const status = typeof object.status === 'string' ? object.status : '';
  // Not every agent's error is the spec's object: a bare string, or an object without message.
  const said = typeof error === 'string' ? error : typeof object.message === 'string' ? object.message : undefined;
  const message = said !== undefined ? said.slice(0, 500) : code !== undefined ? `error ${code}` : `an error without a message (${JSON.stringify(error)?.slice(0, 200) ?? 'nothing'})`;
  const reason = reasonOf(object.details);
  const details = { url: target.url, code, status: status || undefined, reason, ...deliveryOf(object) };
  const known = codeOfPeerError(TAKEN_AS_THEIR_OWN, code, reason);
  if (known !== undefined) return new LiteError(known, `the agent says: ${message}`, details);
  if (reason === undefined && httpStatus === 404 && status === 'NOT_FOUND' && /task/i.test(message)) return new LiteError('TASK_NOT_FOUND', `the agent says: ${message}`, details);
  return new LiteError('PEER_ERROR', `the agent answered with an error: ${message}${code !== undefined ? ` (${code})` : ''}`, details);
}

/** The A2A reason of an error's google.rpc.ErrorInfo detail, if it has one. */
function reasonOf(details: unknown): string | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    if (typeof detail === 'object' && detail !== null && typeof (detail as { reason?: unknown }).reason === 'string') return (detail as { reason: string }).reason;
  }
  return undefined;
}

/**
 * An HTTP error status whose body is not the binding's error: the status, and what the body
 * says (its `message`, `error`, `detail` or `title`, or the start of its text).
 */
export function httpError(target: RemoteInterface, status: number, text: string): LiteError {
  let said: string | undefined;
  let delivery: { delivery?: string } = {};
  try {
    const body = JSON.parse(text) as unknown;
    if (typeof body === 'string') said = body;
    else if (typeof body === 'object' && body !== null) {
      const object = body as Record<string, unknown>;
      const nested = typeof object.error === 'object' && object.error !== null ? (object.error as Record<string, unknown>).message : undefined;
      if (typeof object.error === 'object' && object.error !== null) delivery = deliveryOf(object.error as Record<string, unknown>);
      said = [object.message, nested, object.error, object.detail, object.title].find((v): v is string => typeof v === 'string');
    }
  } catch {
    said = text.trim() === '' ? undefined : text.trim().replace(/\s+/g, ' ').slice(0, 200);
  }
  return new LiteError('PEER_ERROR', `the agent at ${target.url} answered HTTP ${status}${said === undefined ? '' : `: ${said.slice(0, 500)}`}`, { url: target.url, status, ...delivery });
}

/**
 * What a hub in front of the agent says of a request it could not relay (docs/hub.md): `none`,
 * never sent; `unknown`, sent down a link that died before the agent acknowledged it; `taken`,
 * the agent had it.
 */
function deliveryOf(error: Record<string, unknown>): { delivery?: string } {
  const said = error.delivery;
  return said === 'none' || said === 'unknown' || said === 'taken' ? { delivery: said } : {};
}

export function notA2A(target: RemoteInterface, problem: string): LiteError {
  return new LiteError('PEER_ERROR', `the agent at ${target.url} did not answer in A2A ${target.version}: ${problem}`, { url: target.url });
}

export function unreachable(target: RemoteInterface, error: unknown, why?: string): LiteError {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const reason = why ?? cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  // A refused certificate stays one: trying again will not change it.
  const tls = (error as { details?: { tls?: unknown } } | undefined)?.details?.tls;
  return new LiteError('PEER_UNREACHABLE', `could not reach the agent at ${target.url}: ${reason}`, { url: target.url, ...(typeof tls === 'string' ? { tls } : {}) }, { cause: error });
}

/** Decodes with the wire readers, whose refusals (INVALID_PARAMS) become PEER_ERROR here. */
export function read<T>(decode: () => T, target: RemoteInterface): T {
  try {
    return decode();
  } catch (error) {
    if (isLiteError(error, 'INVALID_PARAMS')) throw notA2A(target, error.message);
    throw error;
  }
}
