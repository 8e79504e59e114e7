// Cancelling a task that no process runs (one left unfinished by an earlier process, or by
// another process sharing the store): nothing is there to stop, so the end is only recorded,
// as the next event of the task's log.

import type { TaskStore } from '../store/task-store.js';
import type { Task, TaskChange } from '../model/task.js';

/** Records `task` as cancelled at `timestamp`; returns it and the status event that says so. */
export async function cancelStored(store: TaskStore, task: Task, timestamp: string): Promise<{ ended: Task; event: TaskChange }> {
  const ended: Task = { ...task, status: { state: 'cancelled', timestamp } };
  const { last } = await store.events(task.id, Number.MAX_SAFE_INTEGER);
  const event: TaskChange = { kind: 'status', taskId: task.id, contextId: task.contextId, status: structuredClone(ended.status), seq: last + 1 };
  await store.save(ended, undefined, { events: [event] });
  return { ended, event };
}
