// What a store keeps beside each task: the log of its numbered events, which lets a client that
// lost its stream ask for what it missed, and the idempotency keys of the sends that made tasks,
// which let a client retry a send without starting the work twice. The shapes both stores share,
// and the in-memory log of MemoryTaskStore.

import type { TaskChange, TaskMessage } from '../model/task.js';

/** What a save writes beside the task, in the same transaction. */
export interface SaveExtras {
  /** The task's events since its last save, oldest first, each numbered (`seq`). */
  events?: readonly TaskChange[];
  /** The key of the send that made the task, recorded with its first save. */
  idempotency?: IdempotencyKey;
  /**
   * The replica running the task's handler, recorded with its first save by a store that
   * coordinates replicas (cluster-store.ts); other stores ignore it. Such a store drops a save
   * that names a runner when the task it holds has ended: a replica taken for dead must not
   * bring back a task a survivor has failed.
   */
  runner?: string;
}

export interface IdempotencyKey {
  /** The client's `Idempotency-Key`, or the message id of a send without one. */
  key: string;
  /** Of the message sent with the key: a retry must send the same message. */
  fingerprint: string;
}

/** The first answer to a send with a given key: a task, or a direct message. */
export interface IdempotentAnswer {
  fingerprint: string;
  taskId?: string;
  message?: TaskMessage;
  /** When the key was first used (ISO). */
  createdAt: string;
}

/**
 * How many of a task's latest events its log keeps. A client further behind than this gets the
 * task whole instead (a gap), so that a task streaming without end cannot fill memory or disk.
 */
export const EVENT_LOG_LIMIT = 1000;

/** How far past the limit a log grows before its oldest batches go (so trimming is seldom). */
export const EVENT_LOG_SLACK = 128;

/** Events of one task saved together: their JSON, and the numbers they span. */
interface Batch {
  first: number;
  last: number;
  json: string;
}

/** The log and keys of the memory store. */
export class TaskLog {
  private readonly batches = new Map<string, Batch[]>();
  private readonly keys = new Map<string, IdempotentAnswer>();

  add(taskId: string, owner: string | undefined, extras: SaveExtras, now: Date): void {
    const events = extras.events ?? [];
    if (events.length > 0) {
      const batch = { first: events[0]!.seq ?? 0, last: events.at(-1)!.seq ?? 0, json: JSON.stringify(events) };
      const kept = this.batches.get(taskId);
      if (kept === undefined) this.batches.set(taskId, [batch]);
      else {
        kept.push(batch);
        const keepAfter = batch.last - EVENT_LOG_LIMIT;
        if (kept[0]!.last <= keepAfter - EVENT_LOG_SLACK) this.batches.set(taskId, kept.filter((b) => b.last > keepAfter));
      }
    }
    if (extras.idempotency !== undefined) {
      const scoped = scopedKey(extras.idempotency.key, owner);
      if (!this.keys.has(scoped)) this.keys.set(scoped, { fingerprint: extras.idempotency.fingerprint, taskId, createdAt: now.toISOString() });
    }
  }

  events(taskId: string, after: number): { events: TaskChange[]; last: number } {
    const kept = this.batches.get(taskId) ?? [];
    const events = kept.filter((b) => b.last > after).flatMap((b) => (JSON.parse(b.json) as TaskChange[]).filter((e) => (e.seq ?? 0) > after));
    return { events, last: kept.at(-1)?.last ?? 0 };
  }

  last(taskId: string): number {
    return this.batches.get(taskId)?.at(-1)?.last ?? 0;
  }

  find(key: string, owner: string | undefined): IdempotentAnswer | undefined {
    const found = this.keys.get(scopedKey(key, owner));
    return found === undefined ? undefined : structuredClone(found);
  }

  /** Takes `key` for task `taskId` unless it is taken; returns what holds it then, or undefined when this claim won. */
  claim(key: string, owner: string | undefined, fingerprint: string, taskId: string, now: Date): IdempotentAnswer | undefined {
    const scoped = scopedKey(key, owner);
    const held = this.keys.get(scoped);
    if (held !== undefined) return structuredClone(held);
    this.keys.set(scoped, { fingerprint, taskId, createdAt: now.toISOString() });
    return undefined;
  }

  /** Gives back a claim of task `taskId` (none of another task's). */
  release(key: string, owner: string | undefined, taskId: string): void {
    const scoped = scopedKey(key, owner);
    if (this.keys.get(scoped)?.taskId === taskId) this.keys.delete(scoped);
  }

  answer(key: string, owner: string | undefined, answer: Omit<IdempotentAnswer, 'taskId'>): void {
    const scoped = scopedKey(key, owner);
    if (!this.keys.has(scoped)) this.keys.set(scoped, structuredClone(answer));
  }

  /** Forgets a task's events and the keys that lead to it. */
  forget(taskId: string): void {
    this.batches.delete(taskId);
    for (const [scoped, answer] of this.keys) if (answer.taskId === taskId) this.keys.delete(scoped);
  }

  clear(): void {
    this.batches.clear();
    this.keys.clear();
  }
}

/** A key within its owner's scope: one principal's keys never meet another's. */
function scopedKey(key: string, owner: string | undefined): string {
  // Owners are credential names; a server with auth has one on every request, one without none.
  return owner === undefined ? key : `${owner}\u0000${key}`;
}
