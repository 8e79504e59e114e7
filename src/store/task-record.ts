// What the ledger knows about one task, and the pure rule that applies a protocol message
// to it: who may send what, which state changes are legal, and what counts as a duplicate.

import { LiteError } from '../errors.js';
import { INITIAL_STATE, isTerminal, isWireState, nextStates, transition, type TaskState } from '../protocol/states.js';
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

export interface TaskRecord {
  id: string;
  /** The other agent: the worker when we asked, the requester when we were asked. */
  peer: string;
  /** Our side of the task. */
  role: 'requester' | 'worker';
  skill?: string;
  priority?: string;
  state: TaskState;
  progress?: number;
  eta?: string;
  reason?: string;
  /** The body and attachments of the message that ended the task. */
  result?: { text: string; attachments: string[] };
  cancelRequested?: boolean;
  createdAt: string;
  updatedAt: string;
  history: HistoryEntry[];
}

export interface Applied {
  record: TaskRecord;
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
 * Applies `message` to `current` (undefined when the ledger has no such task yet) and
 * returns the new record. Throws a LiteError when the message breaks the ledger's rules.
 * The message must already be valid (see `validate`).
 */
export function applyMessage(
  current: TaskRecord | undefined,
  received: Message,
  context: { direction: Direction; peer: string; at: string },
): Applied {
  // A credential never reaches the ledger, whoever sent it.
  const message = redactMessage(received);
  const id = taskIdOf(message) as string;
  const { direction, at } = context;
  if (current === undefined) {
    if (message.type !== 'task') {
      throw new LiteError('TASK_NOT_FOUND', `no task "${id}" with ${context.peer} in the ledger; record its [A2A:task] message first`, { task: id });
    }
    const record: TaskRecord = {
      id,
      peer: context.peer,
      role: direction === 'out' ? 'requester' : 'worker',
      state: INITIAL_STATE,
      createdAt: at,
      updatedAt: at,
      history: [],
    };
    if (message.params.skill) record.skill = message.params.skill;
    if (message.params.priority) record.priority = message.params.priority;
    record.history.push(entry(message, direction, at, INITIAL_STATE));
    return { record, change: 'created' };
  }

  if (isDuplicate(current, message, direction)) return { record: current, change: 'duplicate', from: current.state };
  checkSide(current, message, direction);
  const record: TaskRecord = { ...current, history: [...current.history], updatedAt: at };
  const from = current.state;

  switch (message.type) {
    case 'task':
    case 'cancel':
      if (isTerminal(from)) {
        const what = message.type === 'cancel' ? 'nothing to cancel' : 'a new request needs a new task id';
        throw new LiteError('TASK_TERMINAL', `task "${record.id}" is already ${from}; ${what}`, { task: record.id, state: from });
      }
      if (message.type === 'cancel') {
        record.cancelRequested = true;
        if (message.params.reason) record.reason = message.params.reason;
      }
      break;
    case 'status':
    case 'result':
      applyState(record, message);
      break;
    default:
      // ack: a receipt, recorded in the history only.
      break;
  }
  record.history.push(entry(message, direction, at, record.state));
  return { record, change: 'updated', from };
}

function applyState(record: TaskRecord, message: Message): void {
  const to = message.params.state as string;
  if (!isWireState(to)) throw new LiteError('INVALID_MESSAGE', `state "${to}" is not a task state`);
  const kind = transition(record.state, to);
  if (kind === 'illegal' || (kind === 'repeat' && isTerminal(to))) {
    const allowed = nextStates(record.state);
    const hint = allowed.length === 0 ? 'it has ended and takes no more state changes' : `it can move to ${allowed.join(', ')}`;
    const code = isTerminal(record.state) ? 'TASK_TERMINAL' : 'ILLEGAL_TRANSITION';
    throw new LiteError(code, `task "${record.id}" cannot go from ${record.state} to ${to}: ${hint}`, {
      task: record.id,
      from: record.state,
      to,
    });
  }
  record.state = to;
  const progress = progressValue(message.params.progress);
  if (progress !== undefined) record.progress = progress;
  if (message.params.eta) record.eta = message.params.eta;
  if (message.params.reason) record.reason = message.params.reason;
  if (isTerminal(to)) {
    record.result = { text: message.body, attachments: [...message.attachments] };
    delete record.eta;
  }
}

/** Status and result come from the worker; task follow-ups and cancels from the requester. */
function checkSide(record: TaskRecord, message: Message, direction: Direction): void {
  if (message.type === 'ack') return;
  const fromWorker = message.type === 'status' || message.type === 'result';
  const ours = record.role === (fromWorker ? 'worker' : 'requester');
  const expected: Direction = ours ? 'out' : 'in';
  if (direction === expected) return;
  const sender = fromWorker ? 'the worker' : 'the requester';
  const who = record.role === 'requester' ? `we asked ${record.peer}` : `${record.peer} asked us`;
  const flag = expected === 'in' ? `--from ${record.peer}` : `--to ${record.peer}`;
  throw new LiteError('ROLE_MISMATCH', `a ${message.type} on task "${record.id}" must come from ${sender} (${who}); record it with ${flag}`, {
    task: record.id,
  });
}

function isDuplicate(record: TaskRecord, message: Message, direction: Direction): boolean {
  return record.history.some(
    (e) =>
      e.direction === direction &&
      e.type === message.type &&
      e.body === message.body &&
      sameList(e.attachments, message.attachments) &&
      sameParams(e.params, message.params),
  );
}

/** The message with every known credential shape replaced by `[redacted: kind]`. */
export function redactMessage(message: Message): Message {
  const params: Record<string, string> = {};
  for (const [key, value] of Object.entries(message.params)) {
    const safe = isSecretName(key) && looksLikeSecretValue(value) ? `[redacted: a value named "${key}"]` : redactCredentials(value);
    Object.defineProperty(params, key, { value: safe, enumerable: true, writable: true, configurable: true });
  }
  return { type: message.type, params, body: redactCredentials(message.body), attachments: message.attachments.map(redactCredentials) };
}

function entry(message: Message, direction: Direction, at: string, state: TaskState): HistoryEntry {
  return { at, direction, type: message.type, params: { ...message.params }, body: message.body, attachments: [...message.attachments], state };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

function sameParams(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}
