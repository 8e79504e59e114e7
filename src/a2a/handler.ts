// The A2A transport handler: routes a request to the agent card or to JSON-RPC, reads the
// JSON-RPC envelope, picks the protocol version, and turns results, streams and errors into
// responses. No framework, no sockets: adapters in serve/ connect it to the network.

import type { LiteCard } from '../card/types.js';
import { ERROR_TABLE, LiteError, type ErrorCode } from '../errors.js';
import type { Agent } from '../runtime/agent.js';
import { JSONRPC_PATH, toAgentCardV1 } from './agent-card.js';
import { json, SSE_HEADERS, sseEvent, type A2AHandler, type HttpRequest, type HttpResponse } from './http.js';
import { METHODS_V1, type MethodResult } from './jsonrpc-v1.js';

export interface A2AHandlerOptions {
  agent: Agent;
  /** The lite card to publish (defaults to the agent's). */
  card?: LiteCard;
  /** Where clients reach this server, e.g. `http://127.0.0.1:7331`; read per request. */
  baseUrl: string | (() => string);
}

type Id = string | number | null;

/** The ErrorInfo reason A2A 1.0 gives each error, where it has one. */
const REASONS: Partial<Record<ErrorCode, string>> = {
  TASK_NOT_FOUND: 'TASK_NOT_FOUND',
  TASK_TERMINAL: 'TASK_NOT_CANCELABLE',
  PUSH_NOT_SUPPORTED: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
  UNSUPPORTED_OPERATION: 'UNSUPPORTED_OPERATION',
  CONTENT_TYPE_NOT_SUPPORTED: 'CONTENT_TYPE_NOT_SUPPORTED',
  EXTENDED_CARD_NOT_CONFIGURED: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
  VERSION_NOT_SUPPORTED: 'VERSION_NOT_SUPPORTED',
  INVALID_PARAMS: 'INVALID_PARAMS',
};

const CARD_PATHS = new Set(['/.well-known/agent-card.json', '/.well-known/agent.json']);
const RPC_PATHS = new Set([JSONRPC_PATH, '/']);

export function createA2AHandler(options: A2AHandlerOptions): A2AHandler {
  const card = options.card ?? options.agent.card;
  const baseUrl = typeof options.baseUrl === 'function' ? options.baseUrl : () => options.baseUrl as string;
  return async (request) => {
    if (CARD_PATHS.has(request.path)) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return methodNotAllowed('GET');
      const agentCard = toAgentCardV1(card, { baseUrl: baseUrl(), streaming: true, pushNotifications: false });
      return json(200, agentCard, { 'cache-control': 'public, max-age=300' });
    }
    if (RPC_PATHS.has(request.path)) {
      if (request.method !== 'POST') return methodNotAllowed('POST');
      return jsonRpc(options.agent, request);
    }
    return json(404, { error: { code: 404, status: 'NOT_FOUND', message: `no A2A endpoint at ${request.path}` } });
  };
}

async function jsonRpc(agent: Agent, request: HttpRequest): Promise<HttpResponse> {
  const type = request.headers['content-type'];
  if (type !== undefined && type !== '' && !/json/i.test(type)) {
    return rpcResponse(null, failure(new LiteError('CONTENT_TYPE_NOT_SUPPORTED', `content type "${type}" is not JSON`)));
  }
  let envelope: unknown;
  try {
    envelope = JSON.parse(request.body);
  } catch {
    return rpcResponse(null, failure(new LiteError('INVALID_JSON', 'the request body is not valid JSON')));
  }
  if (Array.isArray(envelope)) return rpcResponse(null, failure(new LiteError('INVALID_REQUEST', 'batch requests are not supported')));
  if (typeof envelope !== 'object' || envelope === null) {
    return rpcResponse(null, failure(new LiteError('INVALID_REQUEST', 'a JSON-RPC request is an object')));
  }
  const { jsonrpc, method, params, id: rawId } = envelope as Record<string, unknown>;
  const id: Id = typeof rawId === 'string' || (typeof rawId === 'number' && Number.isFinite(rawId)) ? rawId : null;
  if (rawId !== undefined && rawId !== null && id === null) {
    return rpcResponse(null, failure(new LiteError('INVALID_REQUEST', 'id must be a string, a number or null')));
  }
  if (jsonrpc !== '2.0') return rpcResponse(id, failure(new LiteError('INVALID_REQUEST', 'jsonrpc must be "2.0"')));
  if (typeof method !== 'string' || method === '') return rpcResponse(id, failure(new LiteError('INVALID_REQUEST', 'method must be a non-empty string')));
  if (params !== undefined && params !== null && (typeof params !== 'object' || Array.isArray(params))) {
    return rpcResponse(id, failure(new LiteError('INVALID_PARAMS', 'params must be an object')));
  }

  let outcome: MethodResult;
  try {
    const handler = methodFor(method, request.headers['a2a-version']);
    outcome = await handler(agent, (params ?? {}) as Record<string, unknown>);
  } catch (error) {
    return rpcResponse(id, failure(error));
  }
  if ('result' in outcome) return json(200, { jsonrpc: '2.0', id, result: outcome.result });
  return { status: 200, headers: { ...SSE_HEADERS }, events: sse(id, outcome.events, request.signal) };
}

/**
 * Chooses the method table by the A2A-Version header. A request without the header is 0.3
 * by the spec; one that names a 1.0 method is still served as 1.0, since 0.3 has no such name.
 */
function methodFor(method: string, versionHeader: string | undefined) {
  const version = (versionHeader ?? '').trim();
  const v1 = METHODS_V1[method];
  if (/^1\.0(\.\d+)?$/.test(version) || (version === '' && v1 !== undefined)) {
    if (v1 === undefined || !Object.hasOwn(METHODS_V1, method)) throw new LiteError('METHOD_NOT_FOUND', `no method "${method}" in A2A 1.0`);
    return v1;
  }
  if (version === '' || /^0\.3(\.\d+)?$/.test(version)) {
    throw new LiteError('VERSION_NOT_SUPPORTED', `A2A 0.3 methods are not served yet; send A2A-Version: 1.0 (method "${method}")`);
  }
  throw new LiteError('VERSION_NOT_SUPPORTED', `A2A-Version ${JSON.stringify(version)} is not supported; this agent speaks 1.0`);
}

async function* sse(id: Id, events: AsyncIterable<Record<string, unknown>>, signal: AbortSignal | undefined): AsyncIterable<string> {
  try {
    for await (const result of events) {
      if (signal?.aborted) return;
      yield sseEvent({ jsonrpc: '2.0', id, result });
    }
  } catch (error) {
    yield `event: error\n${sseEvent({ jsonrpc: '2.0', id, error: failure(error) })}`;
  }
}

function failure(error: unknown): Record<string, unknown> {
  const lite = error instanceof LiteError ? error : new LiteError('INTERNAL', 'internal error');
  const body: Record<string, unknown> = { code: ERROR_TABLE[lite.code].rpc, message: lite.message };
  const reason = REASONS[lite.code];
  if (reason !== undefined) body.data = [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' }];
  return body;
}

function rpcResponse(id: Id, error: Record<string, unknown>): HttpResponse {
  return json(200, { jsonrpc: '2.0', id, error });
}

function methodNotAllowed(allowed: string): HttpResponse {
  return json(405, { error: { code: 405, status: 'METHOD_NOT_ALLOWED', message: `use ${allowed}` } }, { allow: allowed });
}
