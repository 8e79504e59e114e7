// The A2A transport handler: routes a request to the agent card, to JSON-RPC or to the 1.0 REST
// routes (rest-v1.ts); reads the JSON-RPC envelope, picks its version (1.0 or 0.3), and turns
// results, streams and errors into responses. No framework, no sockets: see serve/ for those.

import { createHash } from 'node:crypto';
import type { LiteCard } from '../../card/types.js';
import { ERROR_TABLE, LiteError } from '../../errors.js';
import type { Agent } from '../../runtime/agent.js';
import { JSONRPC_PATH, toAgentCardV1, toHybridAgentCard, type CardExtension } from '../wire/agent-card.js';
import { retentionExtension } from '../wire/retention-extension.js';
import { authEnabled, withAuth, type AuthOptions } from './auth.js';
import { errorDetailsOf } from '../wire/error-info.js';
import { systemErrorReporter, type ErrorReporter } from './error-report.js';
import { askedVersion, json, SSE_HEADERS, sseEvent, statusError, type A2AHandler, type HttpRequest, type HttpResponse } from './http.js';
import { METHODS_V03 } from './jsonrpc-v03.js';
import { METHODS_V1 } from './jsonrpc-v1.js';
import type { Method, MethodContext, MethodResult, StreamItem } from './methods.js';
import { mapEvents } from './map-events.js';
import type { PushConfigService } from '../../model/push-config.js';
import { restV1 } from './rest-v1.js';
import { reliabilityExtensions, requestedExtensions, requireExtensions } from '../wire/extensions.js';
import { IDEMPOTENCY_TTL_MS } from '../../runtime/idempotency.js';

export interface A2AHandlerOptions {
  agent: Agent;
  /** The lite card to publish (defaults to the agent's). */
  card?: LiteCard;
  /** Where clients reach this server, e.g. `http://127.0.0.1:7331`; read per request. */
  baseUrl: string | (() => string);
  /** Push notification configs (a started push sender); without it, push is off and the card says so. */
  push?: PushConfigService;
  /**
   * Credentials every request but the card's must carry; declared in the card. Each request is
   * then made by the principal of its credential, and reaches only the tasks that principal made.
   */
  auth?: AuthOptions;
  /**
   * Extensions this server supports besides the lite card's, declared in its card. An agent with
   * retention rules declares them itself (retention-extension.ts), before these. One marked
   * `required` must be activated by every request but the card's (`A2A-Extensions`, or
   * `X-A2A-Extensions` in 0.3), or the request is refused with EXTENSION_SUPPORT_REQUIRED
   * (-32008, 400 FAILED_PRECONDITION) before its method runs.
   */
  extensions?: readonly CardExtension[];
  /**
   * Told of each failure that is the server's own (an unexpected exception, an error answered
   * with 5xx), which the client sees only as -32603 or 500; by default a line on stderr. Never
   * given the request, its body or a credential.
   */
  onError?: ErrorReporter;
}

type Id = string | number | null;

/** The two dialects spoken here; they differ in method names, bodies and error `data`. */
type Version = '1.0' | '0.3';

/** The extensions every server has, as its card declares them; any request may activate them. */
const RELIABILITY = reliabilityExtensions(IDEMPOTENCY_TTL_MS / 1000);
const SERVED_EXTENSIONS = RELIABILITY.map((extension) => extension.uri);

const CARD_PATHS = new Set(['/.well-known/agent-card.json', '/.well-known/agent.json']);
const RPC_PATHS = new Set([JSONRPC_PATH, '/']);
/** A2A-Version values served; a patch number is tolerated, as the spec asks. */
const V1_HEADER = /^1\.0(\.\d+)?$/;
const V03_HEADER = /^0\.3(\.\d+)?$/;

/**
 * The card with its validators (§8.6.1): a strong ETag of its bytes and Last-Modified; a client
 * that already holds this version (If-None-Match, else If-Modified-Since) gets 304 and no body.
 */
function cardResponse(request: HttpRequest, agentCard: unknown, since: Date): HttpResponse {
  const body = JSON.stringify(agentCard);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
  const headers = { 'cache-control': 'public, max-age=300', etag, 'last-modified': since.toUTCString(), vary: 'A2A-Version' };
  const match = request.headers['if-none-match'];
  const modifiedSince = Date.parse(request.headers['if-modified-since'] ?? '');
  const fresh = match !== undefined ? match.split(',').some((tag) => tag.trim() === '*' || tag.trim().replace(/^W\//, '') === etag) : !Number.isNaN(modifiedSince) && modifiedSince >= since.getTime();
  if (fresh) return { status: 304, headers, body: '' };
  return { status: 200, headers: { 'content-type': 'application/json', ...headers }, body };
}

export function createA2AHandler(options: A2AHandlerOptions): A2AHandler {
  const card = options.card ?? options.agent.card;
  const baseUrl = typeof options.baseUrl === 'function' ? options.baseUrl : () => options.baseUrl as string;
  const auth = options.auth ?? {};
  const security = authEnabled(auth)
    ? { bearer: (auth.bearerTokens?.length ?? 0) > 0, ...((auth.apiKeys?.length ?? 0) > 0 ? { apiKeyHeader: auth.apiKeyHeader ?? 'X-API-Key' } : {}) }
    : undefined;
  const extensions = [...(options.agent.retention === undefined ? [] : [retentionExtension(options.agent.retention.rules)]), ...(options.extensions ?? [])];
  const required = extensions.filter((extension) => extension.required === true).map((extension) => extension.uri);
  const report = systemErrorReporter(options.onError);
  // The card is fixed for the handler's life: it was last modified when the handler was made.
  const since = new Date(Math.floor(Date.now() / 1000) * 1000);
  const handle = withAuth(async (request, principal) => {
    if (CARD_PATHS.has(request.path)) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return methodNotAllowed('GET');
      const cardOptions = {
        baseUrl: baseUrl(),
        streaming: true,
        pushNotifications: options.push !== undefined,
        ...(security === undefined ? {} : { security }),
        extensions: [...RELIABILITY, ...extensions],
      };
      // A 1.0 client says so (the official SDKs send A2A-Version when they fetch the card) and
      // gets a card the 1.0 schema accepts; one that says nothing may be 0.3 and gets both.
      const v1 = V1_HEADER.test(askedVersion(request));
      const agentCard = v1 ? toAgentCardV1(card, cardOptions) : toHybridAgentCard(card, cardOptions);
      return cardResponse(request, agentCard, since);
    }
    const context = contextOf(request, principal, options.push);
    if (required.length > 0) context.requiredExtensions = required;
    if (RPC_PATHS.has(request.path)) {
      if (request.method !== 'POST') return methodNotAllowed('POST');
      return activated(await jsonRpc(options.agent, request, context, report), context);
    }
    const rest = restV1(options.agent, request, context, report);
    if (rest !== undefined) return activated(await rest, context);
    return statusError(404, 'NOT_FOUND', `no A2A endpoint at ${request.path}`);
  }, auth);
  return async (request) => {
    // `…/jsonrpc/` is `…/jsonrpc`: some clients join a base URL and a path that way. One slash only.
    const path = request.path.length > 1 && request.path.endsWith('/') && !request.path.endsWith('//') ? request.path.slice(0, -1) : request.path;
    try {
      return await handle(path === request.path ? request : { ...request, path });
    } catch (error) {
      // The bindings answer their methods' failures themselves; this is a bug outside them.
      report(error, `${request.method} ${path}`);
      return statusError(500, 'INTERNAL', 'internal error');
    }
  };
}

/** What the methods learn from the request besides their params. */
function contextOf(request: HttpRequest, principal: string | undefined, push: PushConfigService | undefined): MethodContext {
  const context: MethodContext = {};
  if (push !== undefined) context.push = push;
  if (principal !== undefined) context.principal = principal;
  const extensions = requestedExtensions(request.headers['a2a-extensions'] ?? request.headers['x-a2a-extensions']);
  if (extensions.size > 0) context.extensions = extensions;
  const lastEventId = request.headers['last-event-id'];
  if (lastEventId !== undefined) context.lastEventId = lastEventId;
  const idempotencyKey = request.headers['idempotency-key'];
  if (idempotencyKey !== undefined) context.idempotencyKey = idempotencyKey;
  return context;
}

/** The answer naming the extensions of ours the client asked for, which were active for it. */
function activated(response: HttpResponse, context: MethodContext): HttpResponse {
  const served = SERVED_EXTENSIONS.filter((uri) => context.extensions?.has(uri) === true);
  if (served.length === 0) return response;
  return { ...response, headers: { ...response.headers, 'a2a-extensions': served.join(', ') } };
}

async function jsonRpc(agent: Agent, request: HttpRequest, context: MethodContext, report: ErrorReporter): Promise<HttpResponse> {
  // From the header, else the query (§3.6.1): it picks the dialect and may be refused (-32009).
  const header = askedVersion(request);
  // Until the method is known, errors take the header's dialect (none at all means 0.3).
  const early: Version = header === '' || V03_HEADER.test(header) ? '0.3' : '1.0';
  const type = request.headers['content-type'];
  if (type !== undefined && type !== '' && !/json/i.test(type)) {
    return rpcResponse(null, failure(early, new LiteError('CONTENT_TYPE_NOT_SUPPORTED', `content type "${type}" is not JSON`)));
  }
  let envelope: unknown;
  try {
    envelope = JSON.parse(request.body);
  } catch {
    return rpcResponse(null, failure(early, new LiteError('INVALID_JSON', 'the request body is not valid JSON')));
  }
  if (Array.isArray(envelope)) return rpcResponse(null, failure(early, new LiteError('INVALID_REQUEST', 'batch requests are not supported')));
  if (typeof envelope !== 'object' || envelope === null) {
    return rpcResponse(null, failure(early, new LiteError('INVALID_REQUEST', 'a JSON-RPC request is an object')));
  }
  const { jsonrpc, method, params, id: rawId } = envelope as Record<string, unknown>;
  // A number id is echoed as the number JSON.parse read, which past 2^53 (or in a fraction)
  // may differ from the digits sent: the client could not match the answer to its request.
  const id: Id = typeof rawId === 'string' || Number.isSafeInteger(rawId) ? (rawId as string | number) : null;
  if (rawId !== undefined && rawId !== null && id === null) {
    return rpcResponse(null, failure(early, new LiteError('INVALID_REQUEST', 'id must be a string, a whole number from -(2^53 - 1) to 2^53 - 1, or null')));
  }
  if (jsonrpc !== '2.0') return rpcResponse(id, failure(early, new LiteError('INVALID_REQUEST', 'jsonrpc must be "2.0"')));
  if (typeof method !== 'string' || method === '') return rpcResponse(id, failure(early, new LiteError('INVALID_REQUEST', 'method must be a non-empty string')));
  const version = versionOf(method, header);
  if (params !== undefined && params !== null && (typeof params !== 'object' || Array.isArray(params))) {
    return rpcResponse(id, failure(version, new LiteError('INVALID_PARAMS', 'params must be an object')));
  }

  let outcome: MethodResult;
  try {
    const run = methodFor(method, header, version);
    requireExtensions(context.requiredExtensions ?? [], context.extensions);
    outcome = await run(agent, (params ?? {}) as Record<string, unknown>, context);
  } catch (error) {
    // Only a method found in a table can fail on the server's side, so `method` is one of their
    // names whenever this reports (an unknown name is the client's error: not reported).
    report(error, `JSON-RPC ${method}`);
    return rpcResponse(id, failure(version, error));
  }
  if ('result' in outcome) return json(200, { jsonrpc: '2.0', id, result: outcome.result });
  const onError = (error: unknown) => report(error, `the stream of JSON-RPC ${method}`);
  return { status: 200, headers: { ...SSE_HEADERS }, events: sse(id, version, outcome.events, request.signal, onError) };
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

/** Each event a JSON-RPC response; a failure mid-stream is one last `error` event. */
function sse(id: Id, version: Version, events: AsyncIterable<StreamItem>, signal: AbortSignal | undefined, report: (error: unknown) => void): AsyncIterable<string> {
  return mapEvents(events, (item) => sseEvent({ jsonrpc: '2.0', id, result: item.json }, item.seq), {
    onError: (error) => {
      report(error);
      return `event: error\n${sseEvent({ jsonrpc: '2.0', id, error: failure(version, error) })}`;
    },
    signal,
  });
}

/**
 * A JSON-RPC error object. 1.0 puts an ErrorInfo array in `data`; 0.3 leaves `data` free-form
 * and defines nothing for it, so a 0.3 error has none: a 0.3 client would take the 1.0 array for
 * its own `data`, and the official SDK's 0.3 server sends none either.
 */
function failure(version: Version, error: unknown): Record<string, unknown> {
  const lite = error instanceof LiteError ? error : new LiteError('INTERNAL', 'internal error');
  const body: Record<string, unknown> = { code: ERROR_TABLE[lite.code].rpc, message: lite.message };
  const details = errorDetailsOf(lite);
  if (version === '1.0' && details.length > 0) body.data = details;
  return body;
}

function rpcResponse(id: Id, error: Record<string, unknown>): HttpResponse {
  return json(200, { jsonrpc: '2.0', id, error });
}

function methodNotAllowed(allowed: string): HttpResponse {
  return statusError(405, 'UNIMPLEMENTED', `use ${allowed}`, { allow: allowed });
}
