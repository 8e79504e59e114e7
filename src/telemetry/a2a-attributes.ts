// The attributes of the OpenTelemetry semantic conventions for A2A (docs/observability.md): the
// method's logical name whatever the binding or dialect, and what a request and its answer say
// of the message, the task and its context. Read from the wire JSON of either version; every
// value is cut to a bound, since the peer chose it.

import type { Attributes } from '@opentelemetry/api';

/** The 0.3 JSON-RPC names, as the 1.0 operations the conventions name. */
const FROM_V03: Readonly<Record<string, string>> = {
  'message/send': 'SendMessage',
  'message/stream': 'SendStreamingMessage',
  'tasks/get': 'GetTask',
  'tasks/cancel': 'CancelTask',
  'tasks/resubscribe': 'SubscribeToTask',
  'tasks/pushNotificationConfig/set': 'CreateTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/get': 'GetTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/list': 'ListTaskPushNotificationConfigs',
  'tasks/pushNotificationConfig/delete': 'DeleteTaskPushNotificationConfig',
  'agent/getAuthenticatedExtendedCard': 'GetExtendedAgentCard',
};

/** The longest id or name kept in an attribute. */
const MAX_VALUE = 256;

/** `a2a.method.name`: the 1.0 operation a method of either dialect is. */
export function a2aMethodName(method: string): string {
  return Object.hasOwn(FROM_V03, method) ? (FROM_V03[method] as string) : method.slice(0, 64);
}

/**
 * `a2a.task.state` of a state in any of its spellings: lite (`input-required`), 0.3
 * (`canceled`) or 1.0 (`TASK_STATE_WORKING`).
 */
export function a2aTaskState(state: string): string {
  if (state.startsWith('TASK_STATE_')) return state.slice(0, 64);
  const upper = state.toUpperCase().replace(/-/g, '_');
  return `TASK_STATE_${upper === 'CANCELLED' ? 'CANCELED' : upper === 'ACCEPTED' ? 'SUBMITTED' : upper}`.slice(0, 64);
}

type Json = Record<string, unknown>;

const objectAt = (value: unknown, key: string): Json | undefined => {
  const found = typeof value === 'object' && value !== null ? (value as Json)[key] : undefined;
  return typeof found === 'object' && found !== null && !Array.isArray(found) ? (found as Json) : undefined;
};
const textAt = (value: Json | undefined, key: string): string | undefined => {
  const found = value?.[key];
  return typeof found === 'string' && found !== '' ? found.slice(0, MAX_VALUE) : undefined;
};

/** What a request's params say: the message, its task and context, the tenant. */
export function requestAttributes(params: unknown): Attributes {
  const out: Attributes = {};
  const message = objectAt(params, 'message') ?? objectAt(params, 'request');
  const top = typeof params === 'object' && params !== null ? (params as Json) : undefined;
  const messageId = textAt(message, 'messageId') ?? textAt(message, 'message_id');
  if (messageId !== undefined) out['a2a.message.id'] = messageId;
  const taskId = textAt(message, 'taskId') ?? textAt(top, 'id') ?? textAt(top, 'taskId');
  if (taskId !== undefined) out['a2a.task.id'] = taskId;
  const contextId = textAt(message, 'contextId');
  if (contextId !== undefined) out['gen_ai.conversation.id'] = contextId;
  const references = message?.referenceTaskIds;
  if (Array.isArray(references)) {
    const ids = references.filter((id): id is string => typeof id === 'string').slice(0, 16).map((id) => id.slice(0, MAX_VALUE));
    if (ids.length > 0) out['a2a.message.reference_task_ids'] = ids;
  }
  const tenant = textAt(top, 'tenant');
  if (tenant !== undefined) out['a2a.tenant'] = tenant;
  return out;
}

/**
 * What an answer or a stream event says of its task: id, state, context. Reads a 1.0 result
 * (`{task}`, `{statusUpdate}`, a task), a 0.3 one (a task or an event with `kind`), or
 * the task model's own (`{kind: 'task', task}`).
 */
export function resultAttributes(value: unknown): Attributes {
  const out: Attributes = {};
  const holder = objectAt(value, 'task') ?? objectAt(value, 'statusUpdate') ?? objectAt(value, 'status-update') ?? (typeof value === 'object' && value !== null ? (value as Json) : undefined);
  if (holder === undefined) return out;
  const taskId = textAt(holder, 'taskId') ?? (textAt(holder, 'kind') === 'message' || objectAt(value, 'message') !== undefined ? undefined : textAt(holder, 'id'));
  if (taskId !== undefined) out['a2a.task.id'] = taskId;
  const contextId = textAt(holder, 'contextId');
  if (contextId !== undefined) out['gen_ai.conversation.id'] = contextId;
  const state = textAt(objectAt(holder, 'status'), 'state');
  if (state !== undefined) out['a2a.task.state'] = a2aTaskState(state);
  return out;
}

/** `server.address` and `server.port` of a URL or a `host:port`. */
export function serverAttributes(url: string): Attributes {
  try {
    const parsed = new URL(url.includes('://') ? url : `grpc://${url}`);
    const port = parsed.port !== '' ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : parsed.protocol === 'http:' ? 80 : undefined;
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    return port === undefined ? { 'server.address': host } : { 'server.address': host, 'server.port': port };
  } catch {
    return {};
  }
}
