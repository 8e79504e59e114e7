// A relayed answer or stream event said as A2A-Lite text, for the console's transcript: the task
// the requester sent, each status with its progress, and the result with its files named. The
// words come from lite/task-text.ts, the one place a task becomes lite text.

import { eventFromV03, taskFromV03 } from '../a2a/wire/v03.js';
import { eventFromV1, taskFromV1 } from '../a2a/wire/v1.js';
import type { Task, TaskEvent } from '../model/task.js';
import { format } from '../protocol/format.js';
import { isTerminal } from '../protocol/states.js';
import { fileNames, resultMessage, statusMessage, wordsOf } from '../lite/task-text.js';

/** `value` as a JSON object, or undefined when it is none (null, an array, a scalar). */
export const object = (value: unknown): Record<string, unknown> | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined);

/** The JSON value of a relayed answer or stream event; undefined for text that is not JSON (the client gets it as it was). */
export function answerValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The lite text of `value` (a JSON-RPC response, or a REST body: a stream event, a send's answer
 * or a task), or undefined when it holds no one task event (an error, a list, a card).
 *
 * @example
 * liteTextOf({ jsonrpc: '2.0', id: 1, result: { statusUpdate: { taskId: 't1', status: { state: 'TASK_STATE_WORKING' } } } })
 * // '[A2A:status task=t1 state=working]'
 */
export function liteTextOf(value: unknown): string | undefined {
  const event = eventOf(value);
  if (event === undefined) return undefined;
  switch (event.kind) {
    case 'task':
      return taskText(event.task);
    case 'status':
      // An ending said as the result; its artifacts came before it, each in an event of its own.
      return format(isTerminal(event.status.state) ? resultMessage(event.taskId, event.status, [], []) : statusMessage(event.taskId, event.status));
    case 'message':
      return format({ type: 'result', params: event.message.taskId ? { task: event.message.taskId } : {}, body: wordsOf(event.message), attachments: [] });
    case 'artifact':
      return undefined; // said with the result, whole, once the task ends
  }
}

function eventOf(value: unknown): TaskEvent | undefined {
  const top = object(value);
  if (top === undefined || top.error !== undefined) return undefined;
  const result = object(top.result) ?? top;
  try {
    if (typeof result.kind === 'string') return eventFromV03(result);
    if (result.task !== undefined || result.message !== undefined || result.statusUpdate !== undefined || result.artifactUpdate !== undefined) return eventFromV1(result);
    // A task on its own: REST GetTask (1.0), or a 0.3 answer whose kind was left out.
    if (typeof result.id === 'string' && object(result.status) !== undefined) {
      const state = object(result.status)?.state;
      return { kind: 'task', task: typeof state === 'string' && state.startsWith('TASK_STATE_') ? taskFromV1(result) : taskFromV03(result) };
    }
  } catch {
    // Not an event this page can say in lite words; the raw event still shows it.
  }
  return undefined;
}

/** What the requester asked (the task's first message), then where the task stands. */
function taskText(task: Task): string {
  const lines: string[] = [];
  const asked = task.history?.find((message) => message.role === 'user');
  if (asked !== undefined) lines.push(format({ type: 'task', params: { id: task.id }, body: wordsOf(asked), attachments: [] }));
  lines.push(
    isTerminal(task.status.state)
      ? format(resultMessage(task.id, task.status, task.artifacts ?? [], fileNames(task.artifacts ?? [])))
      : format(statusMessage(task.id, task.status)),
  );
  return lines.join('\n\n');
}
