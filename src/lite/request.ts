// A lite task message as the runtime request it starts: the body as text, the attachments as
// named files, and the lite facts (the requester's task id, who sent it, its priority) in the
// message's metadata, so that a stored task says which lite task it served. And the other way:
// the lite facts of a request whose text opens with a task header, as an A2A peer sends it.

import { randomUUID } from 'node:crypto';
import type { Part, TaskMessage } from '../model/task.js';
import { parseAll } from '../protocol/parse.js';
import type { ParsedMessage } from '../protocol/types.js';
import { isValid, validate } from '../protocol/validate.js';

/** The runtime request for a lite task message: its body as text, its attachments as named files. */
export function requestOf(message: ParsedMessage, id: string, from: string): TaskMessage {
  const parts: Part[] = [];
  if (message.body !== '' || message.attachments.length === 0) parts.push({ kind: 'text', text: message.body });
  for (const name of message.attachments) parts.push({ kind: 'file', name });
  const lite: Record<string, string> = { taskId: id, from };
  if (message.params.priority) lite.priority = message.params.priority;
  return { messageId: randomUUID(), role: 'user', parts, metadata: { a2aLite: lite } };
}

/** What a task header that opens a request's text says, and the text after it. */
export interface LiftedTask {
  /** The task id the requester chose. */
  id: string;
  skill?: string;
  priority?: string;
  body: string;
}

/**
 * The lite facts of a request whose text opens with a valid `[A2A:task …]` header, as an agent
 * that speaks A2A-Lite sends it over A2A; undefined for any other text, which is then taken
 * word for word.
 *
 * @example
 * liftTaskHeader('[A2A:task id=research-002 skill=research]\nAI agents, last week');
 * // { id: 'research-002', skill: 'research', body: 'AI agents, last week' }
 */
export function liftTaskHeader(text: string): LiftedTask | undefined {
  const [first] = parseAll(text);
  if (first === undefined || first.type !== 'task' || !isValid(validate(first))) return undefined;
  const lifted: LiftedTask = { id: first.params.id as string, body: first.body };
  if (first.params.skill) lifted.skill = first.params.skill;
  if (first.params.priority) lifted.priority = first.params.priority;
  return lifted;
}
