// What a replica asks of the replica running a task, and answers when asked: a cancel, a reply
// to a task waiting for input in `ask` there, and a timeout retention found. When the runner is
// dead (its lease has passed) nothing runs the task any more, and its end is only recorded here.
// And a send's Idempotency-Key, claimed in the store before the handler starts, so that a retry
// on any replica, even at the same instant, starts the work once.
//
//   request replica.<runner> {op, id, …} ──► runner acts on its live task ──► answers (or its error)
//        └─ no answer: lease passed? ──► yes: ended as stored here ── no: CLUSTER_UNAVAILABLE

import { isLiteError, LiteError } from '../errors.js';
import { cloneTask, type Task, type TaskMessage } from '../model/task.js';
import { failInterrupted } from '../store/task-store.js';
import type { SendOptions } from './agent-options.js';
import { checkContext, notWaiting } from './follow-up.js';
import { idempotencyConflict, type SendKey } from './idempotency.js';
import type { LiveTask } from './live-task.js';
import { noticeSubject } from './remote-follow.js';
import { Replica } from './replica.js';
import { endWaiting } from './retention.js';
import { cancelStored, saveStoredEnd, taskNotFound } from './stored-end.js';

/** What one replica asks another. */
type Forwarded =
  | { op: 'cancel'; id: string; owner?: string }
  | { op: 'reply'; id: string; message: TaskMessage; owner?: string; messageIdKeys?: boolean }
  | { op: 'expire'; id: string; timestamp: string; reason: string };

/** Cancels `task`, which does not run here: its runner cancels it, or, that one dead, it ends as stored. */
export async function cancelElsewhere(replica: Replica, task: Task, owner: string | undefined): Promise<Task> {
  const runner = await replica.store.runnerOf(task.id);
  if (runner !== undefined && runner !== replica.name && (await ask(replica, runner, { op: 'cancel', id: task.id, ...(owner === undefined ? {} : { owner }) }))) {
    const now = await replica.store.get(task.id, owner);
    if (now === undefined) throw taskNotFound(task.id);
    return now;
  }
  // Nothing runs it: the end is only recorded.
  const { ended, event } = await cancelStored(replica.store, task, replica.host.now().toISOString());
  replica.notify(task.id, event.seq);
  await replica.host.tell(event, ended, owner);
  return ended;
}

/**
 * Takes `message` as the reply `stored` waits for, in `ask` on the replica running it: that
 * replica resumes it; this one answers with it as it then stands.
 */
export async function replyElsewhere(replica: Replica, stored: Task, message: TaskMessage, options: SendOptions): Promise<LiveTask> {
  const id = stored.id;
  const runner = await replica.store.runnerOf(id);
  if (runner === undefined || runner === replica.name) throw notWaiting(stored);
  checkContext(message, stored);
  await options.beforeStart?.(cloneTask(stored));
  const request: Forwarded = { op: 'reply', id, message, ...(options.owner === undefined ? {} : { owner: options.owner }), ...(options.messageIdKeys === true ? { messageIdKeys: true } : {}) };
  if (!(await ask(replica, runner, request))) {
    throw new LiteError('UNSUPPORTED_OPERATION', `task "${id}" can take no reply: the replica running it stopped, and the task ends as failed`, { task: id });
  }
  const now = await replica.store.get(id, options.owner);
  if (now === undefined) throw taskNotFound(id);
  return replica.elsewhere(now, options.owner);
}

/**
 * Ends `task`, waiting for input since its stored status and not running here, as retention
 * found it waited too long: its runner ends it (unless it was answered meanwhile), or, that one
 * dead or none, its end is recorded here. Whether it ended.
 */
export async function expireElsewhere(replica: Replica, task: Task, reason: string): Promise<boolean> {
  const runner = await replica.store.runnerOf(task.id);
  if (runner !== undefined && runner !== replica.name) {
    const answered = await ask(replica, runner, { op: 'expire', id: task.id, timestamp: task.status.timestamp, reason });
    if (answered) return answered.answer === true;
  }
  const failed = failInterrupted(task, reason, replica.host.now().toISOString());
  const event = await saveStoredEnd(replica.store, failed);
  replica.notify(task.id, event.seq);
  await replica.host.tell(event, failed);
  return true;
}

/** What retention does on a replica: make passes only while it leads, end waiting tasks where they run. */
export function retentionElsewhere(replica: Replica): { leads(): Promise<boolean>; expire(task: Task, reason: string): Promise<boolean> } {
  return { leads: () => replica.lead('retention'), expire: (task, reason) => expireElsewhere(replica, task, reason) };
}

/** What this replica does when another asks (the responder of its subject). */
export function answerForwarded(replica: Replica): (request: unknown) => Promise<unknown> {
  return async (request) => {
    const asked = request as Forwarded;
    const host = replica.host;
    if (asked.op === 'cancel') {
      await host.cancel(asked.id, asked.owner);
      return null;
    }
    if (asked.op === 'reply') {
      const live = await host.followUp(asked.message, { ...(asked.owner === undefined ? {} : { owner: asked.owner }), ...(asked.messageIdKeys === true ? { messageIdKeys: true } : {}) });
      await live.saving;
      return null;
    }
    if (asked.op === 'expire') {
      const live = host.live(asked.id);
      return live !== undefined && (await endWaiting(live, host.actions, asked.timestamp, asked.reason));
    }
    throw new LiteError('INTERNAL', `replica ${replica.name} was asked for something it does not do`);
  };
}

/** A send's key claimed: the key to make the new task with (none if lost), or the task to answer with instead. */
export type Claim = { key: SendKey | undefined } | { task: LiveTask };

/** Claims of one send: each after the send holding the key gave it back without making its task. */
const CLAIM_TRIES = 5;

/**
 * Claims `key` for the task `id` about to be made. Lost to a send of the same message: that
 * send's task, once the replica making it has saved it (or, if that send gives the key back,
 * the key after all). Lost to a different message: a conflict, or (a message-id key) a new task
 * without the key, as a single process does.
 */
export async function claimKey(replica: Replica, key: SendKey, owner: string | undefined, id: string): Promise<Claim> {
  for (let tries = 1; ; tries += 1) {
    const claim = await replica.store.claimKey(key.key, owner, key.fingerprint, id, replica.name);
    if (claim.won) return { key };
    if (claim.taskId === undefined) return { key: undefined };
    if (claim.fingerprint !== key.fingerprint) {
      if (key.explicit) throw idempotencyConflict();
      return { key: undefined };
    }
    const task = await firstSaved(replica, claim.taskId, owner, tries < CLAIM_TRIES ? key : undefined);
    if (task !== 'released') return task === undefined ? { key: undefined } : { task };
  }
}

/**
 * Task `id` once it is stored (its notice wakes the wait), within the request timeout; or
 * 'released' when the send that claimed `key` for it gave the key back (it made no task).
 */
async function firstSaved(replica: Replica, id: string, owner: string | undefined, key: SendKey | undefined): Promise<LiveTask | undefined | 'released'> {
  let wake = (): void => undefined;
  const stop = await replica.bus.subscribe(noticeSubject(id), () => wake());
  try {
    const deadline = Date.now() + replica.requestTimeoutMs;
    for (;;) {
      const found = await replica.host.reopen(id, owner);
      if (found !== undefined) return found;
      if (key !== undefined && (await replica.store.findIdempotent(key.key, owner))?.taskId !== id) return 'released';
      if (Date.now() >= deadline) {
        throw new LiteError('CLUSTER_UNAVAILABLE', 'a send with this Idempotency-Key is still being started on another replica; try again shortly', { task: id });
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 100).unref();
      });
    }
  } finally {
    stop();
  }
}

/**
 * Sends `request` to replica `runner`; its answer, or undefined when it cannot answer because it
 * is dead (its lease has passed). A live runner's error is thrown as it is; a runner that is
 * alive but did not answer is CLUSTER_UNAVAILABLE.
 */
async function ask(replica: Replica, runner: string, request: Forwarded): Promise<{ answer: unknown } | undefined> {
  try {
    return { answer: await replica.bus.request(Replica.subject(runner), request, replica.requestTimeoutMs) };
  } catch (error) {
    if (!isLiteError(error, 'CLUSTER_UNAVAILABLE') || error.details?.reason === undefined) throw error;
    if ((await replica.store.deadReplicas()).includes(runner)) return undefined;
    throw new LiteError('CLUSTER_UNAVAILABLE', `the replica running task "${request.id}" did not answer; try again shortly (${error.message})`, { task: request.id });
  }
}
