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

/** What a stream or a subscriber sees, in the order it happened. */
export type TaskEvent =
  | { kind: 'task'; task: Task }
  | { kind: 'message'; message: TaskMessage }
  | { kind: 'status'; taskId: string; contextId: string; status: TaskStatus }
  | { kind: 'artifact'; taskId: string; contextId: string; artifact: Artifact; append: boolean; lastChunk: boolean };

/** The text of a message's text parts, joined by blank lines. */
export function textOf(message: TaskMessage | undefined): string {
  if (message === undefined) return '';
  return message.parts
    .filter((p): p is Extract<Part, { kind: 'text' }> => p.kind === 'text')
    .map((p) => p.text)
    .join('\n\n');
}

/**
 * A copy that shares nothing mutable with the original, for handing out snapshots. Tasks are
 * wire JSON, and a JSON round trip copies them faster than structuredClone.
 */
export function cloneTask(task: Task): Task {
  return JSON.parse(JSON.stringify(task)) as Task;
}
