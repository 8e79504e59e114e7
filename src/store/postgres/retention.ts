// The retention half of the PostgreSQL store (see RetentionStore): counting tasks, deleting the
// oldest ended ones with everything kept for them in one statement, finding those left waiting,
// and the rules remembered in the schema. Each state's run of tasks_by_state is walked from its
// old end, and the runs merged, as the SQLite store does.

import type { RetentionRules } from '../../model/retention.js';
import type { Task } from '../../model/task.js';
import { ENDED_STATES, WAITING_STATES, type RetentionStore } from '../retention-store.js';
import type { PgDatabase } from './connection.js';
import { indexKey, unkey } from './keys.js';

/** Oldest status first, and among equal times the greatest id first. */
const OLDEST_FIRST = 'ORDER BY status_timestamp ASC, id DESC';

export class PgRetention implements RetentionStore {
  /** `settled` waits for saves in flight, so that a count or a deletion sees them. */
  constructor(
    private readonly db: PgDatabase,
    private readonly schema: string,
    private readonly settled: () => Promise<void>,
  ) {}

  async countTasks(): Promise<number> {
    await this.settled();
    const rows = await this.db.query<{ count: string }>('count tasks', `SELECT count(*) FROM ${this.schema}.tasks`);
    return Number(rows[0]?.count ?? 0);
  }

  /**
   * The oldest `limit` of each ended state, then the oldest `limit` of those, deleted with their
   * push configs, undelivered notifications, event log and idempotency keys. Two replicas
   * deleting at once each report only the tasks they deleted themselves.
   */
  async deleteEnded(limit: number, before?: string): Promise<string[]> {
    await this.settled();
    if (limit <= 0) return [];
    const s = this.schema;
    const values: unknown[] = [limit];
    if (before !== undefined) values.push(indexKey(before));
    const rows = await this.db.query<{ id: Buffer; status_timestamp: Buffer }>(
      'delete ended tasks',
      `WITH doomed AS (
         SELECT id FROM (${this.oldest('id, status_timestamp', ENDED_STATES, before === undefined ? '' : 'AND status_timestamp < $2')}) x
       ),
       deliveries AS (DELETE FROM ${s}.push_outbox WHERE task_id IN (SELECT id FROM doomed)),
       events AS (DELETE FROM ${s}.task_events WHERE task_id IN (SELECT id FROM doomed)),
       keys AS (DELETE FROM ${s}.idempotency_keys WHERE task_id IN (SELECT id FROM doomed)),
       configs AS (DELETE FROM ${s}.push_configs WHERE task_id IN (SELECT id FROM doomed))
       DELETE FROM ${s}.tasks WHERE id IN (SELECT id FROM doomed) RETURNING id, status_timestamp`,
      values,
    );
    // RETURNING keeps no order: put the deleted back in the order they were chosen in.
    rows.sort((a, b) => Buffer.compare(a.status_timestamp, b.status_timestamp) || Buffer.compare(b.id, a.id));
    return rows.map((row) => unkey(row.id));
  }

  async waitingSince(before: string, limit: number): Promise<Task[]> {
    await this.settled();
    if (limit <= 0) return [];
    const rows = await this.db.query<{ json: string }>('find waiting tasks', this.oldest('json, status_timestamp, id', WAITING_STATES, 'AND status_timestamp < $2'), [limit, indexKey(before)]);
    return rows.map((row) => JSON.parse(row.json) as Task);
  }

  async retentionRules(): Promise<RetentionRules | undefined> {
    const rows = await this.db.query<{ json: string }>('read the retention rules', `SELECT json FROM ${this.schema}.settings WHERE name = 'retention'`);
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].json) as RetentionRules);
  }

  async saveRetentionRules(rules: RetentionRules): Promise<void> {
    await this.db.query(
      'save the retention rules',
      `INSERT INTO ${this.schema}.settings (name, json) VALUES ('retention', $1) ON CONFLICT (name) DO UPDATE SET json = excluded.json`,
      [JSON.stringify(rules)],
    );
  }

  /**
   * The oldest `$1` tasks in `states` (each state's oldest `$1`, merged), with `columns`, oldest
   * first; `and` narrows each state's walk.
   */
  private oldest(columns: string, states: readonly string[], and: string): string {
    const arms = states.map((state) => `(SELECT ${columns} FROM ${this.schema}.tasks WHERE state = '${state}' ${and} ${OLDEST_FIRST} LIMIT $1)`);
    return `SELECT ${columns} FROM (${arms.join(' UNION ALL ')}) arms ${OLDEST_FIRST} LIMIT $1`;
  }
}
