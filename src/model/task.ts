// The task as the runtime and the stores hold it: one neutral shape that the A2A 1.0 and 0.3
// wire formats and the A2A-Lite text all map to. States are A2A-Lite's (protocol/states.ts).

import type { TaskState } from '../protocol/states.js';

export type Role = 'user' | 'agent';

/** One piece of content: text, a file (inline bytes or a URL), or structured data. */
export type Part =
  | { kind: 'text'; text: string; mediaType?: string; metadata?: Record<string, unknown> }
  | { kind: 'file'; name?: string; mediaType?: string; bytes?: string; url?: string; metadata?: Record<string, unknown> }
  | { kind: 'data'; data: unknown; mediaType?: string; metadata?: Record<string, unknown> };

/** One turn of the conversation about a task. `bytes` of file parts are base64. */
export interface TaskMessage {
  messageId: string;
  role: Role;
  parts: Part[];
  contextId?: string;
  taskId?: string;
  metadata?: Record<string, unknown>;
  referenceTaskIds?: string[];
}

export interface Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: Part[];
  metadata?: Record<string, unknown>;
}

export interface TaskStatus {
  state: TaskState;
  /** The agent's words with the state: a question, a progress note, a reason for failing. */
  message?: TaskMessage;
  timestamp: string;
}

export interface Task {
  id: string;
  contextId: string;
  status: TaskStatus;
  history: TaskMessage[];
  artifacts: Artifact[];
  metadata?: Record<string, unknown>;
}

/**
 * What a stream or a subscriber sees, in the order it happened. A serving agent numbers the
 * status and artifact events of each task 1, 2, 3 … (`seq`), so that a client cut off can ask
 * for what came after the last one it saw; a task snapshot carries the number of the last event
 * it includes, and `gap` when it stands in for events that are no longer kept.
 */
export type TaskEvent =
  | { kind: 'task'; task: Task; seq?: number; gap?: boolean }
  | { kind: 'message'; message: TaskMessage }
  | { kind: 'status'; taskId: string; contextId: string; status: TaskStatus; seq?: number }
  | { kind: 'artifact'; taskId: string; contextId: string; artifact: Artifact; append: boolean; lastChunk: boolean; seq?: number };

/** The events a task's log keeps: its changes, numbered. */
export type TaskChange = Extract<TaskEvent, { kind: 'status' | 'artifact' }>;

/** The text of a message's text parts, joined by blank lines. */
export function textOf(message: TaskMessage | undefined): string {
  if (message === undefined) return '';
  return message.parts
    .filter((p): p is Extract<Part, { kind: 'text' }> => p.kind === 'text')
    .map((p) => p.text)
    .join('\n\n');
}

/**
 * A copy that shares nothing mutable with the original, for handing out snapshots: exactly what
 * a JSON round trip gives (tasks are wire JSON), made by walking the task, which is several
 * times faster and leaves no text behind. Anything a plain walk could get wrong (a `toJSON`, a
 * class instance, a `__proto__` key, a bigint, deep nesting, a cycle) takes the round trip.
 */
export function cloneTask(task: Task): Task {
  try {
    return copyJson(task, 0) as Task;
  } catch (error) {
    if (error !== NOT_PLAIN) throw error;
  }
  return JSON.parse(JSON.stringify(task)) as Task;
}

/** Thrown by `copyJson` for a value it leaves to JSON. */
const NOT_PLAIN = new Error('not plain JSON');
/** Deeper than this, the round trip decides (it reports a cycle as JSON does). */
const MAX_COPY_DEPTH = 256;

/** The value as `JSON.parse(JSON.stringify(value))` gives it, for plain objects and arrays. */
function copyJson(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      // -0 and non-finite numbers are written as 0 and null.
      return Number.isFinite(value) ? value + 0 : null;
    case 'object':
      break;
    default:
      throw NOT_PLAIN;
  }
  if (value === null) return null;
  if (depth > MAX_COPY_DEPTH) throw NOT_PLAIN;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i += 1) {
      const item: unknown = value[i];
      out[i] = item === undefined || typeof item === 'function' || typeof item === 'symbol' ? null : copyJson(item, depth + 1);
    }
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if ((proto !== Object.prototype && proto !== null) || typeof (value as { toJSON?: unknown }).toJSON === 'function') throw NOT_PLAIN;
  const out: Record<string, unknown> = {};
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (key === '__proto__') throw NOT_PLAIN;
    const item: unknown = (value as Record<string, unknown>)[key];
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    out[key] = copyJson(item, depth + 1);
  }
  return out;
}
