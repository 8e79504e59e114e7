// A requester's message, checked, and the agent's answer to it without a task: A2A lets an agent
// answer SendMessage with a Message instead of a Task (§3.1.1), for a question it can answer at
// once. `onMessage` decides; when it gives nothing back, the message starts a task as usual.

import { LiteError } from '../errors.js';
import { jsonDepth } from '../json-depth.js';
import { textOf, type Part, type TaskMessage } from '../model/task.js';
import { resultParts, type ResultFile } from './task-context.js';

/** Messages nest no deeper than this; deeper input is refused before anything copies it. */
export const MAX_MESSAGE_DEPTH = 64;
/** A message carries at most this many parts: each may become a file the agent saves. */
export const MAX_MESSAGE_PARTS = 1000;

/** The answer of `onMessage` to a new message, or undefined when it gives none (or there is none). */
export async function directAnswer(onMessage: ((message: IncomingMessage) => DirectReply | undefined | Promise<DirectReply | undefined>) | undefined, message: TaskMessage, newId: () => string): Promise<TaskMessage | undefined> {
  if (onMessage === undefined || message.taskId) return undefined;
  checkRequesterMessage(message);
  const reply = await onMessage(incomingMessage(message));
  return reply === undefined ? undefined : directMessage(reply, message, newId);
}

/** What `onMessage` is given: a new message that names no task. */
export interface IncomingMessage {
  text: string;
  files: Extract<Part, { kind: 'file' }>[];
  message: TaskMessage;
}

/** An answer without a task: words, or words with data and files. */
export type DirectReply = string | { text?: string; data?: unknown; files?: ResultFile[] };

/** Refuses a message no agent should take: not the requester's, empty, too many parts, or nested too deep. */
export function checkRequesterMessage(message: TaskMessage): void {
  if (message.role !== 'user') throw new LiteError('INVALID_PARAMS', 'a message to an agent has role "user"');
  if (message.parts.length === 0) throw new LiteError('INVALID_PARAMS', 'a message needs at least one part');
  if (message.parts.length > MAX_MESSAGE_PARTS) {
    throw new LiteError('INVALID_PARAMS', `a message may carry at most ${MAX_MESSAGE_PARTS} parts; this one has ${message.parts.length}`);
  }
  if (jsonDepth(message, MAX_MESSAGE_DEPTH) > MAX_MESSAGE_DEPTH) {
    throw new LiteError('INVALID_PARAMS', `the message nests deeper than ${MAX_MESSAGE_DEPTH} levels`);
  }
}

/** The agent's message for `reply`, in the requester's context (a new one when it named none). */
export function directMessage(reply: DirectReply, to: TaskMessage, newId: () => string): TaskMessage {
  const parts = resultParts(typeof reply === 'string' ? { text: reply } : reply);
  if (parts.length === 0) throw new LiteError('INTERNAL', 'onMessage answered with an empty message');
  return { messageId: newId(), role: 'agent', parts, contextId: to.contextId || newId() };
}

/** What `onMessage` receives for `message`. */
export function incomingMessage(message: TaskMessage): IncomingMessage {
  return { text: textOf(message), files: message.parts.filter((p): p is Extract<Part, { kind: 'file' }> => p.kind === 'file'), message };
}
