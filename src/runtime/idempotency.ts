// Idempotent sends: a send that makes a task may carry a key (the client's Idempotency-Key, or
// its message id when the client asked for message ids to count), recorded with the task's first
// save. The same key again, from the same principal, gets that task, whether it still runs, has
// ended, or was made before a restart, and whether the first send is still being answered; the
// work never starts twice. A key reused for a different message is refused; a message id reused
// for a different message is just a new task. A send with no key is never matched to another:
// clients that reuse message ids (test kits often do) get what the spec gives them.

import { hash } from 'node:crypto';
import { LiteError } from '../errors.js';
import type { IdempotencyKey } from '../store/task-log.js';
import type { TaskStore } from '../store/task-store.js';
import type { TaskMessage } from '../model/task.js';
import type { LiveTask } from './live-task.js';

/**
 * How long the key of a direct answer is honoured: a retry comes within hours, not days. The key
 * of a task is honoured as long as the task is kept (retention deletes the two together).
 */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** A key as a send gives it: explicit (a header) or the message id. */
export interface SendKey extends IdempotencyKey {
  explicit: boolean;
}

/** Keys a client may choose: 1 to 255 visible ASCII characters. */
const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The key of a send that makes a task: `given` (an Idempotency-Key) when there is one, else the
 * message id if `byMessageId`, else none. The fingerprint is of what the message says, not of its
 * id, so that a retry may carry a new message id under the same key.
 */
export function sendKey(message: TaskMessage, given: string | undefined, byMessageId = false): SendKey | undefined {
  if (given !== undefined && !KEY.test(given)) throw new LiteError('INVALID_PARAMS', 'Idempotency-Key must be 1 to 255 visible ASCII characters');
  if (given === undefined && !byMessageId) return undefined;
  const said = { parts: message.parts, metadata: message.metadata, contextId: message.contextId, referenceTaskIds: message.referenceTaskIds };
  const fingerprint = hash('sha256', JSON.stringify(said), 'base64url');
  return given === undefined ? { key: `message:${message.messageId}`, fingerprint, explicit: false } : { key: `key:${given}`, fingerprint, explicit: true };
}

/** What the agent does for a send: make its task, or find the task an earlier one made. */
export interface SendHost {
  store: TaskStore;
  now(): Date;
  /** The task `id` as the requester may reach it: running here, or as stored; none if gone. */
  reopen(id: string, owner: string | undefined): Promise<LiveTask | undefined>;
}

export class IdempotentSends {
  /** Sends being answered now, by scoped key: a second one waits for the first's task. */
  private readonly pending = new Map<string, { fingerprint: string; task: Promise<LiveTask> }>();

  constructor(private readonly host: SendHost) {}

  /** The task of the first send with `key` (in `owner`'s scope), making it with `create` if none. */
  once(key: SendKey | undefined, owner: string | undefined, create: (key?: SendKey) => Promise<LiveTask>): Promise<LiveTask> {
    if (key === undefined) return create();
    const scoped = owner === undefined ? key.key : `${owner}\u0000${key.key}`;
    const earlier = this.pending.get(scoped);
    if (earlier !== undefined && (earlier.fingerprint === key.fingerprint || key.explicit)) {
      if (earlier.fingerprint !== key.fingerprint) return Promise.reject(idempotencyConflict());
      // If the first send failed, its task was never made: this one tries again.
      return earlier.task.catch(() => this.once(key, owner, create));
    }
    const task = this.find(key, owner).then((found) => found ?? create(key));
    const entry = { fingerprint: key.fingerprint, task };
    this.pending.set(scoped, entry);
    const done = (): void => {
      if (this.pending.get(scoped) === entry) this.pending.delete(scoped);
    };
    // Until the key is saved with the task, the store cannot answer for it: keep it here. A
    // failed send is forgotten at once, before anyone waiting for it tries again.
    task.then((live) => void live.saving.then(done), done);
    return task;
  }

  /**
   * A direct answer (a message, no task) to a send with `key`: the one given first, if any, else
   * `compute`'s, kept for the retries. Undefined when the first send made a task, or `compute`
   * gives nothing (the message then makes a task).
   */
  async answer(key: SendKey | undefined, owner: string | undefined, compute: () => Promise<TaskMessage | undefined>): Promise<TaskMessage | undefined> {
    if (key === undefined) return compute();
    const found = await this.host.store.findIdempotent(key.key, owner);
    const fresh = found !== undefined && Date.parse(found.createdAt) >= this.host.now().getTime() - IDEMPOTENCY_TTL_MS;
    if (fresh && found.fingerprint !== key.fingerprint && key.explicit) throw idempotencyConflict();
    if (fresh && found.fingerprint === key.fingerprint) return found.message;
    const message = await compute();
    if (message !== undefined) await this.host.store.saveIdempotentAnswer(key.key, owner, { fingerprint: key.fingerprint, message, createdAt: this.host.now().toISOString() });
    return message;
  }

  private async find(key: SendKey, owner: string | undefined): Promise<LiveTask | undefined> {
    const found = await this.host.store.findIdempotent(key.key, owner);
    if (found?.taskId === undefined) return undefined;
    if (found.fingerprint !== key.fingerprint) {
      if (key.explicit) throw idempotencyConflict();
      return undefined;
    }
    return this.host.reopen(found.taskId, owner);
  }
}

/** The answer to a key sent again with a different message. */
export function idempotencyConflict(): LiteError {
  return new LiteError('IDEMPOTENCY_CONFLICT', 'this Idempotency-Key was already used for a different message; use a new key for a new request');
}
