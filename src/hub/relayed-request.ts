// How the hub reads a request for an agent: once, with the agent's own server code
// (a2a/server/request-reading.ts, task-reading.ts), and what it forwards: what it decided on,
// written out again. The path becomes the canonical one, the body the JSON the server read (no
// repeated or escaped keys left to read another way), and the fields the decision rests on keep
// one spelling with the value read, so that no reader behind the hub can find another task there.

import { JWKS_PATH } from '../a2a/wire/card-signature.js';
import { HUB_EXTENSION } from '../a2a/wire/hub-trail.js';
import { statusError } from '../a2a/server/http.js';
import { type HttpRequest, type HttpResponse } from '../net/http-types.js';
import { failure, readA2ARequest, rpcResponse, type A2ARead } from '../a2a/server/request-reading.js';
import { taskUseOf, type TaskUse } from '../a2a/server/task-reading.js';
import { restError } from '../a2a/server/rest-v1.js';
import { requestedExtensions } from '../a2a/wire/extensions.js';
import type { HubTrail } from '../a2a/wire/hub-trail.js';
import { LiteError } from '../errors.js';
import { object } from './task-lite.js';

type Call = Extract<A2ARead, { kind: 'call' }>;

/** The REST calls whose route reads a body. */
const REST_BODIES = new Set(['SendMessage', 'SendStreamingMessage', 'CancelTask', 'CreateTaskPushNotificationConfig']);

/** A request the hub will forward: the path and body to send, and what it does with tasks. */
export interface Relayed {
  path: string;
  body: string;
  /** Undefined for the card. */
  call?: Call;
  use?: TaskUse;
}

/** The field each task method names its task by; the other spellings of it are dropped. */
const TASK_FIELD: Readonly<Record<string, { keep: string; drop: readonly string[] }>> = (() => {
  const byId = { keep: 'id', drop: ['taskId', 'task_id'] };
  const byTaskId = { keep: 'taskId', drop: ['task_id'] };
  const table: Record<string, { keep: string; drop: readonly string[] }> = {};
  for (const name of ['GetTask', 'CancelTask', 'SubscribeToTask', 'tasks/get', 'tasks/cancel', 'tasks/resubscribe', 'tasks/pushNotificationConfig/get', 'tasks/pushNotificationConfig/list', 'tasks/pushNotificationConfig/delete']) table[name] = byId;
  for (const name of ['CreateTaskPushNotificationConfig', 'GetTaskPushNotificationConfig', 'ListTaskPushNotificationConfigs', 'DeleteTaskPushNotificationConfig']) table[name] = byTaskId;
  table['tasks/pushNotificationConfig/set'] = { keep: 'taskId', drop: ['task_id', 'id'] };
  return table;
})();

/**
 * Reads `request` (its path relative to the agent) as the agent's server would. Returns what to
 * forward (at once when the reading needs no wait), or the answer the server would give a request it refuses before running anything.
 * `rpcPaths`: where the agent serves JSON-RPC.
 */
export function readRelayed(request: HttpRequest, path: string, rpcPaths?: ReadonlySet<string>): Relayed | { answer: HttpResponse } | Promise<Relayed | { answer: HttpResponse }> {
  const read = readA2ARequest(request, rpcPaths, path);
  if (read.kind === 'card') return { path: read.path, body: '' };
  if (read.kind === 'answer') return { answer: read.response };
  // The key set a signed card's `jku` names goes to the agent as its card does: read, no body.
  if (read.kind === 'none' && read.path === JWKS_PATH && (request.method === 'GET' || request.method === 'HEAD')) return { path: read.path, body: '' };
  if (read.kind === 'none') return { answer: statusError(404, 'NOT_FOUND', `no A2A endpoint at ${read.path}`) };
  const extensions = requestedExtensions(request.headers['a2a-extensions'] ?? request.headers['x-a2a-extensions']);
  const use = taskUseOf(read.method, read.run, read.params, extensions.size > 0 ? { extensions } : {});
  return use instanceof Promise ? use.then((known) => relayedCall(read, known)) : relayedCall(read, use);
}

function relayedCall(read: Call, use: TaskUse | LiteError): Relayed | { answer: HttpResponse } {
  if (use instanceof LiteError) return { answer: refusal(read, use) };
  return { path: read.binding === 'rest' ? restPath(read.method, read.params, read.path) : read.path, body: '', call: read, use };
}

/**
 * The body to forward for `relayed`, with `trail` (the loop guard's, for a send) in the
 * message's metadata.
 */
export function forwardedBody(relayed: Relayed, original: string, trail?: HubTrail): string {
  const { call, use } = relayed;
  if (call === undefined || use === undefined) return original;
  const holder = call.binding === 'jsonrpc' ? call.params : { ...call.params };
  if (use.kind === 'task') {
    const field = TASK_FIELD[call.method];
    if (field !== undefined) {
      for (const name of field.drop) Reflect.deleteProperty(holder, name);
      // Over REST the task is named in the path alone.
      if (call.binding === 'jsonrpc') holder[field.keep] = use.taskId;
      else Reflect.deleteProperty(holder, field.keep);
    }
  }
  if (use.kind === 'send') canonicalMessage(object(holder.message) ?? {}, use, trail);
  if (call.binding === 'jsonrpc') return JSON.stringify(call.envelope);
  return REST_BODIES.has(call.method) ? JSON.stringify(holder) : '';
}

/** The message as read: its task id in one spelling, and the trail in its metadata. */
function canonicalMessage(message: Record<string, unknown>, use: Extract<TaskUse, { kind: 'send' }>, trail: HubTrail | undefined): void {
  // Deleted only where present: a `delete` costs a call into the engine even when there is nothing to delete.
  if ('task_id' in message) delete message.task_id;
  if (use.message.taskId) message.taskId = use.message.taskId;
  else if ('taskId' in message) delete message.taskId;
  if ('context_id' in message) delete message.context_id;
  if (use.message.contextId) message.contextId = use.message.contextId;
  else if ('contextId' in message) delete message.contextId;
  if (trail !== undefined) message.metadata = { ...(use.message.metadata ?? {}), [HUB_EXTENSION]: trail };
}

/** An id as one escaped path segment; an id no URL can carry (a lone surrogate) is the client's mistake. */
function pathSegment(id: unknown): string {
  try {
    return encodeURIComponent(String(id ?? ''));
  } catch {
    throw new LiteError('INVALID_PARAMS', 'a task id in the path is not well-formed Unicode');
  }
}

/** The REST path of a 1.0 method, from the params its route read. */
function restPath(method: string, params: Record<string, unknown>, path: string): string {
  const task = pathSegment(params.id);
  const pushTask = pathSegment(params.taskId);
  switch (method) {
    case 'SendMessage':
      return '/message:send';
    case 'SendStreamingMessage':
      return '/message:stream';
    case 'ListTasks':
      return '/tasks';
    case 'GetTask':
      return `/tasks/${task}`;
    case 'CancelTask':
      return `/tasks/${task}:cancel`;
    case 'SubscribeToTask':
      return `/tasks/${task}:subscribe`;
    case 'CreateTaskPushNotificationConfig':
    case 'ListTaskPushNotificationConfigs':
      return `/tasks/${pushTask}/pushNotificationConfigs`;
    case 'GetTaskPushNotificationConfig':
    case 'DeleteTaskPushNotificationConfig':
      return `/tasks/${pushTask}/pushNotificationConfigs/${encodeURIComponent(String(params.id ?? ''))}`;
    default:
      return path;
  }
}

/** `error` answered in the binding of `call`, as the agent's server would answer it. */
export function refusal(call: Call, error: LiteError): HttpResponse {
  return call.binding === 'jsonrpc' ? rpcResponse(call.id, failure(call.version, error)) : restError(error);
}
