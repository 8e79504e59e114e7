// The retention half of the SQLite store (see RetentionStore): counting tasks, deleting the
// oldest ended ones in bounded batches, finding those left waiting, and the rules remembered in
// the file. Every query walks tasks_by_state (state, status_timestamp DESC, id) from its old end.

import type { RetentionRules } from '../../model/retention.js';
import type { Task } from '../../model/task.js';
import { ENDED_STATES, WAITING_STATES, oldestFirst, smallest, type RetentionStore } from '../retention-store.js';
import type { SqliteDatabase, SqliteStatement } from './driver.js';
import type { Guard } from './push-store.js';
import { key, unkey } from './rows.js';

/** An ended task as the deletion query sees it: its key and status timestamp, as stored. */
interface EndedRow {
  id: Buffer;
  timestamp: Buffer;
}

/** Oldest first, and among equal times the greatest id first; bytes compare as the strings do (see `key`). */
function oldestRowFirst(a: EndedRow, b: EndedRow): number {
  return Buffer.compare(a.timestamp, b.timestamp) || Buffer.compare(b.id, a.id);
}

/** The oldest end of one state's run of tasks_by_state, as an ORDER BY the index serves backwards. */
const OLDEST_FIRST = 'ORDER BY status_timestamp ASC, id DESC LIMIT @limit';
const ENDED = 'SELECT id, status_timestamp AS timestamp FROM tasks WHERE state = @state';

/** @internal The queries that look for tasks to delete or end (the tests read their plans). */
export const RETENTION_QUERIES = {
  ended: `${ENDED} ${OLDEST_FIRST}`,
  endedBefore: `${ENDED} AND status_timestamp < @before ${OLDEST_FIRST}`,
  waiting: `SELECT json FROM tasks WHERE state = @state AND status_timestamp < @before ${OLDEST_FIRST}`,
};

export class SqliteRetention implements RetentionStore {
  private readonly statements: Record<'count' | 'ended' | 'endedBefore' | 'waiting' | 'deleteTask' | 'deleteConfigs' | 'deleteDeliveries' | 'deleteEvents' | 'deleteKeys' | 'rules' | 'saveRules', SqliteStatement>;

  /**
   * `settled` waits for saves in flight, so that a deletion sees them; `wrote` tells the
   * checkpointer about the pages a deletion wrote.
   */
  constructor(
    private readonly db: SqliteDatabase,
    private readonly guard: Guard,
    private readonly settled: () => Promise<void>,
    private readonly wrote: (pages: number) => void,
  ) {
    this.statements = {
      count: db.prepare('SELECT count(*) FROM tasks').pluck(),
      ended: db.prepare(RETENTION_QUERIES.ended),
      endedBefore: db.prepare(RETENTION_QUERIES.endedBefore),
      waiting: db.prepare(RETENTION_QUERIES.waiting).pluck(),
      deleteTask: db.prepare('DELETE FROM tasks WHERE id = ?'),
      deleteConfigs: db.prepare('DELETE FROM push_configs WHERE task_id = ?'),
      deleteDeliveries: db.prepare('DELETE FROM push_outbox WHERE task_id = ?'),
      deleteEvents: db.prepare('DELETE FROM task_events WHERE task_id = ?'),
      deleteKeys: db.prepare('DELETE FROM idempotency_keys WHERE task_id = ?'),
      rules: db.prepare("SELECT json FROM settings WHERE name = 'retention'").pluck(),
      saveRules: db.prepare("INSERT INTO settings (name, json) VALUES ('retention', ?) ON CONFLICT (name) DO UPDATE SET json = excluded.json"),
    };
  }

  async countTasks(): Promise<number> {
    await this.settled();
    return this.guard('count tasks', () => this.statements.count.get() as number);
  }

  async deleteEnded(limit: number, before?: string): Promise<string[]> {
    await this.settled();
    if (limit <= 0) return [];
    const params = before === undefined ? { limit } : { limit, before: key(before) };
    const select = before === undefined ? this.statements.ended : this.statements.endedBefore;
    const deleted = this.guard('delete ended tasks', () =>
      this.db
        .transaction(() => {
          // The oldest `limit` of each ended state, then the oldest `limit` of those.
          const rows = ENDED_STATES.flatMap((state) => select.all({ ...params, state }) as EndedRow[]);
          const oldest = smallest(rows, limit, oldestRowFirst).map((row) => row.id);
          this.deleteTasks(oldest);
          return oldest;
        })
        .immediate(),
    );
    this.wrote(deleted.length * 4);
    return deleted.map(unkey);
  }

  async waitingSince(before: string, limit: number): Promise<Task[]> {
    await this.settled();
    const json = this.guard('find waiting tasks', () =>
      WAITING_STATES.flatMap((state) => this.statements.waiting.all({ state, before: key(before), limit }) as string[]),
    );
    return smallest(
      json.map((text) => JSON.parse(text) as Task),
      limit,
      oldestFirst,
    );
  }

  async retentionRules(): Promise<RetentionRules | undefined> {
    const json = this.guard('read the retention rules', () => this.statements.rules.get() as string | undefined);
    return json === undefined ? undefined : (JSON.parse(json) as RetentionRules);
  }

  async saveRetentionRules(rules: RetentionRules): Promise<void> {
    this.guard('save the retention rules', () => this.statements.saveRules.run(JSON.stringify(rules)));
  }

  /**
   * Every deletion of tasks comes here, inside the caller's transaction: whatever is kept for a
   * task (its push configs, its undelivered notifications, its event log, the idempotency keys
   * that lead to it) goes with it.
   */
  private deleteTasks(ids: readonly Buffer[]): void {
    for (const id of ids) {
      this.statements.deleteDeliveries.run(id);
      this.statements.deleteEvents.run(id);
      this.statements.deleteKeys.run(id);
      this.statements.deleteConfigs.run(id);
      this.statements.deleteTask.run(id);
    }
  }
}
