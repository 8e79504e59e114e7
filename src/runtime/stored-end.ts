// Ending a task that no process runs (one left unfinished by an earlier process, or by another
// process sharing the store): nothing is there to stop, so the end is only recorded, as the
// next event of the task's log. Cancelling such a task and retention's end for one left waiting
// both come here.

import { LiteError } from '../errors.js';
import { statusChange, type TaskStore } from '../store/task-store.js';
import type { Task, TaskChange } from '../model/task.js';

/** Saves `ended`, a stored task given its end, and logs the new status; returns that event. */
export async function saveStoredEnd(store: TaskStore, ended: Task): Promise<TaskChange> {
  const { last } = await store.events(ended.id, Number.MAX_SAFE_INTEGER);
  const event = statusChange(ended, last + 1);
  await store.save(ended, undefined, { events: [event] });
  return event;
}

/** Records `task` as cancelled at `timestamp`; returns it and the status event that says so. */
export async function cancelStored(store: TaskStore, task: Task, timestamp: string): Promise<{ ended: Task; event: TaskChange }> {
  const ended: Task = { ...task, status: { state: 'cancelled', timestamp } };
  return { ended, event: await saveStoredEnd(store, ended) };
}

/** The one answer for a task that does not exist and for a task of someone else's. */
export function taskNotFound(id: string): LiteError {
  return new LiteError('TASK_NOT_FOUND', `no task "${id}"`, { task: id });
}
