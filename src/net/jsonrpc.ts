// The one JSON-RPC 2.0 client: how a call is written, how its answer is read (a result, an
// error, or something that is no answer to this call), and a call made whole over the one
// outbound request. The client's transports use the first two with their own HTTP plumbing;
// `serve --reply-to` makes its calls with `callJsonRpc`.

import { jsonDepth } from '../json-depth.js';
import { readText } from './body.js';
import type { AddressGuardOptions } from './address-guard.js';
import { request } from './outbound.js';

/** What an answer says: the call's result, its error object, or why it is no answer to the call. */
export type RpcReply = { kind: 'result'; result: unknown } | { kind: 'error'; error: unknown } | { kind: 'invalid'; problem: string };

/** The text of a call. */
export function rpcRequest(id: number | string, method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

/**
 * Reads the answer to call `id` (parsed JSON). An error is taken whatever its id (a server
 * that could not read the call answers with a null one); a result only for this call.
 *
 * @example
 * readRpcReply({ jsonrpc: '2.0', id: 1, result: { ok: true } }, 1); // { kind: 'result', result: { ok: true } }
 */
export function readRpcReply(reply: unknown, id: number | string): RpcReply {
  if (typeof reply !== 'object' || reply === null || Array.isArray(reply)) return { kind: 'invalid', problem: 'the answer is not a JSON-RPC response object' };
  const response = reply as Record<string, unknown>;
  if (response.error !== undefined) return { kind: 'error', error: response.error };
  if (!('result' in response)) return { kind: 'invalid', problem: 'the JSON-RPC response has neither result nor error' };
  if (response.id !== id && response.id !== String(id)) return { kind: 'invalid', problem: `the JSON-RPC response answers request ${JSON.stringify(response.id)}, not ${JSON.stringify(id)}` };
  return { kind: 'result', result: response.result };
}

export interface CallOptions {
  id: number | string;
  headers?: Record<string, string>;
  /** Check the address of every hop (none is followed: a redirect is an answer). */
  guard?: AddressGuardOptions;
  signal?: AbortSignal;
  /** The most the answer may hold (default 4 MiB). */
  maxAnswerBytes?: number;
}

/** The HTTP status and what the answer says; a body that is not JSON is an `invalid` reply. */
export interface CallAnswer {
  status: number;
  reply: RpcReply;
}

const MAX_DEPTH = 256;

/**
 * Calls `method` at `url` with one POST. Rejects when the call cannot be made or its answer not
 * read (the network's error, a guard's refusal, INPUT_TOO_LARGE); any answer that came back is
 * resolved, with its status.
 */
export async function callJsonRpc(url: string, method: string, params: unknown, options: CallOptions): Promise<CallAnswer> {
  const answer = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...options.headers },
    body: rpcRequest(options.id, method, params),
    ...(options.guard === undefined ? {} : { guard: options.guard }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const status = answer.statusCode ?? 0;
  const text = await readText(answer, options.maxAnswerBytes ?? 4 * 1024 * 1024);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { status, reply: { kind: 'invalid', problem: 'the answer is not JSON' } };
  }
  if (jsonDepth(value, MAX_DEPTH) > MAX_DEPTH) return { status, reply: { kind: 'invalid', problem: `the answer nests deeper than ${MAX_DEPTH} levels` } };
  return { status, reply: readRpcReply(value, options.id) };
}
