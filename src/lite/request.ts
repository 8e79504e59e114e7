// A lite task message as the runtime request it starts: the body as text, the attachments as
// named files, and the lite facts (the requester's task id, who sent it, its priority) in the
// message's metadata, so that a stored task says which lite task it served.

import { randomUUID } from 'node:crypto';
import type { Part, TaskMessage } from '../model/task.js';
import type { ParsedMessage } from '../protocol/types.js';

/** The runtime request for a lite task message: its body as text, its attachments as named files. */
export function requestOf(message: ParsedMessage, id: string, from: string): TaskMessage {
  const parts: Part[] = [];
  if (message.body !== '' || message.attachments.length === 0) parts.push({ kind: 'text', text: message.body });
  for (const name of message.attachments) parts.push({ kind: 'file', name });
  const lite: Record<string, string> = { taskId: id, from };
  if (message.params.priority) lite.priority = message.params.priority;
  return { messageId: randomUUID(), role: 'user', parts, metadata: { a2aLite: lite } };
}
