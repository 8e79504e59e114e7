// What a task store does for retention (runtime/retention.ts): count its tasks, delete the
// oldest ended ones, find those left waiting for an answer, and remember the rules between runs.
// Both stores implement it beside TaskStore, as they do PushStore.

import type { RetentionRules } from '../model/retention.js';
import type { Task } from '../model/task.js';
import { WIRE_STATES, isInterrupted, isTerminal } from '../protocol/states.js';

/** completed, failed, cancelled, rejected. */
export const ENDED_STATES = WIRE_STATES.filter(isTerminal);
/** input-required, auth-required: the task waits for the requester. */
export const WAITING_STATES = WIRE_STATES.filter(isInterrupted);

/**
 * Deleting a task deletes everything kept for it: its push configs and the notifications not yet
 * delivered. Deletions go oldest status first, and among equal times the greatest id first: the
 * reverse of the order lists give (`newestFirst`).
 */
export interface RetentionStore {
  /** How many tasks the store holds. */
  countTasks(): Promise<number>;
  /**
   * Deletes up to `limit` ended tasks, oldest status first; with `before` (ISO time), only those
   * whose status is older. Returns the ids of the tasks deleted, in that order.
   */
  deleteEnded(limit: number, before?: string): Promise<string[]>;
  /** Up to `limit` tasks waiting for input or auth whose status is older than `before`, oldest first. */
  waitingSince(before: string, limit: number): Promise<Task[]>;
  /** The rules last saved with `saveRetentionRules`, if any. */
  retentionRules(): Promise<RetentionRules | undefined>;
  saveRetentionRules(rules: RetentionRules): Promise<void>;
}

/** True for a store that implements RetentionStore. */
export function isRetentionStore(store: object): store is RetentionStore {
  const methods: (keyof RetentionStore)[] = ['countTasks', 'deleteEnded', 'waitingSince', 'retentionRules', 'saveRetentionRules'];
  return methods.every((name) => typeof (store as Partial<RetentionStore>)[name] === 'function');
}

/** Oldest status first, and among equal times the greatest id first: the order deletions go in. */
export function oldestFirst(a: { id: string; status: { timestamp: string } }, b: { id: string; status: { timestamp: string } }): number {
  if (a.status.timestamp !== b.status.timestamp) return a.status.timestamp < b.status.timestamp ? -1 : 1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * The `k` smallest of `items` by `compare`, smallest first, in one pass that keeps only `k`
 * candidates: the oldest few of a big store without sorting all of it.
 */
export function smallest<T>(items: Iterable<T>, k: number, compare: (a: T, b: T) => number): T[] {
  const kept: T[] = [];
  if (k <= 0) return kept;
  for (const item of items) {
    if (kept.length === k && compare(item, kept[k - 1] as T) >= 0) continue;
    let low = 0;
    let high = kept.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compare(kept[middle] as T, item) <= 0) low = middle + 1;
      else high = middle;
    }
    kept.splice(low, 0, item);
    if (kept.length > k) kept.pop();
  }
  return kept;
}
