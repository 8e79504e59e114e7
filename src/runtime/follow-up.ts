// A requester's message about a task that exists: the reply to a question (input-required or
// auth-required), which the handler waiting in `ask` receives. For a client that counts on
// message ids (SendOptions.messageIdKeys), a message the task has already taken (the same id,
// sent again after a lost answer) is not taken twice: the task is answered as it stands.

import { LiteError } from '../errors.js';
import { isInterrupted, isTerminal, type WireState } from '../protocol/states.js';
import type { TaskStore } from '../store/task-store.js';
import { cloneTask, type Task, type TaskMessage } from '../model/task.js';
import type { SendOptions } from './agent-options.js';
import type { LiveTask } from './live-task.js';
import { taskNotFound } from './stored-end.js';

export interface FollowUpHost {
  store: TaskStore;
  /** Takes the reply for a stored task waiting for input that does not run here (another replica's). */
  elsewhere?(stored: Task, message: TaskMessage, options: SendOptions): Promise<LiveTask>;
  /** The running task `id`, when the requester reaches it. */
  live(id: string, options: SendOptions): LiveTask | undefined;
  /** A task that does not run here, to answer with as it stands. */
  standing(task: Task, options: SendOptions): LiveTask;
  setStatus(live: LiveTask, state: WireState): void;
}

/** Takes `message` as the reply its task waits for; the task it continues. */
export async function followUp(host: FollowUpHost, message: TaskMessage, options: SendOptions): Promise<LiveTask> {
  const id = message.taskId as string;
  const live = host.live(id, options);
  if (live === undefined) {
    const stored = await host.store.get(id, options.owner);
    if (stored === undefined) throw taskNotFound(id);
    if (options.messageIdKeys === true && taken(stored.history, message)) return host.standing(stored, options);
    if (host.elsewhere !== undefined && isInterrupted(stored.status.state)) return host.elsewhere(stored, message, options);
    throw new LiteError('UNSUPPORTED_OPERATION', `task "${id}" is ${stored.status.state}; send a new message without taskId to start a new task`, { task: id });
  }
  checkContext(message, live.task);
  if (options.messageIdKeys === true && taken(live.task.history, message)) return live;
  const reply = live.reply;
  if (reply === undefined) throw notWaiting(live.task);
  if (options.beforeStart) {
    await options.beforeStart(cloneTask(live.task));
    // Another reply or a cancel may have come while it ran.
    if (live.reply !== reply || isTerminal(live.task.status.state)) throw notWaiting(live.task);
  }
  live.reply = undefined;
  live.trace = options.trace;
  const turn: TaskMessage = { ...message, taskId: id, contextId: live.task.contextId };
  live.task.history.push(turn);
  host.setStatus(live, 'working');
  reply.resolve(turn);
  return live;
}

/** Refuses a reply that names another context than its task's. */
export function checkContext(message: TaskMessage, task: Task): void {
  if (message.contextId && message.contextId !== task.contextId) {
    throw new LiteError('INVALID_PARAMS', `contextId "${message.contextId}" is not the context of task "${task.id}"`);
  }
}

/** The answer to a reply for a task that waits for none. */
export function notWaiting(task: Task): LiteError {
  return new LiteError('UNSUPPORTED_OPERATION', `task "${task.id}" is ${task.status.state} and is not waiting for input`, { task: task.id });
}

/** The requester sent this very message to the task before. */
function taken(history: readonly TaskMessage[], message: TaskMessage): boolean {
  return history.some((turn) => turn.role === 'user' && turn.messageId === message.messageId);
}
