// What a serving agent keeps, and for how long (RetentionRules). A pass, when the agent starts
// and then every minute or so, ends the tasks left waiting for an answer past the input timeout,
// deletes the ended tasks past their TTL and brings the store under its cap. Every deadline is
// reckoned from the stored status timestamps, so a restart loses none.
//
//   pass ──► waiting longer than inputTimeoutMs ──► failed: the handler's signal fires, its ask throws
//        ├─► ended longer ago than taskTtlMs ─────► deleted, a batch at a time
//        └─► more tasks than maxTasks ────────────► the oldest ended ones deleted
//   new task ──► admit: at the cap, delete the oldest ended task; none ended ──► STORE_FULL

import { LiteError } from '../errors.js';
import { formatDuration, type RetentionRules } from '../model/retention.js';
import { cloneTask, type Task, type TaskEvent } from '../model/task.js';
import { isInterrupted } from '../protocol/states.js';
import { isRetentionStore, type RetentionStore } from '../store/retention-store.js';
import { failInterrupted, type TaskStore } from '../store/task-store.js';
import type { LiveTask } from './live-task.js';
import { saveStoredEnd } from './stored-end.js';
import { endTask, type TaskActions } from './task-context.js';

/** What the agent lends its retention. */
export interface RetentionHost {
  store: TaskStore;
  now(): Date;
  /** How the agent changes a running task: its state machine, events and saves. */
  actions: TaskActions;
  /** The task `id`, if it runs in this process. */
  live(id: string): LiveTask | undefined;
  /** Tells the agent's observers of a change made to a task nothing runs. */
  tell(event: TaskEvent, task: Task): Promise<void>;
  reportError(error: unknown, what: string): void;
  /**
   * Replicas sharing the store: whether this one leads retention now (only the leader makes
   * passes); how a waiting task that does not run here is ended (by the replica running it). The
   * store's count is then read afresh each time, since other replicas add tasks too.
   */
  cluster?: { leads(): Promise<boolean>; expire(task: Task, reason: string): Promise<boolean> };
}

/** What one pass did. */
export interface PruneReport {
  /** Tasks that waited too long for an answer, now failed. */
  ended: number;
  /** Ended tasks deleted: past their TTL, or the oldest over the cap. */
  deleted: number;
}

/** Tasks deleted or ended per batch: one transaction each, with a turn of the event loop between. */
export const RETENTION_BATCH = 500;
/** The longest a duration rule may be: ten years, so deadlines stay four-digit ISO years. */
const LONGEST_MS = 3650 * 86_400_000;

/** Applies an agent's retention rules; made by the agent from `AgentOptions.retention`. */
export class Retention {
  readonly rules: Readonly<RetentionRules>;
  private readonly host: RetentionHost;
  private readonly store: TaskStore & RetentionStore;
  private readonly timer: NodeJS.Timeout;
  /** The pass running or last run: a pass starts when the one before has ended. */
  private passes: Promise<PruneReport> = Promise.resolve({ ended: 0, deleted: 0 });
  private passing = false;
  /** Tasks in the store, counted when first needed and then kept up to date, under `serially`. */
  private stored: number | undefined;
  /** Counting and deleting, one step at a time: two new tasks at the cap must each make room. */
  private steps: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly listeners = new Set<(ids: readonly string[]) => void>();

  /**
   * @internal Made by the agent from `AgentOptions.retention`. Checks `rules` (USAGE names a bad
   * one), then runs a pass at once and every `intervalMs`.
   */
  constructor(rules: RetentionRules, host: RetentionHost, intervalMs = intervalFor(rules)) {
    checkRules(rules);
    if (!isRetentionStore(host.store)) {
      throw new LiteError('USAGE', 'retention needs a store that can delete tasks: a RetentionStore, as MemoryTaskStore and the SQLite store are');
    }
    this.rules = { ...rules };
    this.host = host;
    this.store = host.store;
    this.timer = setInterval(() => {
      if (!this.passing) void this.prune();
    }, intervalMs).unref();
    setImmediate(() => void this.prune());
  }

  /**
   * Runs a pass now, after the one running if any. Never rejects: a failure is told to the
   * agent's `onError`, and the next pass tries again.
   */
  prune(): Promise<PruneReport> {
    const pass = this.passes.then(() => this.pass());
    this.passes = pass;
    return pass;
  }

  /**
   * Counts a new task against the cap before it is made, then runs its `beforeStart`: at the cap,
   * the oldest ended task is deleted to make room, and when none has ended the task is refused
   * with STORE_FULL. A task that `beforeStart` refuses is not made, and gives its place back.
   * Before `beforeStart`, since a push config it saves is kept only with its task.
   */
  async admit(task: Task, beforeStart?: (task: Task) => Promise<void>): Promise<void> {
    await this.reserve();
    try {
      await beforeStart?.(cloneTask(task));
    } catch (error) {
      this.release();
      throw error;
    }
  }

  /**
   * Calls `listener` with the ids of the tasks each deletion removed (to delete what is kept for
   * them elsewhere: `serve` removes their work folders). Returns the function that removes it.
   */
  onDelete(listener: (ids: readonly string[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops the timer and waits for the pass running, which stops after its batch. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.passes;
    await this.steps;
  }

  /** Takes a place under the cap, making room or refusing (see `admit`). */
  private reserve(): Promise<void> {
    const max = this.rules.maxTasks;
    if (max === undefined) return Promise.resolve();
    return this.serially(async () => {
      let stored = await this.count();
      if (stored >= max) {
        const wanted = Math.min(stored - max + 1, RETENTION_BATCH);
        const deleted = await this.deleteEnded(wanted);
        stored -= deleted;
        // Far over the cap (it was lowered), a pass is deleting the rest: only none ended refuses.
        if (stored >= max && deleted < wanted) {
          throw new LiteError('STORE_FULL', `this agent keeps at most ${max} task${max === 1 ? '' : 's'}, and none of them has ended; try again once one has`, { maxTasks: max });
        }
      }
      this.stored = stored + 1;
    });
  }

  /** Gives back a place `reserve` took. */
  private release(): void {
    if (this.rules.maxTasks === undefined) return;
    void this.serially(async () => {
      if (this.stored !== undefined) this.stored -= 1;
    });
  }

  private async pass(): Promise<PruneReport> {
    const report: PruneReport = { ended: 0, deleted: 0 };
    if (this.closed) return report;
    this.passing = true;
    try {
      if (this.host.cluster !== undefined && !(await this.host.cluster.leads())) return report;
      const now = this.host.now().getTime();
      const { taskTtlMs, inputTimeoutMs, maxTasks } = this.rules;
      if (inputTimeoutMs !== undefined) report.ended = await this.step('ending tasks that waited too long for an answer', () => this.reap(inputTimeoutMs, now));
      if (taskTtlMs !== undefined) {
        const before = new Date(now - taskTtlMs).toISOString();
        report.deleted += await this.step('deleting ended tasks past their TTL', () => this.deleteInBatches(() => RETENTION_BATCH, before));
      }
      if (maxTasks !== undefined) report.deleted += await this.step('deleting the oldest ended tasks over the cap', () => this.deleteInBatches(async () => (await this.count()) - maxTasks));
    } finally {
      this.passing = false;
    }
    return report;
  }

  private async step(what: string, work: () => Promise<number>): Promise<number> {
    try {
      return await work();
    } catch (error) {
      this.host.reportError(error, what);
      return 0;
    }
  }

  /** Ends, as failed, every task that has waited for an answer since before `now - timeoutMs`. */
  private async reap(timeoutMs: number, now: number): Promise<number> {
    const before = new Date(now - timeoutMs).toISOString();
    let ended = 0;
    for (;;) {
      const waiting = await this.store.waitingSince(before, RETENTION_BATCH);
      let batch = 0;
      for (const task of waiting) if (await this.expire(task, timeoutMs)) batch += 1;
      ended += batch;
      // A batch that ended none (all answered meanwhile) would come back the same.
      if (waiting.length < RETENTION_BATCH || batch === 0 || this.closed) return ended;
    }
  }

  /** Ends a task that waited `waitedMs` for an answer, unless it was answered meanwhile. */
  private async expire(task: Task, waitedMs: number): Promise<boolean> {
    const awaited = task.status.state === 'auth-required' ? 'authorization' : 'a reply';
    const reason = `Waited ${formatDuration(waitedMs)} for ${awaited}, the longest this agent waits; the task has ended. Send a new message to start again.`;
    const live = this.host.live(task.id);
    if (live !== undefined) return endWaiting(live, this.host.actions, task.status.timestamp, reason);
    if (this.host.cluster !== undefined) return this.host.cluster.expire(task, reason);
    // Left waiting by an earlier process: nothing runs it, so the end is only recorded.
    const failed = failInterrupted(task, reason, this.host.now().toISOString());
    await this.host.tell(await saveStoredEnd(this.store, failed), failed);
    return true;
  }

  /**
   * Deletes ended tasks (older than `before`, when given) a batch at a time, each batch as many
   * as `wanted` says then (at most RETENTION_BATCH), until it says none or none are left.
   */
  private async deleteInBatches(wanted: () => number | Promise<number>, before?: string): Promise<number> {
    let deleted = 0;
    while (!this.closed) {
      const [asked, got] = await this.serially(async () => {
        const limit = Math.min(RETENTION_BATCH, await wanted());
        return [limit, limit > 0 ? await this.deleteEnded(limit, before) : 0];
      });
      deleted += got;
      if (got === 0 || got < asked) break;
      // Let requests in between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return deleted;
  }

  /** Deletes up to `limit` ended tasks and tells the listeners; call under `serially`. */
  private async deleteEnded(limit: number, before?: string): Promise<number> {
    const ids = await this.store.deleteEnded(limit, before);
    if (this.stored !== undefined) this.stored -= ids.length;
    for (const listener of ids.length === 0 ? [] : this.listeners) {
      try {
        listener(ids);
      } catch (error) {
        this.host.reportError(error, 'telling of deleted tasks');
      }
    }
    return ids.length;
  }

  /** The tasks in the store; call under `serially`. */
  private async count(): Promise<number> {
    if (this.host.cluster !== undefined) this.stored = undefined;
    this.stored ??= await this.store.countTasks();
    return this.stored;
  }

  /** Runs `work` after the counting and deleting before it, and before what comes after. */
  private serially<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.steps.then(work);
    this.steps = turn.catch(() => undefined);
    return turn;
  }
}

/**
 * Ends `live`, a task running here, as failed with `reason` for waiting too long, unless it was
 * answered since its status of `timestamp` (when the wait was judged). Whether it ended.
 */
export async function endWaiting(live: LiveTask, actions: TaskActions, timestamp: string, reason: string): Promise<boolean> {
  if (!isInterrupted(live.task.status.state) || live.task.status.timestamp !== timestamp) return false;
  endTask(live, actions, 'failed', reason, `task "${live.task.id}" ended: ${reason}`);
  await live.saving;
  return true;
}

/** Refuses rules that are not whole numbers in range, naming the rule. */
function checkRules(rules: RetentionRules): void {
  const check = (name: keyof RetentionRules, max: number, what: string) => {
    const value = rules[name];
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1 || value > max)) {
      throw new LiteError('USAGE', `retention.${name} is ${what} from 1 to ${max}, not ${String(value)}`);
    }
  };
  check('taskTtlMs', LONGEST_MS, 'a whole number of milliseconds');
  check('inputTimeoutMs', LONGEST_MS, 'a whole number of milliseconds');
  check('maxTasks', 1_000_000_000, 'a whole number');
}

/**
 * How often a pass runs: a tenth of the shortest duration rule, between a second and a minute,
 * so that a deadline is kept within a tenth of itself (or a minute).
 */
export function intervalFor(rules: RetentionRules): number {
  const shortest = Math.min(rules.taskTtlMs ?? Infinity, rules.inputTimeoutMs ?? Infinity);
  return Math.min(60_000, Math.max(1_000, Math.floor(shortest / 10)));
}
