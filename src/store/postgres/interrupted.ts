// Ending tasks that will never finish, inside the caller's transaction: those left running when
// the process restarted (recoverInterrupted), or those of a replica that died (failTasksOf). Each
// is failed with the reason, as a status that joins its event log, exactly as the other stores do.

import type { Task } from '../../model/task.js';
import { failInterrupted, statusChange } from '../task-store.js';
import type { Query, Statement } from './connection.js';
import { key } from './keys.js';
import { ENDED_SQL, rowOf, writeBatch, type LogRows } from './writes.js';

/**
 * Fails every unfinished task of `schema`'s tasks that `where` (on `t`, with `values`) picks,
 * locking them first, and returns them failed, by id. `write` is the batch statement.
 */
export async function failUnfinished(
  query: Query,
  schema: string,
  write: Statement,
  filter: { where: string; values: readonly unknown[] },
  reason: string,
  timestamp: string,
): Promise<Task[]> {
  const rows = await query<{ json: string; last: string | null }>(
    // By id: the order newestFirst gives them once they all share the same failure timestamp.
    `SELECT t.json, (SELECT max(e.last_seq) FROM ${schema}.task_events e WHERE e.task_id = t.id) AS last
     FROM ${schema}.tasks t WHERE t.state NOT IN ${ENDED_SQL} AND ${filter.where} ORDER BY t.id FOR UPDATE OF t`,
    filter.values,
  );
  if (rows.length === 0) return [];
  const failed = rows.map((row) => failInterrupted(JSON.parse(row.json) as Task, reason, timestamp));
  // The rows exist: the upsert keeps their owners and runners.
  const logs = failed.map((task, i): [Buffer, LogRows] => [key(task.id), { events: [statusChange(task, Number(rows[i]!.last ?? 0) + 1)] }]);
  await writeBatch(query, write, failed.map((task) => rowOf(task, null, null)), logs, timestamp);
  return failed;
}
