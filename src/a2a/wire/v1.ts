// A2A 1.0 JSON shapes ⇄ the task model. Outgoing objects leave out empty fields, as ProtoJSON
// does; incoming ones are checked field by field, and every refusal names the field.

import type { TaskState } from '../../protocol/states.js';
import type { Artifact, Part, Task, TaskEvent, TaskMessage, TaskStatus } from '../../model/task.js';
import { asObject, field, invalidField, optionalString, shown, type Json } from './fields.js';

const STATE_TO_V1: Readonly<Record<TaskState, string>> = {
  submitted: 'TASK_STATE_SUBMITTED',
  accepted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  failed: 'TASK_STATE_FAILED',
  cancelled: 'TASK_STATE_CANCELED',
  rejected: 'TASK_STATE_REJECTED',
};

const STATE_FROM_V1: Readonly<Record<string, TaskState>> = {
  TASK_STATE_SUBMITTED: 'submitted',
  TASK_STATE_WORKING: 'working',
  TASK_STATE_INPUT_REQUIRED: 'input-required',
  TASK_STATE_AUTH_REQUIRED: 'auth-required',
  TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_CANCELED: 'cancelled',
  // Not the spec's spelling, but written by some agents; read, never written.
  TASK_STATE_CANCELLED: 'cancelled',
  TASK_STATE_REJECTED: 'rejected',
};

export function stateToV1(state: TaskState): string {
  return STATE_TO_V1[state];
}

/**
 * Reads a 1.0 state name; undefined for TASK_STATE_UNSPECIFIED and unknown names. Own keys only,
 * so that `__proto__` or `constructor` are not taken for states.
 */
export function stateFromV1(value: unknown): TaskState | undefined {
  return typeof value === 'string' && Object.hasOwn(STATE_FROM_V1, value) ? STATE_FROM_V1[value] : undefined;
}

/**
 * Every state shown on the wire as the 1.0 state `value` names, for filters: a client asking for
 * TASK_STATE_SUBMITTED means each task it would see as submitted, `accepted` ones too. Undefined
 * as for `stateFromV1`.
 *
 * @example
 * statesFromV1('TASK_STATE_SUBMITTED') // ['submitted', 'accepted']
 */
export function statesFromV1(value: unknown): TaskState[] | undefined {
  const state = stateFromV1(value);
  if (state === undefined) return undefined;
  return (Object.keys(STATE_TO_V1) as TaskState[]).filter((each) => STATE_TO_V1[each] === STATE_TO_V1[state]);
}

/** A task as 1.0 JSON; `historyLength` keeps only the newest messages (0: none). */
export function taskToV1(task: Task, historyLength?: number, includeArtifacts = true): Json {
  const out: Json = { id: task.id, contextId: task.contextId, status: statusToV1(task.status) };
  if (includeArtifacts && task.artifacts.length > 0) out.artifacts = task.artifacts.map(artifactToV1);
  const history = historyLength === undefined ? task.history : historyLength === 0 ? [] : task.history.slice(-historyLength);
  if (history.length > 0) out.history = history.map(messageToV1);
  if (task.metadata !== undefined) out.metadata = task.metadata;
  return out;
}

export function statusToV1(status: TaskStatus): Json {
  const out: Json = { state: stateToV1(status.state) };
  if (status.message !== undefined) out.message = messageToV1(status.message);
  out.timestamp = status.timestamp;
  return out;
}

export function messageToV1(message: TaskMessage): Json {
  const out: Json = { messageId: message.messageId };
  if (message.contextId) out.contextId = message.contextId;
  if (message.taskId) out.taskId = message.taskId;
  out.role = message.role === 'user' ? 'ROLE_USER' : 'ROLE_AGENT';
  out.parts = message.parts.map(partToV1);
  if (message.metadata !== undefined) out.metadata = message.metadata;
  if (message.referenceTaskIds?.length) out.referenceTaskIds = message.referenceTaskIds;
  return out;
}

export function artifactToV1(artifact: Artifact): Json {
  const out: Json = { artifactId: artifact.artifactId };
  if (artifact.name) out.name = artifact.name;
  if (artifact.description) out.description = artifact.description;
  out.parts = artifact.parts.map(partToV1);
  if (artifact.metadata !== undefined) out.metadata = artifact.metadata;
  return out;
}

export function partToV1(part: Part): Json {
  let out: Json;
  if (part.kind === 'text') out = { text: part.text };
  else if (part.kind === 'data') out = { data: part.data };
  else if (part.bytes !== undefined) out = { raw: part.bytes };
  else if (part.url !== undefined) out = { url: part.url };
  // A file known only by name (an attachment line from chat) has no content to send.
  else out = { text: `[attachment: ${part.name ?? 'file'}]` };
  if (part.kind === 'file' && part.name && (part.bytes !== undefined || part.url !== undefined)) out.filename = part.name;
  if (part.mediaType) out.mediaType = part.mediaType;
  if (part.metadata !== undefined) out.metadata = part.metadata;
  return out;
}

/** One stream event as a 1.0 StreamResponse. */
export function eventToV1(event: TaskEvent): Json {
  switch (event.kind) {
    case 'task':
      return { task: taskToV1(event.task) };
    case 'message':
      return { message: messageToV1(event.message) };
    case 'status':
      return { statusUpdate: { taskId: event.taskId, contextId: event.contextId, status: statusToV1(event.status) } };
    case 'artifact': {
      const update: Json = { taskId: event.taskId, contextId: event.contextId, artifact: artifactToV1(event.artifact) };
      if (event.append) update.append = true;
      if (event.lastChunk) update.lastChunk = true;
      return { artifactUpdate: update };
    }
  }
}

/** Reads a message a client sent (1.0 JSON). Accepts snake_case names, as ProtoJSON readers do. */
export function messageFromV1(value: unknown, path = 'message'): TaskMessage {
  const object = asObject(value, path);
  const messageId = field(object, 'messageId', 'message_id');
  if (typeof messageId !== 'string' || messageId === '') throw invalidField(`${path}.messageId`, `is required`);
  const role = field(object, 'role');
  if (role !== 'ROLE_USER' && role !== 'ROLE_AGENT' && role !== 1 && role !== 2) {
    throw invalidField(`${path}.role`, `must be ROLE_USER or ROLE_AGENT`);
  }
  const parts = field(object, 'parts');
  if (!Array.isArray(parts) || parts.length === 0) throw invalidField(`${path}.parts`, `must be a non-empty array`);
  const message: TaskMessage = {
    messageId,
    role: role === 'ROLE_USER' || role === 1 ? 'user' : 'agent',
    parts: parts.map((part, i) => partFromV1(part, `${path}.parts[${i}]`)),
  };
  const contextId = optionalString(object, `${path}.contextId`, 'contextId', 'context_id');
  if (contextId) message.contextId = contextId;
  const taskId = optionalString(object, `${path}.taskId`, 'taskId', 'task_id');
  if (taskId) message.taskId = taskId;
  const metadata = field(object, 'metadata');
  if (metadata !== undefined && metadata !== null) message.metadata = asObject(metadata, `${path}.metadata`);
  const references = field(object, 'referenceTaskIds', 'reference_task_ids');
  if (Array.isArray(references) && references.length > 0) {
    if (!references.every((r) => typeof r === 'string')) throw invalidField(`${path}.referenceTaskIds`, `must hold strings`);
    message.referenceTaskIds = references as string[];
  }
  return message;
}

function partFromV1(value: unknown, path: string): Part {
  const object = asObject(value, path);
  const present = ['text', 'raw', 'url', 'data'].filter((key) => object[key] !== undefined);
  if (present.length !== 1) throw invalidField(`${path}`, `must hold exactly one of text, raw, url, data`);
  const mediaType = optionalString(object, `${path}.mediaType`, 'mediaType', 'media_type');
  const filename = optionalString(object, `${path}.filename`, 'filename');
  const metadata = object.metadata === undefined || object.metadata === null ? undefined : asObject(object.metadata, `${path}.metadata`);
  let part: Part;
  if (object.text !== undefined) {
    if (typeof object.text !== 'string') throw invalidField(`${path}.text`, `must be a string`);
    part = { kind: 'text', text: object.text };
  } else if (object.data !== undefined) {
    part = { kind: 'data', data: object.data };
  } else if (object.raw !== undefined) {
    if (typeof object.raw !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(object.raw)) throw invalidField(`${path}.raw`, `must be base64`);
    part = { kind: 'file', bytes: Buffer.from(object.raw, 'base64').toString('base64') };
  } else {
    if (typeof object.url !== 'string' || object.url === '') throw invalidField(`${path}.url`, `must be a non-empty string`);
    part = { kind: 'file', url: object.url };
  }
  if (part.kind === 'file' && filename) part.name = filename;
  if (mediaType) part.mediaType = mediaType;
  if (metadata) part.metadata = metadata;
  return part;
}

// What a client reads back from a 1.0 agent: tasks, stream responses and SendMessage results.
// Checked as strictly as requests (a wrong field is named), since a2a-lite prints and stores it.

/** Reads a task an agent returned (1.0 JSON). */
export function taskFromV1(value: unknown, path = 'task'): Task {
  const object = asObject(value, path);
  const id = field(object, 'id');
  if (typeof id !== 'string' || id === '') throw invalidField(`${path}.id`, `is required`);
  const contextId = optionalString(object, `${path}.contextId`, 'contextId', 'context_id') ?? '';
  const task: Task = {
    id,
    contextId,
    status: statusFromV1(field(object, 'status'), `${path}.status`),
    history: arrayOf(field(object, 'history'), `${path}.history`).map((m, i) => messageFromV1(m, `${path}.history[${i}]`)),
    artifacts: arrayOf(field(object, 'artifacts'), `${path}.artifacts`).map((a, i) => artifactFromV1(a, `${path}.artifacts[${i}]`)),
  };
  const metadata = field(object, 'metadata');
  if (metadata !== undefined && metadata !== null) task.metadata = asObject(metadata, `${path}.metadata`);
  return task;
}

export function statusFromV1(value: unknown, path: string): TaskStatus {
  const object = asObject(value, path);
  const state = stateFromV1(field(object, 'state'));
  if (state === undefined) throw invalidField(`${path}.state`, `${shown(field(object, 'state'))} is not a 1.0 task state`);
  const status: TaskStatus = { state, timestamp: optionalString(object, `${path}.timestamp`, 'timestamp') ?? '' };
  const message = field(object, 'message', 'update');
  if (message !== undefined && message !== null) status.message = messageFromV1(message, `${path}.message`);
  return status;
}

export function artifactFromV1(value: unknown, path: string): Artifact {
  const object = asObject(value, path);
  const artifactId = optionalString(object, `${path}.artifactId`, 'artifactId', 'artifact_id') ?? '';
  const parts = arrayOf(field(object, 'parts'), `${path}.parts`);
  const artifact: Artifact = { artifactId, parts: parts.map((p, i) => partFromV1(p, `${path}.parts[${i}]`)) };
  const name = optionalString(object, `${path}.name`, 'name');
  if (name) artifact.name = name;
  const description = optionalString(object, `${path}.description`, 'description');
  if (description) artifact.description = description;
  const metadata = field(object, 'metadata');
  if (metadata !== undefined && metadata !== null) artifact.metadata = asObject(metadata, `${path}.metadata`);
  return artifact;
}

/** Reads one StreamResponse (or a SendMessage result, which has the same members). */
export function eventFromV1(value: unknown, path = 'result'): TaskEvent {
  const object = asObject(value, path);
  const task = field(object, 'task');
  if (task !== undefined && task !== null) return { kind: 'task', task: taskFromV1(task, `${path}.task`) };
  const message = field(object, 'message', 'msg');
  if (message !== undefined && message !== null) return { kind: 'message', message: messageFromV1(message, `${path}.message`) };
  const statusUpdate = field(object, 'statusUpdate', 'status_update');
  if (statusUpdate !== undefined && statusUpdate !== null) {
    const update = asObject(statusUpdate, `${path}.statusUpdate`);
    return {
      kind: 'status',
      taskId: requiredText(update, `${path}.statusUpdate.taskId`, 'taskId', 'task_id'),
      contextId: optionalString(update, `${path}.statusUpdate.contextId`, 'contextId', 'context_id') ?? '',
      status: statusFromV1(field(update, 'status'), `${path}.statusUpdate.status`),
    };
  }
  const artifactUpdate = field(object, 'artifactUpdate', 'artifact_update');
  if (artifactUpdate !== undefined && artifactUpdate !== null) {
    const update = asObject(artifactUpdate, `${path}.artifactUpdate`);
    return {
      kind: 'artifact',
      taskId: requiredText(update, `${path}.artifactUpdate.taskId`, 'taskId', 'task_id'),
      contextId: optionalString(update, `${path}.artifactUpdate.contextId`, 'contextId', 'context_id') ?? '',
      artifact: artifactFromV1(field(update, 'artifact'), `${path}.artifactUpdate.artifact`),
      append: field(update, 'append') === true,
      lastChunk: field(update, 'lastChunk', 'last_chunk') === true,
    };
  }
  throw invalidField(`${path}`, `holds none of task, message, statusUpdate, artifactUpdate`);
}

function requiredText(object: Json, path: string, ...names: string[]): string {
  const value = optionalString(object, path, ...names);
  if (value === undefined || value === '') throw invalidField(`${path}`, `is required`);
  return value;
}

function arrayOf(value: unknown, path: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidField(`${path}`, `must be an array`);
  return value;
}
