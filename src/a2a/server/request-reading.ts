// The one reading of an A2A request: which endpoint its path names (the card, JSON-RPC, a REST
// route), then the JSON-RPC envelope and its dialect, or the REST route's method and params.
// The server runs what this reads; the hub decides on the same reading before it relays, so that
// no request means one thing to the hub and another to the agent behind it.

import { ERROR_TABLE, LiteError } from '../../errors.js';
import { JSONRPC_PATH } from '../wire/agent-card.js';
import { errorDetailsOf } from '../wire/error-info.js';
import type { Json } from '../wire/fields.js';
import { askedVersion, json, statusError } from './http.js';
import { type HttpRequest, type HttpResponse } from '../../net/http-types.js';
import { METHODS_V03 } from './jsonrpc-v03.js';
import { METHODS_V1 } from './jsonrpc-v1.js';
import type { Method } from './methods.js';
import { readRest, restError, type RestCall } from './rest-v1.js';

export type RpcId = string | number | null;

/** The two dialects spoken here; they differ in method names, bodies and error `data`. */
export type Version = '1.0' | '0.3';

export const CARD_PATHS: ReadonlySet<string> = new Set(['/.well-known/agent-card.json', '/.well-known/agent.json']);
export const RPC_PATHS: ReadonlySet<string> = new Set([JSONRPC_PATH, '/']);
/** A2A-Version values served; a patch number is tolerated, as the spec asks. */
export const V1_HEADER = /^1\.0(\.\d+)?$/;
const V03_HEADER = /^0\.3(\.\d+)?$/;

/** A JSON-RPC call as read: its envelope (parsed once), its dialect, and the method it names. */
export interface RpcCall {
  binding: 'jsonrpc';
  path: string;
  envelope: Json;
  id: RpcId;
  version: Version;
  method: string;
  params: Json;
  run: Method;
}

/** A REST call as read: the 1.0 method the route calls, with the params the route made. */
export interface RestRoute {
  binding: 'rest';
  path: string;
  version: '1.0';
  method: string;
  params: Json;
  call: RestCall;
  run: Method;
}

export type A2ARead =
  /** The public card. */
  | { kind: 'card'; path: string }
  | ({ kind: 'call' } & (RpcCall | RestRoute))
  /**
   * Refused before any method runs, with the answer the server gives. `extensionsFirst`: the
   * server checks the extensions it requires before it gives this answer.
   */
  | { kind: 'answer'; response: HttpResponse; extensionsFirst?: boolean }
  /** No A2A endpoint at this path. */
  | { kind: 'none'; path: string };

/**
 * `…/jsonrpc/` is `…/jsonrpc`: some clients join a base URL and a path that way. One slash only:
 * `//` names nothing.
 */
export function canonicalPath(path: string): string {
  return path.length > 1 && path.endsWith('/') && !path.endsWith('//') ? path.slice(0, -1) : path;
}

/**
 * Reads `request` as the server does. `rpcPaths` are the paths JSON-RPC is served at (the
 * server's own by default; the hub adds those an agent's card names); `asked` is the path read
 * (the request's, or the hub's part of it that names the agent's endpoint).
 */
export function readA2ARequest(request: HttpRequest, rpcPaths: ReadonlySet<string> = RPC_PATHS, asked = request.path): A2ARead {
  const path = canonicalPath(asked);
  if (CARD_PATHS.has(path)) return { kind: 'card', path };
  if (rpcPaths.has(path)) {
    if (request.method !== 'POST') return { kind: 'answer', response: methodNotAllowed('POST') };
    return readRpc(request, path);
  }
  const rest = readRest(request, path);
  if (rest === undefined) return { kind: 'none', path };
  if (rest.kind === 'answer') return rest;
  if (rest.kind === 'refused') return { kind: 'answer', response: restError(rest.error), extensionsFirst: true };
  const method = Object.hasOwn(METHODS_V1, rest.call.method) ? METHODS_V1[rest.call.method] : undefined;
  if (method === undefined) throw new LiteError('INTERNAL', `no 1.0 method "${rest.call.method}"`);
  return { kind: 'call', binding: 'rest', path, version: '1.0', method: rest.call.method, params: rest.call.params, call: rest.call, run: method };
}

function readRpc(request: HttpRequest, path: string): A2ARead {
  // From the header, else the query (§3.6.1): it picks the dialect and may be refused (-32009).
  const header = askedVersion(request);
  // Until the method is known, errors take the header's dialect (none at all means 0.3).
  const early: Version = header === '' || V03_HEADER.test(header) ? '0.3' : '1.0';
  const refuse = (id: RpcId, version: Version, error: LiteError): A2ARead => ({ kind: 'answer', response: rpcResponse(id, failure(version, error)) });
  const type = request.headers['content-type'];
  if (type !== undefined && type !== '' && !/json/i.test(type)) return refuse(null, early, new LiteError('CONTENT_TYPE_NOT_SUPPORTED', `content type "${type}" is not JSON`));
  let envelope: unknown;
  try {
    envelope = JSON.parse(request.body);
  } catch {
    return refuse(null, early, new LiteError('INVALID_JSON', 'the request body is not valid JSON'));
  }
  if (Array.isArray(envelope)) return refuse(null, early, new LiteError('INVALID_REQUEST', 'batch requests are not supported'));
  if (typeof envelope !== 'object' || envelope === null) return refuse(null, early, new LiteError('INVALID_REQUEST', 'a JSON-RPC request is an object'));
  const { jsonrpc, method, params, id: rawId } = envelope as Json;
  // A number id is echoed as the number JSON.parse read, which past 2^53 (or in a fraction)
  // may differ from the digits sent: the client could not match the answer to its request.
  const id: RpcId = typeof rawId === 'string' || Number.isSafeInteger(rawId) ? (rawId as string | number) : null;
  if (rawId !== undefined && rawId !== null && id === null) {
    return refuse(null, early, new LiteError('INVALID_REQUEST', 'id must be a string, a whole number from -(2^53 - 1) to 2^53 - 1, or null'));
  }
  if (jsonrpc !== '2.0') return refuse(id, early, new LiteError('INVALID_REQUEST', 'jsonrpc must be "2.0"'));
  if (typeof method !== 'string' || method === '') return refuse(id, early, new LiteError('INVALID_REQUEST', 'method must be a non-empty string'));
  const version = versionOf(method, header);
  if (params !== undefined && params !== null && (typeof params !== 'object' || Array.isArray(params))) {
    return refuse(id, version, new LiteError('INVALID_PARAMS', 'params must be an object'));
  }
  try {
    const run = methodFor(method, header, version);
    return { kind: 'call', binding: 'jsonrpc', path, envelope: envelope as Json, id, version, method, params: (params ?? {}) as Json, run };
  } catch (error) {
    return refuse(id, version, error as LiteError);
  }
}

/**
 * The dialect of a request. A missing or empty A2A-Version means 0.3 by the spec, but a
 * request without it that names a 1.0 method is served as 1.0, since 0.3 has no such name.
 * A version we do not serve is refused in 1.0 terms: -32009 exists only there.
 */
function versionOf(method: string, header: string): Version {
  if (header === '') return lookup(METHODS_V1, method) === undefined ? '0.3' : '1.0';
  return V03_HEADER.test(header) ? '0.3' : '1.0';
}

function methodFor(method: string, header: string, version: Version): Method {
  if (header !== '' && !V1_HEADER.test(header) && !V03_HEADER.test(header)) {
    throw new LiteError('VERSION_NOT_SUPPORTED', `A2A-Version ${JSON.stringify(header)} is not supported; this agent speaks 1.0 and 0.3`);
  }
  const found = lookup(version === '1.0' ? METHODS_V1 : METHODS_V03, method);
  if (found === undefined) throw new LiteError('METHOD_NOT_FOUND', `no method "${method}" in A2A ${version}`);
  return found;
}

/** Own keys only, so that `constructor` or `toString` are not taken for methods. */
function lookup(table: Readonly<Record<string, Method>>, method: string): Method | undefined {
  return Object.hasOwn(table, method) ? table[method] : undefined;
}

/**
 * A JSON-RPC error object. 1.0 puts an ErrorInfo array in `data`; 0.3 leaves `data` free-form
 * and defines nothing for it, so a 0.3 error has none: a 0.3 client would take the 1.0 array for
 * its own `data`, and the official SDK's 0.3 server sends none either.
 */
export function failure(version: Version, error: unknown): Record<string, unknown> {
  const lite = error instanceof LiteError ? error : new LiteError('INTERNAL', 'internal error');
  const body: Record<string, unknown> = { code: ERROR_TABLE[lite.code].rpc, message: lite.message };
  const details = errorDetailsOf(lite);
  if (version === '1.0' && details.length > 0) body.data = details;
  return body;
}

export function rpcResponse(id: RpcId, error: Record<string, unknown>): HttpResponse {
  return json(200, { jsonrpc: '2.0', id, error });
}

export function methodNotAllowed(allowed: string): HttpResponse {
  return statusError(405, 'UNIMPLEMENTED', `use ${allowed}`, { allow: allowed });
}
