// What a handler sees of its task: the request it receives (`IncomingTask`), the context it
// reports through (`TaskContext`), and the agent messages and artifact parts those reports make.
// The agent applies each report (see agent.ts); this module only shapes and guards them.

import type { Context } from '@opentelemetry/api';
import { LiteError } from '../errors.js';
import { isTerminal, type WireState } from '../protocol/states.js';
import type { LiveTask } from './live-task.js';
import { textOf, type Artifact, type Part, type Task, type TaskMessage } from '../model/task.js';

/** What a handler receives about a new task. */
export interface IncomingTask {
  id: string;
  contextId: string;
  /** The skill asked for (`skill` in the message metadata, or the lite `skill=` param). */
  skill?: string;
  /** The text of the request. */
  text: string;
  /** Files sent with the request. */
  files: Extract<Part, { kind: 'file' }>[];
  message: TaskMessage;
  /** Who asked, when known (a lite peer id). */
  from?: string;
}

/** A file in a result: inline bytes, or a URL the peer can fetch. */
export interface ResultFile {
  name: string;
  mediaType?: string;
  bytes?: Uint8Array;
  url?: string;
}

export interface TaskContext {
  readonly taskId: string;
  readonly contextId: string;
  /** Fires when the task is cancelled; stop work and return. */
  readonly signal: AbortSignal;
  /**
   * The trace context of the request that started the task or sent its latest reply (its
   * server span), while tracing is on: give it as the parent of spans the handler makes.
   */
  readonly trace: Context | undefined;
  /** Reports a non-final state, with the agent's words, a 0–100 progress and an eta. */
  status(state: Exclude<WireState, 'completed' | 'failed' | 'cancelled' | 'rejected'>, options?: StatusOptions): Promise<void>;
  /**
   * Asks the requester a question (input-required) and resolves with their reply. With `state:
   * 'auth-required'` the question is a request for credentials (A2A's AUTH_REQUIRED), which the
   * requester's reply answers the same way.
   */
  ask(question: string, options?: { state?: 'input-required' | 'auth-required' }): Promise<TaskMessage>;
  /**
   * Sends an artifact while the task works (any number of them), or a chunk of one: give the id
   * the first chunk returned and `append: true` for each next, and `lastChunk: true` on the last.
   * Resolves with the artifact's id once it is saved.
   */
  artifact(content: ArtifactContent & { id?: string; append?: boolean; lastChunk?: boolean }): Promise<string>;
  /**
   * Ends the task as completed, with its result as an artifact (named `result` unless `name`
   * says otherwise), and `message` as the words of the final status, for clients that read only
   * the status. Without `message`, a text of at most 2,000 characters is said there too;
   * `message: ''` says nothing.
   */
  complete(result?: ArtifactContent & { message?: string }): Promise<void>;
  fail(reason: string): Promise<void>;
  reject(reason: string): Promise<void>;
}

/** What an artifact holds: text, files and data, each optional. */
export interface ArtifactContent {
  text?: string;
  files?: ResultFile[];
  data?: unknown;
  name?: string;
}

/** How an artifact event relates to the artifact: more parts of one already sent, the last of it. */
export interface ArtifactChunk {
  append?: boolean;
  lastChunk?: boolean;
}

export interface StatusOptions {
  message?: string;
  progress?: number;
  eta?: string;
}

/** The agent's side of a task context: the only ways a handler changes its task. */
export interface TaskActions {
  newId(): string;
  /** Moves the task to `state`, or throws ILLEGAL_TRANSITION; tells everyone and saves. */
  setStatus(live: LiveTask, state: WireState, message?: TaskMessage): void;
  /** Adds an artifact to the task (or, with `append`, parts to one it has) and tells everyone. */
  addArtifact(live: LiveTask, artifact: Artifact, chunk?: ArtifactChunk): void;
}

/** What the handler of a new task receives, from the first message of the task. */
export function incomingTask(first: TaskMessage & { taskId: string; contextId: string }, from?: string, skill?: string): IncomingTask {
  const incoming: IncomingTask = {
    id: first.taskId,
    contextId: first.contextId,
    text: textOf(first),
    files: first.parts.filter((p): p is Extract<Part, { kind: 'file' }> => p.kind === 'file'),
    message: first,
  };
  const asked = skill ?? (typeof first.metadata?.skill === 'string' ? first.metadata.skill : undefined);
  if (asked !== undefined) incoming.skill = asked;
  if (from !== undefined) incoming.from = from;
  return incoming;
}

/** The context a handler reports through; every report waits until its state is saved. */
export function taskContext(live: LiveTask, actions: TaskActions): TaskContext {
  const { task } = live;
  const guard = (): void => {
    if (isTerminal(live.task.status.state)) {
      throw new LiteError('TASK_TERMINAL', `task "${task.id}" is already ${live.task.status.state}`, { task: task.id });
    }
  };
  return {
    taskId: task.id,
    contextId: task.contextId,
    // Made on first use: most handlers never look at it.
    get signal() {
      return live.abort.signal;
    },
    get trace() {
      return live.trace;
    },
    status: async (state, options = {}) => {
      guard();
      const words = options.message ?? '';
      const message = words === '' && options.progress === undefined && options.eta === undefined ? undefined : agentMessage(task, words, actions.newId(), options);
      actions.setStatus(live, state, message);
      await live.saving;
    },
    ask: async (question, options = {}) => {
      guard();
      const answer = new Promise<TaskMessage>((resolve, reject) => (live.reply = { resolve, reject }));
      actions.setStatus(live, options.state ?? 'input-required', agentMessage(task, question, actions.newId()));
      return answer;
    },
    artifact: async (content) => {
      guard();
      const parts = resultParts(content);
      if (parts.length === 0) throw new LiteError('INVALID_PARAMS', 'an artifact needs text, a file or data');
      if (content.append === true && content.id === undefined) throw new LiteError('INVALID_PARAMS', 'a chunk to append names the artifact it belongs to (id)');
      const artifactId = content.id ?? actions.newId();
      const artifact: Artifact = { artifactId, parts };
      if (content.name !== undefined) artifact.name = content.name;
      actions.addArtifact(live, artifact, { append: content.append === true, lastChunk: content.lastChunk ?? content.append !== true });
      await live.saving;
      return artifactId;
    },
    complete: async (result = {}) => {
      guard();
      const parts = resultParts(result);
      if (parts.length > 0) actions.addArtifact(live, { artifactId: actions.newId(), name: result.name ?? 'result', parts });
      const words = result.message ?? finalWords(result.text);
      actions.setStatus(live, 'completed', words === '' ? undefined : agentMessage(task, words, actions.newId()));
      await live.saving;
    },
    fail: async (reason) => {
      guard();
      actions.setStatus(live, 'failed', agentMessage(task, reason, actions.newId()));
      await live.saving;
    },
    reject: async (reason) => {
      guard();
      actions.setStatus(live, 'rejected', agentMessage(task, reason, actions.newId()));
      await live.saving;
    },
  };
}

/** A result text this long or shorter is also the final status message's, unless told otherwise (about one chat message). */
export const FINAL_WORDS_LIMIT = 2000;

/**
 * The words of the final status when the handler gives none: the result's text when it is short,
 * so that a client that reads only the status sees the answer; a long text stays in the artifact
 * alone rather than travel twice in every copy of the task.
 */
function finalWords(text: string | undefined): string {
  return text !== undefined && text.length <= FINAL_WORDS_LIMIT ? text : '';
}

/**
 * Ends a running task as `state` with the agent's `words` (cancel, shutdown, retention), fires its
 * handler's signal and fails the `ask` it may wait in, with `reason`.
 */
export function endTask(live: LiveTask, actions: TaskActions, state: 'failed' | 'cancelled', words: string, reason: string): void {
  actions.setStatus(live, state, agentMessage(live.task, words, actions.newId()));
  live.stop(new LiteError('TASK_TERMINAL', reason, { task: live.task.id }));
}

/** The agent's words in a task, with a progress and an eta in its metadata when given. */
export function agentMessage(task: Task, text: string, messageId: string, options: StatusOptions = {}): TaskMessage {
  const message: TaskMessage = { messageId, role: 'agent', parts: [{ kind: 'text', text }], taskId: task.id, contextId: task.contextId };
  if (options.progress !== undefined || options.eta !== undefined) {
    const progress: Record<string, unknown> = {};
    if (options.progress !== undefined) progress.progress = options.progress;
    if (options.eta !== undefined) progress.eta = options.eta;
    message.metadata = { a2aLite: progress };
  }
  return message;
}

/** The parts of a result or an artifact: its text, its files, then its data. */
export function resultParts(result: { text?: string; files?: ResultFile[]; data?: unknown }): Part[] {
  const parts: Part[] = [];
  if (result.text !== undefined && result.text !== '') parts.push({ kind: 'text', text: result.text });
  for (const file of result.files ?? []) {
    const part: Part = { kind: 'file', name: file.name };
    if (file.mediaType) part.mediaType = file.mediaType;
    if (file.bytes) part.bytes = Buffer.from(file.bytes).toString('base64');
    if (file.url) part.url = file.url;
    parts.push(part);
  }
  if (result.data !== undefined) parts.push({ kind: 'data', data: result.data });
  return parts;
}
