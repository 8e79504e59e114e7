// What the metrics say of a task's saves: how long each commit to the store took, and the
// states the tasks reached (one count per status event saved). Nothing while metrics are off.

import type { Task } from '../model/task.js';
import type { SaveExtras } from '../store/task-log.js';
import type { TaskStore } from '../store/task-store.js';
import { a2aTaskState } from '../telemetry/a2a-attributes.js';
import { countTaskState, recordStoreCommit } from '../telemetry/metrics.js';
import { metricsOn } from '../telemetry/switch.js';

/** `store.save`, timed and counted while metrics are on. */
export async function observedSave(store: TaskStore, task: Task, owner: string | undefined, extras: SaveExtras | undefined): Promise<void> {
  if (!metricsOn()) return store.save(task, owner, extras);
  const started = performance.now();
  await store.save(task, owner, extras);
  recordStoreCommit((performance.now() - started) / 1000, store.constructor.name);
  for (const event of extras?.events ?? []) if (event.kind === 'status') countTaskState(a2aTaskState(event.status.state));
}
