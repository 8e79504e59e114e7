// The A2A transport handler: reads a request (request-reading.ts), then answers the card, runs
// the JSON-RPC or REST call it names, and turns results, streams and errors into responses. No
// framework, no sockets: see serve/ for those.

import { createHash } from 'node:crypto';
import type { LiteCard } from '../../card/types.js';
import type { Agent } from '../../runtime/agent.js';
import { toAgentCardV1, toHybridAgentCard, type CardExtension, type CardOptions } from '../wire/agent-card.js';
import { retentionExtension } from '../wire/retention-extension.js';
import { authenticator, keyRingOf, withAuth, type Admission, type AuthOptions, type Authenticator } from './auth.js';
import type { AuditSink } from './audit.js';
import { admission, CallGate } from './call-gate.js';
import { CallerLimits, type LimitOptions } from './caller-limits.js';
import { cardSigner, keySetResponse, type CardSigning } from './card-signing.js';
import { JWKS_PATH } from '../wire/card-signature.js';
import { systemErrorReporter, type ErrorReporter } from './error-report.js';
import { json, statusError, type A2AHandler, type CallOutcome, type MethodCall } from './http.js';
import { cardCompatProblem, cardShapeFor, type CardCompat } from './card-shape.js';
import { EXTENDED_CARD_METHODS, extendedCards, isAuthenticated, privateAnswer, unauthenticated, type ExtendedCardSource } from './extended-card.js';
import { SSE_HEADERS, sseEvent } from '../../net/sse.js';
import { type HttpRequest, type HttpResponse } from '../../net/http-types.js';
import { LiteError } from '../../errors.js';
import { METHODS_V1 } from './jsonrpc-v1.js';
import type { MethodContext, MethodResult, StreamItem } from './methods.js';
import { mapEvents } from './map-events.js';
import type { PushConfigService } from '../../model/push-config.js';
import { canonicalPath, failure, methodNotAllowed, readA2ARequest, rpcResponse, RPC_PATHS, V1_HEADER, type RpcCall, type RpcId, type Version } from './request-reading.js';
import { restError, runRest } from './rest-v1.js';
import { reliabilityExtensions, requestedExtensions, requireExtensions } from '../wire/extensions.js';
import { IDEMPOTENCY_TTL_MS } from '../../runtime/idempotency.js';
import { errorType } from '../../telemetry/spans.js';
import { ObservedCall } from './observed-call.js';
import { metricsOn, tracingOn } from '../../telemetry/switch.js';

export interface A2AHandlerOptions {
  agent: Agent;
  /** The lite card to publish (defaults to the agent's). */
  card?: LiteCard;
  /** Where clients reach this server, e.g. `http://127.0.0.1:7331`; read per request. */
  baseUrl: string | (() => string);
  /**
   * Where the gRPC binding is served (`host:port`, as `serveGrpc` gives it in `target`), declared
   * in the card as its GRPC interface; a function is read per request (undefined: none yet).
   */
  grpcUrl?: string | (() => string | undefined);
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
   * The card for clients that do not say their version (card-shape.ts): `'1.0'` (default) gives
   * them the card a strict 1.0 schema accepts, `'0.3'` the hybrid that 0.3 clients read too.
   * Either way a client that says `A2A-Version: 0.3`, or asks at `/.well-known/agent.json`,
   * gets the hybrid.
   */
  cardCompat?: CardCompat;
  /**
   * The extended card (A2A 1.0 §3.1.11): additions to the public card for authenticated callers
   * (a credential of `auth`, or a principal a relay vouches for), declared in the card. Others
   * are answered 401. Without it, the card declares none and the method is UnsupportedOperation.
   */
  extendedCard?: ExtendedCardSource;
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
  /**
   * Sign every card served with this key (A2A §8.4), and publish its public half as a JWK set at
   * `/.well-known/jwks.json`, which each signature's `jku` names unless `jku` is given.
   */
  signing?: CardSigning;
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

/** The card's gRPC interface, when the binding is served. */
const grpcInterface = (url: string | undefined): { grpcUrl?: string } => (url === undefined ? {} : { grpcUrl: url });

export function createA2AHandler(options: A2AHandlerOptions): A2AHandler {
  const card = options.card ?? options.agent.card;
  const baseUrl = typeof options.baseUrl === 'function' ? options.baseUrl : () => options.baseUrl as string;
  const keys = keyRingOf(options.auth ?? {});
  const auth: AuthOptions = { ...options.auth, ...(keys === undefined ? {} : { keys }) };
  const security = keys === undefined ? undefined : { bearer: keys.bearer || !keys.apiKey, ...(keys.apiKey ? { apiKeyHeader: auth.apiKeyHeader ?? 'X-API-Key' } : {}) };
  const limits = new CallerLimits(options.limits, options.audit);
  const gate = new CallGate(options.agent, limits, options.audit, keys !== undefined || options.limits?.maxStreams !== undefined);
  // A withdrawn credential's streams end at once; its next request is refused.
  keys?.onRevoke((principals) => limits.streams.close(principals));
  const door = options.limits === undefined && options.audit === undefined ? undefined : admission(limits, options.audit, (head) => (RPC_PATHS.has(canonicalPath(head.path)) ? 'jsonrpc' : 'rest'));
  const extensions = [...(options.agent.retention === undefined ? [] : [retentionExtension(options.agent.retention.rules)]), ...(options.extensions ?? [])];
  const required = extensions.filter((extension) => extension.required === true).map((extension) => extension.uri);
  const compatProblem = options.cardCompat === undefined ? undefined : cardCompatProblem(options.cardCompat);
  if (compatProblem !== undefined) throw new LiteError('USAGE', compatProblem);
  const report = systemErrorReporter(options.onError);
  const cardOptions = (): CardOptions => ({
    baseUrl: baseUrl(),
    ...grpcInterface(typeof options.grpcUrl === 'function' ? options.grpcUrl() : options.grpcUrl),
    streaming: true,
    pushNotifications: options.push !== undefined,
    ...(security === undefined ? {} : { security }),
    extensions: [...RELIABILITY, ...extensions],
    extendedCard: options.extendedCard !== undefined,
  });
  const extended = options.extendedCard === undefined ? undefined : extendedCards(options.extendedCard, toAgentCardV1(card, cardOptions()));
  /** The extended card of an authenticated caller, in the version its method asks for. */
  const extendedCard = extended === undefined ? undefined : (principal: string): NonNullable<MethodContext['extendedCard']> => (version) => extended(principal, version === '1.0' ? toAgentCardV1(card, cardOptions()) : toHybridAgentCard(card, cardOptions()));
  // The card is fixed for the handler's life: it was last modified when the handler was made.
  const since = new Date(Math.floor(Date.now() / 1000) * 1000);
  const check = authenticator(auth, door);
  const sign = options.signing === undefined ? undefined : cardSigner(options.signing);
  const handle = withAuth(async (request, principal) => {
    const read = readA2ARequest(request);
    switch (read.kind) {
      case 'card': {
        if (request.method !== 'GET' && request.method !== 'HEAD') return methodNotAllowed('GET');
        const shape = cardShapeFor(request, read.path, options.cardCompat);
        const served = cardOptions();
        const agentCard = shape === 'v1' ? toAgentCardV1(card, served) : toHybridAgentCard(card, served);
        return cardResponse(request, sign === undefined ? agentCard : sign(agentCard, served.baseUrl), since);
      }
      case 'answer':
        if (read.extensionsFirst === true && required.length > 0) {
          try {
            requireExtensions(required, contextOf(request.headers, principal, options.push).extensions);
          } catch (error) {
            return restError(error);
          }
        }
        return read.response;
      case 'none':
        if (options.signing !== undefined && read.path === JWKS_PATH) return keySetResponse(request, options.signing);
        return statusError(404, 'NOT_FOUND', `no A2A endpoint at ${read.path}`);
      case 'call': {
        const context = contextOf(request.headers, principal, options.push);
        if (required.length > 0) context.requiredExtensions = required;
        const forCard = extendedCard !== undefined && EXTENDED_CARD_METHODS.has(read.method);
        // Its facts are gathered only when telemetry is on: most servers never turn it on.
        const observed = telemetryOn() ? ObservedCall.start({ method: read.method, binding: read.binding, version: read.version, params: read.params, headers: request.headers, ...remote(request.remoteAddress), card }) : undefined;
        const run = observed === undefined ? read.run : observed.method(read.run);
        if (forCard) {
          if (!isAuthenticated(principal)) return observing(observed, unauthenticated(auth));
          context.extendedCard = extendedCard(principal);
        }
        const response = await gate.around(read, request, principal, context, report, (told) => (read.binding === 'rest' ? runRest(options.agent, request, read.call, context, told, run) : runRpc(options.agent, request, { ...read, run }, context, told)));
        observed?.finish(response);
        return forCard ? privateAnswer(activated(response, context)) : activated(response, context);
      }
    }
  }, auth, check, door);
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
  handler.runMethod = (call) => callMethod(options, { check, door, gate }, required, report, call, extendedCard);
  return handler;
}

/**
 * Runs a 1.0 method a binding other than HTTP calls by name (gRPC): the caller's credential is
 * checked as an HTTP request's is (its metadata are the headers), then the required extensions
 * and the version asked (1.0 only, or none said), then the method of METHODS_V1 runs with the
 * same context JSON-RPC and REST give it.
 */
async function callMethod(options: A2AHandlerOptions, guards: { check: Authenticator; door: Admission | undefined; gate: CallGate }, required: readonly string[], report: ErrorReporter, call: MethodCall, extendedCard: ((principal: string) => MethodContext['extendedCard']) | undefined): Promise<CallOutcome> {
  const head = { method: 'POST', path: `/${call.method}`, headers: call.headers, ...remote(call.remoteAddress) };
  const observed = !telemetryOn() ? undefined : ObservedCall.start({ method: call.method, binding: 'grpc', version: '1.0', params: call.params, headers: call.headers, ...remote(call.remoteAddress), card: options.card ?? options.agent.card });
  const checked = guards.check(head);
  if ('refusal' in checked) {
    observed?.refused(String(checked.refusal.status));
    return checked;
  }
  const limited = guards.door?.admit(head, checked.principal);
  if (limited !== undefined) {
    observed?.refused(String(limited.status));
    return { refusal: limited };
  }
  const context = contextOf(call.headers, checked.principal, options.push);
  if (required.length > 0) context.requiredExtensions = required;
  // As over HTTP: the extended card is for authenticated callers alone.
  if (extendedCard !== undefined && EXTENDED_CARD_METHODS.has(call.method)) {
    if (!isAuthenticated(checked.principal)) {
      observed?.refused('401');
      return { refusal: unauthenticated(options.auth ?? {}) };
    }
    context.extendedCard = extendedCard(checked.principal);
  }
  const finish = guards.gate.start(call, call.remoteAddress, checked.principal, context);
  const what = `gRPC ${call.method}`;
  try {
    const version = call.headers['a2a-version']?.trim() ?? '';
    if (version !== '' && !V1_HEADER.test(version)) throw new LiteError('VERSION_NOT_SUPPORTED', `A2A-Version ${JSON.stringify(version)} is not served over gRPC; this agent speaks 1.0 there`);
    requireExtensions(required, context.extensions);
    const method = Object.hasOwn(METHODS_V1, call.method) ? METHODS_V1[call.method] : undefined;
    if (method === undefined) throw new LiteError('METHOD_NOT_FOUND', `no method "${call.method}" in A2A 1.0`);
    context.beforeRun?.();
    const outcome = await (observed === undefined ? method : observed.method(method))(options.agent, call.params, context);
    finish();
    if ('result' in outcome) return outcome;
    const events = mapEvents(outcome.events, (item) => item, { onError: (error) => { report(error, `the stream of ${what}`); throw error; } });
    return { events: guards.gate.trackEvents(checked.principal ?? call.remoteAddress, events) };
  } catch (error) {
    observed?.refused(errorType(error));
    finish({ error });
    report(error, what);
    throw error;
  }
}

const remote = (address: string | undefined): { remoteAddress?: string } => (address === undefined ? {} : { remoteAddress: address });

/** `response`, the observed call (if any) finished with it. */
function observing(observed: ObservedCall | undefined, response: HttpResponse): HttpResponse {
  observed?.finish(response);
  return response;
}

/** What the methods learn from the request besides their params. */
function contextOf(headers: HttpRequest['headers'], principal: string | undefined, push: PushConfigService | undefined): MethodContext {
  const context: MethodContext = {};
  if (push !== undefined) context.push = push;
  if (principal !== undefined) context.principal = principal;
  const extensions = requestedExtensions(headers['a2a-extensions'] ?? headers['x-a2a-extensions']);
  if (extensions.size > 0) context.extensions = extensions;
  const lastEventId = headers['last-event-id'];
  if (lastEventId !== undefined) context.lastEventId = lastEventId;
  const idempotencyKey = headers['idempotency-key'];
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

/** Whether traces or metrics are recorded (then each call is observed). */
function telemetryOn(): boolean {
  return tracingOn() || metricsOn();
}
