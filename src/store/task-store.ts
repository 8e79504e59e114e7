// Where a serving agent keeps its tasks: the TaskStore contract, and the in-memory store for
// throwaway runs, which keeps push configs and their outbox too (PushStore), deletes old tasks
// (RetentionStore) and lets agents in one process share it as replicas (ClusterStore). SQLite
// (the default for `serve`) implements the same contracts but the last.

import { randomUUID } from 'node:crypto';
import type { PushConfig } from '../model/push-config.js';
import { isInterrupted, isTerminal, type TaskState } from '../protocol/states.js';
import type { RetentionRules } from '../model/retention.js';
import { cloneTask, type Task, type TaskChange, type TaskMessage } from '../model/task.js';
import type { ClusterStore, KeyClaim } from './cluster-store.js';
import { MemoryCluster } from './memory-cluster.js';
import type { NewDelivery, PendingDelivery, PushStore } from './push-store.js';
import { oldestFirst, smallest, type RetentionStore } from './retention-store.js';
import { TaskLog, type IdempotentAnswer, type SaveExtras } from './task-log.js';
import { newestFirst, page, statesOf, type TaskPage, type TaskQuery } from './paging.js';

/**
 * Every implementation returns copies: changing a returned task never changes the store.
 *
 * A task may have an owner: the principal that made it (with `serve`, the name of the
 * environment variable whose token the client presented; never a credential). It is kept beside
 * the task, not in it, so it never reaches the wire. Reads that name an owner see only that
 * owner's tasks; reads that name none see every task.
 */
export interface TaskStore {
  /**
   * Saves a task, new or changed. The store takes its snapshot during the call, before the
   * returned promise settles, so the caller may change the task right afterwards. `owner` is
   * recorded when the task is first saved; later saves keep it, whatever they pass.
   */
  save(task: Task, owner?: string, extras?: SaveExtras): Promise<void>;
  /** The task, or undefined when there is none, or when `owner` is given and is not its owner. */
  get(id: string, owner?: string): Promise<Task | undefined>;
  /**
   * The task's events numbered above `after`, oldest first, as far as they are kept; and the
   * number of its last event (0 when it has none).
   */
  events(taskId: string, after: number): Promise<{ events: TaskChange[]; last: number }>;
  /** What a send with this key (in the owner's scope) was first answered with, if it is kept. */
  findIdempotent(key: string, owner?: string): Promise<IdempotentAnswer | undefined>;
  /** Records a direct answer (a message, no task) given to a send with this key. */
  saveIdempotentAnswer(key: string, owner: string | undefined, answer: Omit<IdempotentAnswer, 'taskId'>): Promise<void>;
  /** Newest status first, paged by an opaque cursor. */
  list(query?: TaskQuery): Promise<TaskPage>;
  /**
   * Marks every task that has not ended as `failed`, with `reason` as the agent's status
   * message, and returns those tasks. Called once at start-up: whatever was running when the
   * process died will never finish, and must not be reported `working` forever. The new status
   * joins each task's event log.
   */
  recoverInterrupted(reason: string): Promise<Task[]>;
  close(): Promise<void>;
}

export interface TaskStoreOptions {
  /** The clock for timestamps the store writes itself; tests pass a fixed one. */
  now?: () => Date;
}

export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, decodeCursor, encodeCursor, newestFirst, page, pageSizeOf, statesOf, type TaskPage, type TaskQuery } from './paging.js';

/** What lists filter and sort tasks on. */
interface Listed {
  id: string;
  owner: string | undefined;
  contextId: string;
  status: { state: TaskState; timestamp: string };
}

/**
 * A task as the memory store keeps it: the fields lists use, and the task as JSON text. The text
 * is the snapshot `save` must take, and the compact way to keep it: a store that holds every
 * task holds one string each, not a tree of objects for the garbage collector to copy and trace.
 */
interface Saved extends Listed {
  json: string;
}

function saved(task: Task, owner: string | undefined): Saved {
  return { id: task.id, owner, contextId: task.contextId, status: { state: task.status.state, timestamp: task.status.timestamp }, json: JSON.stringify(task) };
}

function taskOf(entry: Saved): Task {
  return JSON.parse(entry.json) as Task;
}

/** Keeps tasks, push configs and the outbox in Maps; gone when the process ends. */
export class MemoryTaskStore implements TaskStore, PushStore, RetentionStore, ClusterStore {
  private readonly tasks = new Map<string, Saved>();
  /** By `[taskId, id]` as JSON; a Map keeps insertion order, which is the listing order. */
  private readonly configs = new Map<string, PushConfig>();
  private readonly outbox = new Map<number, PendingDelivery>();
  private lastSeq = 0;
  /** Each task's event log (JSON text, as the tasks are) and answers by idempotency key. */
  private readonly log = new TaskLog();
  private rules: RetentionRules | undefined;
  private readonly now: () => Date;
  private readonly cluster: MemoryCluster;

  constructor(options: TaskStoreOptions = {}) {
    this.now = options.now ?? (() => new Date());
    this.cluster = new MemoryCluster(this.now);
  }

  async save(task: Task, owner?: string, extras: SaveExtras = {}): Promise<void> {
    const before = this.tasks.get(task.id);
    // A replica taken for dead must not bring back a task a survivor has ended.
    if (extras.runner !== undefined && before !== undefined && isTerminal(before.status.state)) return;
    this.tasks.set(task.id, saved(task, before === undefined ? owner : before.owner));
    this.log.add(task.id, before === undefined ? owner : before.owner, extras, this.now());
    this.cluster.ran(task.id, extras.runner);
  }

  async events(taskId: string, after: number): Promise<{ events: TaskChange[]; last: number }> {
    return this.log.events(taskId, after);
  }

  async findIdempotent(key: string, owner?: string): Promise<IdempotentAnswer | undefined> {
    return this.log.find(key, owner);
  }

  async saveIdempotentAnswer(key: string, owner: string | undefined, answer: Omit<IdempotentAnswer, 'taskId'>): Promise<void> {
    this.log.answer(key, owner, answer);
  }

  async get(id: string, owner?: string): Promise<Task | undefined> {
    const entry = this.tasks.get(id);
    return entry === undefined || (owner !== undefined && entry.owner !== owner) ? undefined : taskOf(entry);
  }

  async list(query: TaskQuery = {}): Promise<TaskPage> {
    const states = statesOf(query);
    const matching = [...this.tasks.values()].filter((t) => matches(t, query, states)).sort(newestFirst);
    return page(matching, query, taskOf);
  }

  async recoverInterrupted(reason: string): Promise<Task[]> {
    return this.failUnended(this.tasks.values(), reason);
  }

  async heartbeat(replica: string, leaseMs: number): Promise<void> {
    this.cluster.heartbeat(replica, leaseMs);
  }

  async deadReplicas(): Promise<string[]> {
    return this.cluster.dead();
  }

  async failTasksOf(replica: string, reason: string): Promise<Task[]> {
    this.cluster.forget(replica);
    for (const [taskId, claim] of this.cluster.takeClaimsOf(replica)) this.log.release(claim.key, claim.owner, taskId);
    const running = this.cluster.tasksOf(replica).map((id) => this.tasks.get(id));
    return this.failUnended(running.filter((t) => t !== undefined), reason);
  }

  async runnerOf(taskId: string): Promise<string | undefined> {
    return this.cluster.runnerOf(taskId);
  }

  async claimKey(key: string, owner: string | undefined, fingerprint: string, taskId: string, replica: string): Promise<KeyClaim> {
    const held = this.log.claim(key, owner, fingerprint, taskId, this.now());
    if (held !== undefined) return { won: false, taskId: held.taskId, fingerprint: held.fingerprint };
    if (!this.tasks.has(taskId)) this.cluster.claimedKey(taskId, { key, owner, replica });
    return { won: true };
  }

  async releaseKey(key: string, owner: string | undefined, taskId: string): Promise<void> {
    this.log.release(key, owner, taskId);
    this.cluster.releasedKey(taskId);
  }

  async claimDeliveries(replica: string, limit: number, leaseMs: number): Promise<PendingDelivery[]> {
    return this.cluster.claim(this.outbox.values(), replica, limit, leaseMs);
  }

  async lead(role: string, replica: string, leaseMs: number): Promise<boolean> {
    return this.cluster.lead(role, replica, leaseMs);
  }

  async savePushConfig(config: PushConfig): Promise<void> {
    this.configs.set(configKey(config.taskId, config.id), structuredClone(config));
  }

  async getPushConfig(taskId: string, id: string): Promise<PushConfig | undefined> {
    const config = this.configs.get(configKey(taskId, id));
    return config === undefined ? undefined : structuredClone(config);
  }

  async listPushConfigs(taskId: string): Promise<PushConfig[]> {
    return [...this.configs.values()].filter((c) => c.taskId === taskId).map((c) => structuredClone(c));
  }

  async deletePushConfig(taskId: string, id: string): Promise<boolean> {
    for (const [seq, delivery] of this.outbox) {
      if (delivery.taskId === taskId && delivery.configId === id) this.outbox.delete(seq);
    }
    return this.configs.delete(configKey(taskId, id));
  }

  async addDeliveries(deliveries: readonly NewDelivery[]): Promise<PendingDelivery[]> {
    return deliveries.map((delivery) => {
      const pending: PendingDelivery = { ...delivery, seq: (this.lastSeq += 1), attempts: 0 };
      this.outbox.set(pending.seq, pending);
      return { ...pending };
    });
  }

  async pendingDeliveries(): Promise<PendingDelivery[]> {
    // Map order is insertion order, which is `seq` order.
    return [...this.outbox.values()].map((delivery) => ({ ...delivery }));
  }

  async recordAttempt(seq: number, attempts: number): Promise<void> {
    const delivery = this.outbox.get(seq);
    if (delivery !== undefined) delivery.attempts = attempts;
  }

  async removeDelivery(seq: number): Promise<void> {
    this.outbox.delete(seq);
    this.cluster.forgetDelivery(seq);
  }

  async countTasks(): Promise<number> {
    return this.tasks.size;
  }

  async deleteEnded(limit: number, before?: string): Promise<string[]> {
    const ended = [...this.tasks.values()].filter((t) => isTerminal(t.status.state) && (before === undefined || t.status.timestamp < before));
    const ids = smallest(ended, limit, oldestFirst).map((t) => t.id);
    this.deleteTasks(ids);
    return ids;
  }

  async waitingSince(before: string, limit: number): Promise<Task[]> {
    const waiting = [...this.tasks.values()].filter((t) => isInterrupted(t.status.state) && t.status.timestamp < before);
    return smallest(waiting, limit, oldestFirst).map(taskOf);
  }

  async retentionRules(): Promise<RetentionRules | undefined> {
    return this.rules === undefined ? undefined : { ...this.rules };
  }

  async saveRetentionRules(rules: RetentionRules): Promise<void> {
    this.rules = { ...rules };
  }

  async close(): Promise<void> {
    this.tasks.clear();
    this.configs.clear();
    this.outbox.clear();
    this.log.clear();
    this.cluster.clear();
  }

  /** Fails each of `entries` that has not ended, logging its new status; returns them, newest first. */
  private failUnended(entries: Iterable<Saved>, reason: string): Task[] {
    const timestamp = this.now().toISOString();
    const failed = [...entries]
      .filter((t) => !isTerminal(t.status.state))
      .map((t) => ({ task: failInterrupted(taskOf(t), reason, timestamp), owner: t.owner }))
      .sort((a, b) => newestFirst(a.task, b.task));
    for (const { task, owner } of failed) {
      this.tasks.set(task.id, saved(task, owner));
      this.log.add(task.id, owner, { events: [statusChange(task, this.log.last(task.id) + 1)] }, this.now());
    }
    return failed.map(({ task }) => task);
  }

  /** Every deletion of tasks comes here: whatever is kept for a task goes with it. */
  private deleteTasks(ids: readonly string[]): void {
    const gone = new Set(ids);
    for (const id of gone) this.tasks.delete(id);
    for (const [key, config] of this.configs) if (gone.has(config.taskId)) this.configs.delete(key);
    for (const [seq, delivery] of this.outbox) if (gone.has(delivery.taskId)) this.outbox.delete(seq);
    for (const id of gone) {
      this.log.forget(id);
      this.cluster.forgetTask(id);
    }
  }
}

function configKey(taskId: string, id: string): string {
  return JSON.stringify([taskId, id]);
}

/**
 * A copy of `task`, failed at `timestamp` with `reason` as the agent's status message; the
 * message joins the history too, as every status message the runtime sends does.
 */
export function failInterrupted(task: Task, reason: string, timestamp: string): Task {
  const failed = cloneTask(task);
  const message: TaskMessage = {
    messageId: randomUUID(),
    role: 'agent',
    parts: [{ kind: 'text', text: reason }],
    taskId: task.id,
    contextId: task.contextId,
  };
  failed.status = { state: 'failed', message, timestamp };
  failed.history.push(message);
  return failed;
}

/** The task's present status as the change numbered `seq` (for a status a store sets itself). */
export function statusChange(task: Task, seq: number): TaskChange {
  return { kind: 'status', taskId: task.id, contextId: task.contextId, status: task.status, seq };
}

function matches(task: Listed, query: TaskQuery, states: readonly TaskState[] | undefined): boolean {
  if (query.owner !== undefined && task.owner !== query.owner) return false;
  if (query.contextId && task.contextId !== query.contextId) return false;
  if (states !== undefined && !states.includes(task.status.state)) return false;
  if (query.updatedAfter && task.status.timestamp < query.updatedAfter) return false;
  return true;
}
