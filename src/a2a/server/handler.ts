// The A2A transport handler: reads a request (request-reading.ts), then answers the card, runs
// the JSON-RPC or REST call it names, and turns results, streams and errors into responses. No
// framework, no sockets: see serve/ for those.

import { createHash } from 'node:crypto';
import type { LiteCard } from '../../card/types.js';
import type { Agent } from '../../runtime/agent.js';
import { toAgentCardV1, toHybridAgentCard, type CardExtension } from '../wire/agent-card.js';
import { retentionExtension } from '../wire/retention-extension.js';
import { keyRingOf, withAuth, type AuthOptions } from './auth.js';
import type { AuditSink } from './audit.js';
import { admission, CallGate } from './call-gate.js';
import { CallerLimits, type LimitOptions } from './caller-limits.js';
import { systemErrorReporter, type ErrorReporter } from './error-report.js';
import { askedVersion, json, statusError, type A2AHandler } from './http.js';
import { SSE_HEADERS, sseEvent } from '../../net/sse.js';
import { type HttpRequest, type HttpResponse } from '../../net/http-types.js';
import type { MethodContext, MethodResult, StreamItem } from './methods.js';
import { mapEvents } from './map-events.js';
import type { PushConfigService } from '../../model/push-config.js';
import { canonicalPath, failure, methodNotAllowed, readA2ARequest, rpcResponse, RPC_PATHS, V1_HEADER, type RpcCall, type RpcId, type Version } from './request-reading.js';
import { restError, runRest } from './rest-v1.js';
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
  /**
   * Limits on each caller: requests per principal and per address (429 with Retry-After), open
   * streams and tasks per caller (docs/operations.md). None by default.
   */
  limits?: LimitOptions;
  /**
   * Told of each security event (a failed login, a limit hit) and each call that changes state
   * (send, cancel, push config set or deleted): who, from where, the task and the outcome,
   * never a credential or a message's text. `serve --audit FILE` writes them as JSON lines.
   */
  audit?: AuditSink;
}

/** The extensions every server has, as its card declares them; any request may activate them. */
const RELIABILITY = reliabilityExtensions(IDEMPOTENCY_TTL_MS / 1000);
const SERVED_EXTENSIONS = RELIABILITY.map((extension) => extension.uri);

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
  const keys = keyRingOf(options.auth ?? {});
  const auth = { ...options.auth, ...(keys === undefined ? {} : { keys }) };
  const security = keys === undefined ? undefined : { bearer: keys.bearer || !keys.apiKey, ...(keys.apiKey ? { apiKeyHeader: auth.apiKeyHeader ?? 'X-API-Key' } : {}) };
  const limits = new CallerLimits(options.limits, options.audit);
  const gate = new CallGate(options.agent, limits, options.audit, keys !== undefined || options.limits?.maxStreams !== undefined);
  // A withdrawn credential's streams end at once; its next request is refused.
  keys?.onRevoke((principals) => limits.streams.close(principals));
  const door = options.limits === undefined && options.audit === undefined ? undefined : admission(limits, options.audit, (head) => (RPC_PATHS.has(canonicalPath(head.path)) ? 'jsonrpc' : 'rest'));
  const extensions = [...(options.agent.retention === undefined ? [] : [retentionExtension(options.agent.retention.rules)]), ...(options.extensions ?? [])];
  const required = extensions.filter((extension) => extension.required === true).map((extension) => extension.uri);
  const report = systemErrorReporter(options.onError);
  // The card is fixed for the handler's life: it was last modified when the handler was made.
  const since = new Date(Math.floor(Date.now() / 1000) * 1000);
  const handle = withAuth(async (request, principal) => {
    const read = readA2ARequest(request);
    switch (read.kind) {
      case 'card': {
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
      case 'answer':
        if (read.extensionsFirst === true && required.length > 0) {
          try {
            requireExtensions(required, contextOf(request, principal, options.push).extensions);
          } catch (error) {
            return restError(error);
          }
        }
        return read.response;
      case 'none':
        return statusError(404, 'NOT_FOUND', `no A2A endpoint at ${read.path}`);
      case 'call': {
        const context = contextOf(request, principal, options.push);
        if (required.length > 0) context.requiredExtensions = required;
        const response = await gate.around(read, request, principal, context, report, (told) => (read.binding === 'rest' ? runRest(options.agent, request, read.call, context, told) : runRpc(options.agent, request, read, context, told)));
        return activated(response, context);
      }
    }
  }, auth, door);
  const handler: A2AHandler = async (request) => {
    const path = canonicalPath(request.path);
    try {
      return await handle(path === request.path ? request : { ...request, path });
    } catch (error) {
      // The bindings answer their methods' failures themselves; this is a bug outside them.
      report(error, `${request.method} ${path}`);
      return statusError(500, 'INTERNAL', 'internal error');
    }
  };
  const refusal = handle.beforeBody;
  if (refusal !== undefined) handler.beforeBody = (head) => refusal({ ...head, path: canonicalPath(head.path) });
  return handler;
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

/** Runs a JSON-RPC call read by readA2ARequest: its result, its stream, or its error. */
async function runRpc(agent: Agent, request: HttpRequest, call: RpcCall, context: MethodContext, report: ErrorReporter): Promise<HttpResponse> {
  const { id, version, method } = call;
  let outcome: MethodResult;
  try {
    requireExtensions(context.requiredExtensions ?? [], context.extensions);
    context.beforeRun?.();
    outcome = await call.run(agent, call.params, context);
  } catch (error) {
    report(error, `JSON-RPC ${method}`);
    return rpcResponse(id, failure(version, error));
  }
  if ('result' in outcome) return json(200, { jsonrpc: '2.0', id, result: outcome.result });
  const onError = (error: unknown) => report(error, `the stream of JSON-RPC ${method}`);
  return { status: 200, headers: { ...SSE_HEADERS }, events: sse(id, version, outcome.events, request.signal, onError) };
}

/** Each event a JSON-RPC response; a failure mid-stream is one last `error` event. */
function sse(id: RpcId, version: Version, events: AsyncIterable<StreamItem>, signal: AbortSignal | undefined, report: (error: unknown) => void): AsyncIterable<string> {
  return mapEvents(events, (item) => sseEvent({ jsonrpc: '2.0', id, result: item.json }, item.seq), {
    onError: (error) => {
      report(error);
      return sseEvent({ jsonrpc: '2.0', id, error: failure(version, error) }, undefined, 'error');
    },
    signal,
  });
}
