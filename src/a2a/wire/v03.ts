// A2A 0.3 JSON-RPC shapes ⇄ the task model. Every object names itself with `kind`, states are
// kebab-case (`canceled` with one l), and incoming messages are checked field by field.

import { isSettled, type TaskState } from '../../protocol/states.js';
import type { Artifact, Part, Task, TaskEvent, TaskMessage, TaskStatus } from '../../model/task.js';
import { asObject, field, invalidField, optionalString, shown, type Json } from './fields.js';

/**
 * The metadata flag the official SDK sets when it wraps a data value that is not an object as
 * `{value: …}`; 0.3 only allows objects in data parts. We wrap and unwrap the same way, so such
 * values survive a trip through an SDK client.
 */
export const DATA_PART_COMPAT_FLAG = 'data_part_compat';

const STATE_TO_V03: Readonly<Record<TaskState, string>> = {
  // 0.3 has no `accepted`: the worker has taken the task but not said more, as with submitted.
  submitted: 'submitted',
  accepted: 'submitted',
  working: 'working',
  'input-required': 'input-required',
  'auth-required': 'auth-required',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'canceled',
  rejected: 'rejected',
};

/** The 0.3 name of a state: kebab-case, `canceled` with one l. */
export function stateToV03(state: TaskState): string {
  return STATE_TO_V03[state];
}

/** A task as 0.3 JSON; `historyLength` keeps only the newest messages (0: none). */
export function taskToV03(task: Task, historyLength?: number): Json {
  const out: Json = { kind: 'task', id: task.id, contextId: task.contextId, status: statusToV03(task.status) };
  const history = historyLength === undefined ? task.history : historyLength === 0 ? [] : task.history.slice(-historyLength);
  if (history.length > 0) out.history = history.map(messageToV03);
  if (task.artifacts.length > 0) out.artifacts = task.artifacts.map(artifactToV03);
  if (task.metadata !== undefined) out.metadata = task.metadata;
  return out;
}

/** A task status as 0.3 JSON. */
export function statusToV03(status: TaskStatus): Json {
  const out: Json = { state: stateToV03(status.state) };
  if (status.message !== undefined) out.message = messageToV03(status.message);
  out.timestamp = status.timestamp;
  return out;
}

/** A message as 0.3 JSON, `kind: "message"` and a plain `user`/`agent` role. */
export function messageToV03(message: TaskMessage): Json {
  const out: Json = { kind: 'message', messageId: message.messageId, role: message.role, parts: message.parts.map(partToV03) };
  if (message.contextId) out.contextId = message.contextId;
  if (message.taskId) out.taskId = message.taskId;
  if (message.metadata !== undefined) out.metadata = message.metadata;
  if (message.referenceTaskIds?.length) out.referenceTaskIds = message.referenceTaskIds;
  return out;
}

/** An artifact as 0.3 JSON; artifacts carry no `kind` in 0.3. */
export function artifactToV03(artifact: Artifact): Json {
  const out: Json = { artifactId: artifact.artifactId };
  if (artifact.name) out.name = artifact.name;
  if (artifact.description) out.description = artifact.description;
  out.parts = artifact.parts.map(partToV03);
  if (artifact.metadata !== undefined) out.metadata = artifact.metadata;
  return out;
}

/** One part as 0.3 JSON. Text and data parts have no media type in 0.3, so theirs is dropped. */
export function partToV03(part: Part): Json {
  let out: Json;
  let metadata = part.metadata;
  if (part.kind === 'text') {
    out = { kind: 'text', text: part.text };
  } else if (part.kind === 'data') {
    const isObject = typeof part.data === 'object' && part.data !== null && !Array.isArray(part.data);
    if (isObject) out = { kind: 'data', data: part.data };
    else {
      out = { kind: 'data', data: { value: part.data === undefined ? null : part.data } };
      metadata = { ...metadata, [DATA_PART_COMPAT_FLAG]: true };
    }
  } else if (part.bytes !== undefined || part.url !== undefined) {
    const file: Json = part.bytes !== undefined ? { bytes: part.bytes } : { uri: part.url };
    if (part.mediaType) file.mimeType = part.mediaType;
    if (part.name) file.name = part.name;
    out = { kind: 'file', file };
  } else {
    // A file known only by name (an attachment line from chat) has no content to send.
    out = { kind: 'text', text: `[attachment: ${part.name ?? 'file'}]` };
  }
  if (metadata !== undefined) out.metadata = metadata;
  return out;
}

/** One stream event as a bare 0.3 object; status updates carry `final` (our streams close on a terminal state and on an interrupted one, where the agent waits for the requester: both are final). */
export function eventToV03(event: TaskEvent): Json {
  switch (event.kind) {
    case 'task':
      return taskToV03(event.task);
    case 'message':
      return messageToV03(event.message);
    case 'status':
      return statusUpdateToV03(event.taskId, event.contextId, event.status);
    case 'artifact':
      return {
        kind: 'artifact-update',
        taskId: event.taskId,
        contextId: event.contextId,
        artifact: artifactToV03(event.artifact),
        append: event.append,
        lastChunk: event.lastChunk,
      };
  }
}

/** A status change as a 0.3 `status-update` event. */
export function statusUpdateToV03(taskId: string, contextId: string, status: TaskStatus): Json {
  return { kind: 'status-update', taskId, contextId, status: statusToV03(status), final: isSettled(status.state) };
}

/**
 * Reads a message a client sent (0.3 JSON). `kind` may be left out, but when present it must be
 * `message`; 0.3 names are camelCase only.
 *
 * @example
 * messageFromV03({ kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hi' }] });
 */
export function messageFromV03(value: unknown, path = 'message'): TaskMessage {
  const object = asObject(value, path);
  expectKind(object, path, 'message');
  const messageId = field(object, 'messageId');
  if (typeof messageId !== 'string' || messageId === '') throw invalidField(`${path}.messageId`, `is required`);
  const role = field(object, 'role');
  if (role !== 'user' && role !== 'agent') throw invalidField(`${path}.role`, `must be "user" or "agent"`);
  const parts = field(object, 'parts');
  if (!Array.isArray(parts) || parts.length === 0) throw invalidField(`${path}.parts`, `must be a non-empty array`);
  const message: TaskMessage = { messageId, role, parts: parts.map((part, i) => partFromV03(part, `${path}.parts[${i}]`)) };
  const contextId = optionalString(object, `${path}.contextId`, 'contextId');
  if (contextId) message.contextId = contextId;
  const taskId = optionalString(object, `${path}.taskId`, 'taskId');
  if (taskId) message.taskId = taskId;
  const metadata = metadataOf(object, `${path}.metadata`);
  if (metadata) message.metadata = metadata;
  const references = field(object, 'referenceTaskIds');
  if (references !== undefined && references !== null) {
    if (!Array.isArray(references) || !references.every((r) => typeof r === 'string')) {
      throw invalidField(`${path}.referenceTaskIds`, `must be an array of strings`);
    }
    if (references.length > 0) message.referenceTaskIds = references as string[];
  }
  return message;
}

function partFromV03(value: unknown, path: string): Part {
  const object = asObject(value, path);
  const metadata = metadataOf(object, `${path}.metadata`);
  let part: Part;
  switch (object.kind) {
    case 'text':
      if (typeof object.text !== 'string') throw invalidField(`${path}.text`, `must be a string`);
      part = { kind: 'text', text: object.text };
      break;
    case 'data': {
      const data = asObject(object.data, `${path}.data`);
      if (metadata?.[DATA_PART_COMPAT_FLAG] === true) {
        // The SDK's wrapper around a value that is not an object: unwrap it and drop the flag.
        const { [DATA_PART_COMPAT_FLAG]: _flag, ...rest } = metadata;
        part = { kind: 'data', data: 'value' in data ? data.value : data };
        if (Object.keys(rest).length > 0) part.metadata = rest;
        return part;
      }
      part = { kind: 'data', data };
      break;
    }
    case 'file':
      part = fileFromV03(object.file, `${path}.file`);
      break;
    default:
      throw invalidField(`${path}.kind`, `must be "text", "file" or "data"`);
  }
  if (metadata) part.metadata = metadata;
  return part;
}

function fileFromV03(value: unknown, path: string): Part {
  const file = asObject(value, path);
  const hasBytes = file.bytes !== undefined && file.bytes !== null;
  const hasUri = file.uri !== undefined && file.uri !== null;
  if (hasBytes === hasUri) throw invalidField(`${path}`, `must hold exactly one of bytes, uri`);
  const part: Extract<Part, { kind: 'file' }> = { kind: 'file' };
  if (hasBytes) {
    if (typeof file.bytes !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(file.bytes)) throw invalidField(`${path}.bytes`, `must be base64`);
    // Normalized to the standard alphabet, as the task model keeps it.
    part.bytes = Buffer.from(file.bytes, 'base64').toString('base64');
  } else {
    if (typeof file.uri !== 'string' || file.uri === '') throw invalidField(`${path}.uri`, `must be a non-empty string`);
    part.url = file.uri;
  }
  const mimeType = optionalString(file, `${path}.mimeType`, 'mimeType');
  if (mimeType) part.mediaType = mimeType;
  const name = optionalString(file, `${path}.name`, 'name');
  if (name) part.name = name;
  return part;
}

function expectKind(object: Json, path: string, kind: string): void {
  if (object.kind !== undefined && object.kind !== kind) throw invalidField(`${path}.kind`, `must be "${kind}"`);
}

function metadataOf(object: Json, path: string): Json | undefined {
  const value = object.metadata;
  return value === undefined || value === null ? undefined : asObject(value, path);
}

// What a client reads back from a 0.3 agent.

const STATE_FROM_V03: Readonly<Record<string, TaskState>> = {
  submitted: 'submitted',
  working: 'working',
  'input-required': 'input-required',
  'auth-required': 'auth-required',
  completed: 'completed',
  failed: 'failed',
  canceled: 'cancelled',
  cancelled: 'cancelled',
  rejected: 'rejected',
};

/** Reads a task an agent returned (0.3 JSON). */
export function taskFromV03(value: unknown, path = 'task'): Task {
  const object = asObject(value, path);
  expectKind(object, path, 'task');
  const id = field(object, 'id');
  if (typeof id !== 'string' || id === '') throw invalidField(`${path}.id`, `is required`);
  const task: Task = {
    id,
    contextId: optionalString(object, `${path}.contextId`, 'contextId') ?? '',
    status: statusFromV03(object.status, `${path}.status`),
    history: listOf(object.history, `${path}.history`).map((m, i) => messageFromV03(m, `${path}.history[${i}]`)),
    artifacts: listOf(object.artifacts, `${path}.artifacts`).map((a, i) => artifactFromV03(a, `${path}.artifacts[${i}]`)),
  };
  const metadata = metadataOf(object, `${path}.metadata`);
  if (metadata) task.metadata = metadata;
  return task;
}

function statusFromV03(value: unknown, path: string): TaskStatus {
  const object = asObject(value, path);
  // Own keys only, so that `__proto__` or `constructor` are not taken for states.
  const state = typeof object.state === 'string' && Object.hasOwn(STATE_FROM_V03, object.state) ? STATE_FROM_V03[object.state] : undefined;
  if (state === undefined) throw invalidField(`${path}.state`, `${shown(object.state)} is not a 0.3 task state`);
  const status: TaskStatus = { state, timestamp: optionalString(object, `${path}.timestamp`, 'timestamp') ?? '' };
  if (object.message !== undefined && object.message !== null) status.message = messageFromV03(object.message, `${path}.message`);
  return status;
}

function artifactFromV03(value: unknown, path: string): Artifact {
  const object = asObject(value, path);
  const artifact: Artifact = {
    artifactId: optionalString(object, `${path}.artifactId`, 'artifactId') ?? '',
    parts: listOf(object.parts, `${path}.parts`).map((p, i) => partFromV03(p, `${path}.parts[${i}]`)),
  };
  const name = optionalString(object, `${path}.name`, 'name');
  if (name) artifact.name = name;
  const description = optionalString(object, `${path}.description`, 'description');
  if (description) artifact.description = description;
  const metadata = metadataOf(object, `${path}.metadata`);
  if (metadata) artifact.metadata = metadata;
  return artifact;
}

/** Reads one event of a 0.3 stream, or a message/send result: a task, a message or an update. */
export function eventFromV03(value: unknown, path = 'result'): TaskEvent {
  const object = asObject(value, path);
  switch (object.kind) {
    case 'task':
      return { kind: 'task', task: taskFromV03(object, path) };
    case 'message':
      return { kind: 'message', message: messageFromV03(object, path) };
    case 'status-update':
      return {
        kind: 'status',
        taskId: requiredId(object, `${path}.taskId`),
        contextId: optionalString(object, `${path}.contextId`, 'contextId') ?? '',
        status: statusFromV03(object.status, `${path}.status`),
      };
    case 'artifact-update':
      return {
        kind: 'artifact',
        taskId: requiredId(object, `${path}.taskId`),
        contextId: optionalString(object, `${path}.contextId`, 'contextId') ?? '',
        artifact: artifactFromV03(object.artifact, `${path}.artifact`),
        append: object.append === true,
        lastChunk: object.lastChunk === true,
      };
    default:
      throw invalidField(`${path}.kind`, `${shown(object.kind)} is none of task, message, status-update, artifact-update`);
  }
}

function requiredId(object: Json, path: string): string {
  const value = object.taskId;
  if (typeof value !== 'string' || value === '') throw invalidField(`${path}`, `is required`);
  return value;
}

function listOf(value: unknown, path: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidField(`${path}`, `must be an array`);
  return value;
}
