// The A2A 1.0 HTTP+JSON (REST) binding. Each route becomes a call to the 1.0 method table that
// JSON-RPC uses, with the same params objects; results go back as bare JSON or SSE, and failures
// as google.rpc.Status bodies with the HTTP status of the spec (1.0.1, §5.4).
//
//   POST /message:send                 SendMessage          GET  /tasks             ListTasks
//   POST /message:stream  (SSE)        SendStreamingMessage GET  /tasks/{id}        GetTask
//   POST /tasks/{id}:cancel            CancelTask           GET  /extendedAgentCard GetExtendedAgentCard
//   GET|POST /tasks/{id}:subscribe (SSE)                    SubscribeToTask
//   POST|GET /tasks/{id}/pushNotificationConfigs, GET|DELETE …/{configId}   the push-config methods
//
// The `/{tenant}/…` variants are not served: the card names no tenant, and clients prefix a
// tenant only when the card gives one. Served, they would read 0.3's `/v1/…` as a tenant.

import { ERROR_TABLE, LiteError } from '../../errors.js';
import type { Agent } from '../../runtime/agent.js';
import { errorDetailsOf, rpcStatusOf } from '../wire/error-info.js';
import type { ErrorReporter } from './error-report.js';
import { askedVersion, json } from './http.js';
import { SSE_HEADERS, sseEvent } from '../../net/sse.js';
import { type HttpRequest, type HttpResponse } from '../../net/http-types.js';
import { METHODS_V1 } from './jsonrpc-v1.js';
import type { Method, MethodContext, StreamItem } from './methods.js';
import { mapEvents } from './map-events.js';
import { requireExtensions } from '../wire/extensions.js';
import { invalid, type Json } from '../wire/fields.js';
import { A2A_JSON } from '../../media-types.js';

/** A REST request as a 1.0 method call: the name in METHODS_V1, its params, the success status. */
export interface RestCall {
  method: string;
  params: Json;
  /** 200 when left out; a call whose result is null answers 204 whatever this says. */
  status?: number;
}

/** What one HTTP method does at a path: whether it reads a body, and the call it makes. */
export interface Operation {
  readsBody: boolean;
  call(query: URLSearchParams, body: Json): RestCall;
}

const withBody = (call: (body: Json, query: URLSearchParams) => RestCall): Operation => ({ readsBody: true, call: (query, body) => call(body, query) });
const withoutBody = (call: (query: URLSearchParams) => RestCall): Operation => ({ readsBody: false, call: (query) => call(query) });

/** What a path names, before its HTTP method is looked at. */
type Target =
  | { kind: 'v0.3' }
  | { kind: 'message:send' | 'message:stream' | 'tasks' | 'extendedAgentCard' }
  | { kind: 'task' | 'task:cancel' | 'task:subscribe'; id: string }
  | { kind: 'pushConfigs'; taskId: string; configId?: string };

const TOP_LEVEL = new Set(['message:send', 'message:stream', 'tasks', 'extendedAgentCard']);

type QueryType = 'string' | 'integer' | 'boolean';
const LIST_TASKS_QUERY: Readonly<Record<string, QueryType>> = {
  contextId: 'string',
  status: 'string',
  pageSize: 'integer',
  pageToken: 'string',
  historyLength: 'integer',
  statusTimestampAfter: 'string',
  includeArtifacts: 'boolean',
};
const GET_TASK_QUERY: Readonly<Record<string, QueryType>> = { historyLength: 'integer' };
/** Where a resubscription resumes (the resume extension); the `Last-Event-ID` header says it too. */
const SUBSCRIBE_QUERY: Readonly<Record<string, QueryType>> = { lastEventId: 'string' };
const LIST_PUSH_QUERY: Readonly<Record<string, QueryType>> = { pageSize: 'integer', pageToken: 'string' };

/** A2A-Version values served here; a patch number is tolerated, as the spec asks. */
const V1_HEADER = /^1\.0(\.\d+)?$/;

/** A REST request as the server reads it: the 1.0 method it calls, or the answer that refuses it. */
export type RestRead =
  | { kind: 'call'; call: RestCall }
  | { kind: 'answer'; response: HttpResponse }
  /** A query, body or version the route cannot take: refused once the required extensions are checked. */
  | { kind: 'refused'; error: unknown };

/**
 * Reads a REST request, or returns undefined when the path is not a REST route (the caller
 * answers 404). A known path asked with the wrong HTTP method is refused with 405; a body or
 * query the route cannot read, with the error its method would give.
 */
export function readRest(request: HttpRequest, path = request.path): RestRead | undefined {
  const target = targetOf(path);
  if (target === undefined) return undefined;
  if (target.kind === 'v0.3') {
    const hint = 'use the 1.0 paths (no /v1) or 0.3 over JSON-RPC';
    return { kind: 'answer', response: restError(new LiteError('VERSION_NOT_SUPPORTED', `A2A 0.3 over HTTP+JSON (/v1/…) is not served here; ${hint}`)) };
  }
  const operations = operationsAt(target);
  const operation = Object.hasOwn(operations, request.method) ? operations[request.method] : undefined;
  if (operation === undefined) return { kind: 'answer', response: methodNotAllowed(Object.keys(operations)) };
  try {
    checkVersion(request);
  } catch (error) {
    return { kind: 'answer', response: restError(error) };
  }
  try {
    return { kind: 'call', call: operation.call(request.query, operation.readsBody ? readBody(request) : {}) };
  } catch (error) {
    return { kind: 'refused', error };
  }
}

/**
 * Runs a REST call read by `readRest`. `context` is what the JSON-RPC methods get too (the push
 * config service, the principal asking); `report` is told of every failure, and picks the
 * system errors out of them.
 */
export async function runRest(agent: Agent, request: HttpRequest, call: RestCall, context: MethodContext = {}, report: ErrorReporter = () => {}, run?: Method): Promise<HttpResponse> {
  const what = `HTTP+JSON ${call.method}`;
  try {
    requireExtensions(context.requiredExtensions ?? [], context.extensions);
    context.beforeRun?.();
    const method = run ?? (Object.hasOwn(METHODS_V1, call.method) ? METHODS_V1[call.method] : undefined);
    if (method === undefined) throw new LiteError('INTERNAL', `no 1.0 method "${call.method}"`);
    const outcome = await method(agent, call.params, context);
    if ('events' in outcome) return { status: 200, headers: { ...SSE_HEADERS }, events: sse(outcome.events, request.signal, (error) => report(error, `the stream of ${what}`)) };
    if (outcome.result === null || outcome.result === undefined) return { status: 204, headers: {}, body: '' };
    return json(call.status ?? 200, outcome.result, { 'content-type': A2A_JSON });
  } catch (error) {
    report(error, what);
    return restError(error);
  }
}

function operationsAt(target: Exclude<Target, { kind: 'v0.3' }>): Readonly<Record<string, Operation>> {
  switch (target.kind) {
    case 'message:send':
      return { POST: withBody((body) => ({ method: 'SendMessage', params: body })) };
    case 'message:stream':
      return { POST: withBody((body) => ({ method: 'SendStreamingMessage', params: body })) };
    case 'tasks':
      return { GET: withoutBody((query) => ({ method: 'ListTasks', params: readQuery(query, LIST_TASKS_QUERY) })) };
    case 'task':
      return { GET: withoutBody((query) => ({ method: 'GetTask', params: { ...readQuery(query, GET_TASK_QUERY), id: target.id } })) };
    case 'task:cancel':
      return { POST: withBody((body) => ({ method: 'CancelTask', params: { ...body, id: target.id } })) };
    case 'task:subscribe': {
      // The proto says GET and the spec's prose POST (A2A#1574, still open); the SDK sends POST.
      const subscribe = withoutBody((query) => ({ method: 'SubscribeToTask', params: { ...readQuery(query, SUBSCRIBE_QUERY), id: target.id } }));
      return { GET: subscribe, POST: subscribe };
    }
    case 'pushConfigs':
      return pushConfigOperations(target.taskId, target.configId);
    case 'extendedAgentCard':
      return { GET: withoutBody(() => ({ method: 'GetExtendedAgentCard', params: {} })) };
  }
}

/**
 * The push-config routes, as calls to the 1.0 push methods by their JSON-RPC names, so that both
 * bindings run one implementation (today each refuses with PUSH_NOT_SUPPORTED). The task id
 * comes from the path, over any in the body. A created config answers 201, as the SDK does.
 */
export function pushConfigOperations(taskId: string, configId: string | undefined): Readonly<Record<string, Operation>> {
  if (configId === undefined) {
    return {
      POST: withBody((body) => ({ method: 'CreateTaskPushNotificationConfig', params: { ...body, taskId }, status: 201 })),
      GET: withoutBody((query) => ({ method: 'ListTaskPushNotificationConfigs', params: { ...readQuery(query, LIST_PUSH_QUERY), taskId } })),
    };
  }
  const params = { taskId, id: configId };
  return {
    GET: withoutBody(() => ({ method: 'GetTaskPushNotificationConfig', params })),
    DELETE: withoutBody(() => ({ method: 'DeleteTaskPushNotificationConfig', params })),
  };
}

/**
 * What a path names, or undefined. Segments are split before they are decoded, so that
 * `/tasks/..%2F..` asks for the task named `../..` and nothing else. A literal `:` in a task
 * segment starts a verb; an id holding a colon arrives as `%3A`, as the SDK encodes it.
 */
function targetOf(path: string): Target | undefined {
  const segments = path.split('/').slice(1);
  if (segments[0] === 'v1') return { kind: 'v0.3' };
  if (segments.length === 1 && TOP_LEVEL.has(segments[0]!)) return { kind: segments[0] as 'tasks' };
  if (segments[0] !== 'tasks' || segments.length < 2) return undefined;
  if (segments.length === 2) {
    const segment = segments[1]!;
    const colon = segment.indexOf(':');
    const id = decode(colon === -1 ? segment : segment.slice(0, colon));
    if (id === undefined) return undefined;
    if (colon === -1) return { kind: 'task', id };
    const verb = segment.slice(colon + 1);
    return verb === 'cancel' || verb === 'subscribe' ? { kind: `task:${verb}`, id } : undefined;
  }
  if (segments[2] !== 'pushNotificationConfigs' || segments.length > 4) return undefined;
  const taskId = decode(segments[1]!);
  if (taskId === undefined) return undefined;
  if (segments.length === 3) return { kind: 'pushConfigs', taskId };
  const configId = decode(segments[3]!);
  return configId === undefined ? undefined : { kind: 'pushConfigs', taskId, configId };
}

/** A path segment decoded; undefined when it is empty or its %-escapes are broken. */
function decode(segment: string): string | undefined {
  if (segment === '') return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * Refuses every A2A version but 1.0, read from the header or the `A2A-Version` query parameter
 * (spec §3.6.1). The spec reads a missing version as 0.3, but no 0.3 REST path looks like these
 * (0.3's live under /v1), so a request here without one is served as 1.0: the same leniency
 * JSON-RPC shows for 1.0 method names. The SDK client always sends the header; curl and
 * hand-written clients often do not.
 */
function checkVersion(request: HttpRequest): void {
  const asked = askedVersion(request);
  if (asked !== '' && !V1_HEADER.test(asked)) {
    throw new LiteError('VERSION_NOT_SUPPORTED', `A2A-Version ${JSON.stringify(asked)} is not served over HTTP+JSON; this agent speaks 1.0 here`);
  }
}

/**
 * The body as an object; an empty body is `{}`. A body must be JSON by its content type when it
 * names one: `application/a2a+json` or `application/json`, as the SDK server accepts.
 */
function readBody(request: HttpRequest): Json {
  if (request.body.trim() === '') return {};
  const type = request.headers['content-type'];
  if (type !== undefined && type !== '' && !isJsonType(type)) {
    throw new LiteError('CONTENT_TYPE_NOT_SUPPORTED', `content type "${type}" is not ${A2A_JSON} or application/json`);
  }
  let value: unknown;
  try {
    value = JSON.parse(request.body);
  } catch {
    throw new LiteError('INVALID_JSON', 'the request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('the request body must be a JSON object');
  return value as Json;
}

function isJsonType(type: string): boolean {
  const media = type.split(';')[0]!.trim().toLowerCase();
  return media === A2A_JSON || media === 'application/json';
}

/**
 * Query parameters as a params object (spec §11.5): camelCase names, whole numbers, `true` or
 * `false`, enum names as strings. Unknown names are ignored; a name given twice is refused.
 */
function readQuery(query: URLSearchParams, fields: Readonly<Record<string, QueryType>>): Json {
  const params: Json = {};
  for (const [name, type] of Object.entries(fields)) {
    const values = query.getAll(name);
    if (values.length === 0) continue;
    if (values.length > 1) throw invalid(`query parameter ${name} is given more than once`);
    const value = values[0]!;
    if (type === 'integer') {
      if (!/^\d+$/.test(value)) throw invalid(`query parameter ${name} must be a whole number ≥ 0`);
      params[name] = Number(value);
    } else if (type === 'boolean') {
      if (value !== 'true' && value !== 'false') throw invalid(`query parameter ${name} must be true or false`);
      params[name] = value === 'true';
    } else {
      params[name] = value;
    }
  }
  return params;
}

/** Each event a bare StreamResponse; a failure mid-stream is an `error` event, as the SDK sends. */
function sse(events: AsyncIterable<StreamItem>, signal: AbortSignal | undefined, report: (error: unknown) => void): AsyncIterable<string> {
  const onError = (error: unknown): string => {
    report(error);
    return sseEvent(statusBody(error), undefined, 'error');
  };
  return mapEvents(events, (item) => sseEvent(item.json, item.seq), { onError, signal });
}

/** A failure as a google.rpc.Status body, with the HTTP status the error table gives its code. */
export function restError(error: unknown): HttpResponse {
  const body = statusBody(error);
  return json(body.error.code, body, { 'content-type': A2A_JSON });
}

function statusBody(error: unknown): { error: { code: number; status: string; message: string; details: Json[] } } {
  const lite = error instanceof LiteError ? error : new LiteError('INTERNAL', 'internal error');
  return { error: { code: ERROR_TABLE[lite.code].http, status: rpcStatusOf(lite.code), message: lite.message, details: errorDetailsOf(lite) } };
}

function methodNotAllowed(allowed: readonly string[]): HttpResponse {
  const body = { error: { code: 405, status: 'UNIMPLEMENTED', message: `use ${allowed.join(' or ')}`, details: [] } };
  return json(405, body, { 'content-type': A2A_JSON, allow: allowed.join(', ') });
}
