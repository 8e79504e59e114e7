// What the ledger knows about one task, and the pure rule that applies a protocol message
// to it: who may send what, which state changes are legal, and what counts as a duplicate.

import { createHash } from 'node:crypto';
import { LiteError } from '../errors.js';
import { INITIAL_STATE, isTerminal, isWireState, mayChange, nextStates, type TaskState } from '../protocol/states.js';
import type { Message } from '../protocol/types.js';
import { progressValue } from '../protocol/validate.js';
import { isSecretName, looksLikeSecretValue, redactCredentials } from '../secrets.js';

/** `out`: this agent sent the message; `in`: this agent received it. */
export type Direction = 'in' | 'out';

export interface HistoryEntry {
  at: string;
  direction: Direction;
  type: string;
  params: Record<string, string>;
  body: string;
  attachments: string[];
  /** The task's state after this entry. */
  state: TaskState;
}

/** Everything about a task but its history: what a list shows and what a new message needs. */
export interface TaskSummary {
  id: string;
  /** The other agent: the worker when we asked, the requester when we were asked. */
  peer: string;
  /** Our side of the task. */
  role: 'requester' | 'worker';
  skill?: string;
  priority?: string;
  /** The first line of the task's first message. */
  subject: string;
  state: TaskState;
  progress?: number;
  eta?: string;
  reason?: string;
  /** The body and attachments of the message that ended the task. */
  result?: { text: string; attachments: string[] };
  cancelRequested?: boolean;
  createdAt: string;
  updatedAt: string;
  /** How many messages the history holds. */
  messages: number;
  /** A fingerprint of the last message recorded, to spot the same message recorded twice. */
  last: string;
}

export interface TaskRecord extends TaskSummary {
  history: HistoryEntry[];
}

export interface Applied {
  summary: TaskSummary;
  /** The new history entry; absent for a duplicate. */
  entry?: HistoryEntry;
  change: 'created' | 'updated' | 'duplicate';
  /** The state before the message (undefined for a new task). */
  from?: TaskState;
}

/** The message types that concern a task; others (discover, card, plain) leave the ledger alone. */
export const TASK_MESSAGE_TYPES = ['task', 'status', 'result', 'cancel', 'ack'] as const;

export function isTaskMessage(message: Message): boolean {
  return (TASK_MESSAGE_TYPES as readonly string[]).includes(message.type);
}

/** The task id a message is about: `id=` on a task, `task=` on the others. */
export function taskIdOf(message: Message): string | undefined {
  return message.type === 'task' ? message.params.id : message.params.task;
}

/**
 * Applies `message` to the task summarised by `current` (undefined when the ledger has no
 * such task yet). Returns the new summary and the history entry to append. Throws a LiteError
 * when the message breaks the ledger's rules. The message must already be valid (`validate`).
 */
export function applyMessage(
  current: TaskSummary | undefined,
  received: Message,
  context: { direction: Direction; peer: string; at: string },
): Applied {
  // A credential never reaches the ledger, whoever sent it.
  const message = redactMessage(received);
  const id = taskIdOf(message) as string;
  const { direction, at } = context;
  const print = fingerprint(direction, message);
  if (current === undefined) {
    if (message.type !== 'task') {
      throw new LiteError('TASK_NOT_FOUND', `no task "${id}" with ${context.peer} in the ledger; record its [A2A:task] message first`, { task: id });
    }
    const summary: TaskSummary = {
      id,
      peer: context.peer,
      role: direction === 'out' ? 'requester' : 'worker',
      subject: (message.body.split('\n')[0] ?? '').slice(0, 200),
      state: INITIAL_STATE,
      createdAt: at,
      updatedAt: at,
      messages: 1,
      last: print,
    };
    if (message.params.skill) summary.skill = message.params.skill;
    if (message.params.priority) summary.priority = message.params.priority;
    return { summary, entry: entry(message, direction, at, INITIAL_STATE), change: 'created' };
  }

  // The same message recorded again right after itself (a retry, a second process) is a repeat;
  // an older message sent again is judged like any other (completed → working is refused).
  if (current.last === print) return { summary: current, change: 'duplicate', from: current.state };
  checkSide(current, message, direction);
  const summary: TaskSummary = { ...current, updatedAt: at, messages: current.messages + 1, last: print };
  const from = current.state;

  switch (message.type) {
    case 'task':
    case 'cancel':
      if (isTerminal(from)) {
        const what = message.type === 'cancel' ? 'nothing to cancel' : 'a new request needs a new task id';
        throw new LiteError('TASK_TERMINAL', `task "${summary.id}" is already ${from}; ${what}`, { task: summary.id, state: from });
      }
      if (message.type === 'cancel') {
        summary.cancelRequested = true;
        if (message.params.reason) summary.reason = message.params.reason;
      }
      break;
    case 'status':
    case 'result':
      applyState(summary, message);
      break;
    default:
      // ack: a receipt, recorded in the history only.
      break;
  }
  return { summary, entry: entry(message, direction, at, summary.state), change: 'updated', from };
}

/**
 * `applyMessage` for a whole record held in memory: returns the record with the new entry
 * appended (the same record for a duplicate).
 */
export function applyToRecord(
  current: TaskRecord | undefined,
  message: Message,
  context: { direction: Direction; peer: string; at: string },
): { record: TaskRecord; change: Applied['change']; from?: TaskState } {
  const { history = [], ...summary } = current ?? {};
  const applied = applyMessage(current === undefined ? undefined : (summary as TaskSummary), message, context);
  const record: TaskRecord =
    applied.entry === undefined ? (current as TaskRecord) : { ...applied.summary, history: [...history, applied.entry] };
  return applied.from === undefined ? { record, change: applied.change } : { record, change: applied.change, from: applied.from };
}

function applyState(summary: TaskSummary, message: Message): void {
  const to = message.params.state as string;
  if (!isWireState(to)) throw new LiteError('INVALID_MESSAGE', `state "${to}" is not a task state`);
  if (!mayChange(summary.state, to)) {
    const allowed = nextStates(summary.state);
    const hint = allowed.length === 0 ? 'it has ended and takes no more state changes' : `it can move to ${allowed.join(', ')}`;
    const code = isTerminal(summary.state) ? 'TASK_TERMINAL' : 'ILLEGAL_TRANSITION';
    throw new LiteError(code, `task "${summary.id}" cannot go from ${summary.state} to ${to}: ${hint}`, {
      task: summary.id,
      from: summary.state,
      to,
    });
  }
  summary.state = to;
  const progress = progressValue(message.params.progress);
  if (progress !== undefined) summary.progress = progress;
  if (message.params.eta) summary.eta = message.params.eta;
  if (message.params.reason) summary.reason = message.params.reason;
  if (isTerminal(to)) {
    summary.result = { text: message.body, attachments: [...message.attachments] };
    delete summary.eta;
  }
}

/** Status and result come from the worker; task follow-ups and cancels from the requester. */
function checkSide(summary: TaskSummary, message: Message, direction: Direction): void {
  if (message.type === 'ack') return;
  const fromWorker = message.type === 'status' || message.type === 'result';
  const ours = summary.role === (fromWorker ? 'worker' : 'requester');
  const expected: Direction = ours ? 'out' : 'in';
  if (direction === expected) return;
  const sender = fromWorker ? 'the worker' : 'the requester';
  const who = summary.role === 'requester' ? `we asked ${summary.peer}` : `${summary.peer} asked us`;
  const flag = expected === 'in' ? `--from ${summary.peer}` : `--to ${summary.peer}`;
  throw new LiteError('ROLE_MISMATCH', `a ${message.type} on task "${summary.id}" must come from ${sender} (${who}); record it with ${flag}`, {
    task: summary.id,
  });
}

/** The message with every credential replaced by `[redacted: kind]`. */
export function redactMessage(message: Message): Message {
  const params: Record<string, string> = {};
  for (const [key, value] of Object.entries(message.params)) {
    const safe = isSecretName(key) && looksLikeSecretValue(value) ? `[redacted: a value named "${key}"]` : redactCredentials(value);
    Object.defineProperty(params, key, { value: safe, enumerable: true, writable: true, configurable: true });
  }
  return { type: message.type, params, body: redactCredentials(message.body), attachments: message.attachments.map(redactCredentials) };
}

function fingerprint(direction: Direction, message: Message): string {
  return createHash('sha256')
    .update(JSON.stringify([direction, message.type, Object.entries(message.params), message.body, message.attachments]))
    .digest('base64url')
    .slice(0, 22);
}

function entry(message: Message, direction: Direction, at: string, state: TaskState): HistoryEntry {
  return { at, direction, type: message.type, params: { ...message.params }, body: message.body, attachments: [...message.attachments], state };
}
