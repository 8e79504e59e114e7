// The log half of the SQLite store: each task's numbered events and the idempotency keys of
// sends (see ../task-log.ts), in the same file and on the same connection as the tasks.

import type { TaskChange, TaskMessage } from '../../model/task.js';
import { EVENT_LOG_LIMIT, EVENT_LOG_SLACK, type IdempotentAnswer, type SaveExtras } from '../task-log.js';
import type { SqliteDatabase, SqliteStatement } from './driver.js';
import { KeyFilter } from './key-filter.js';
import { key, unkey } from './rows.js';

/** What one commit adds to the log: per task, its new events and the key that made it. */
export interface LogRows {
  events: TaskChange[];
  idempotency?: { owner: Buffer; key: string; fingerprint: string };
}

export class SqliteTaskLog {
  private readonly statements: Record<'addEvents' | 'trim' | 'events' | 'last' | 'addKey' | 'findKey', SqliteStatement>;
  /** Which keys may be stored: a new key is known absent without a lookup. */
  private readonly keys: KeyFilter;

  constructor(db: SqliteDatabase) {
    this.keys = KeyFilter.of(db);
    this.statements = {
      addEvents: db.prepare('INSERT OR REPLACE INTO task_events (task_id, last_seq, first_seq, json) VALUES (?, ?, ?, ?)'),
      trim: db.prepare('DELETE FROM task_events WHERE task_id = ? AND last_seq <= ?'),
      events: db.prepare('SELECT json FROM task_events WHERE task_id = ? AND last_seq > ? ORDER BY last_seq').pluck(),
      last: db.prepare('SELECT max(last_seq) FROM task_events WHERE task_id = ?').pluck(),
      addKey: db.prepare(
        `INSERT INTO idempotency_keys (owner, key, fingerprint, task_id, message, created_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (owner, key) DO NOTHING`,
      ),
      findKey: db.prepare('SELECT fingerprint, task_id AS taskId, message, created_at AS createdAt FROM idempotency_keys WHERE owner = ? AND key = ?'),
    };
  }

  /** Adds what a save brought beside the task row, inside the commit's transaction. */
  write(taskId: Buffer, rows: LogRows, createdAt: string): void {
    if (rows.events.length > 0) {
      const first = rows.events[0]!.seq ?? 0;
      const last = rows.events.at(-1)!.seq ?? 0;
      this.statements.addEvents.run(taskId, last, first, JSON.stringify(rows.events));
      // Past the limit, the oldest go, once every EVENT_LOG_SLACK events (see ../task-log.ts).
      if (last > EVENT_LOG_LIMIT + EVENT_LOG_SLACK && Math.floor(last / EVENT_LOG_SLACK) !== Math.floor((first - 1) / EVENT_LOG_SLACK)) {
        this.statements.trim.run(taskId, last - EVENT_LOG_LIMIT);
      }
    }
    const idempotency = rows.idempotency;
    if (idempotency !== undefined) {
      const bytes = key(idempotency.key);
      this.statements.addKey.run(idempotency.owner, bytes, idempotency.fingerprint, taskId, null, createdAt);
      this.keys.add(idempotency.owner, bytes);
    }
  }

  events(taskId: string, after: number): { events: TaskChange[]; last: number } {
    const batches = this.statements.events.all(key(taskId), after) as string[];
    const events = batches.flatMap((json) => (JSON.parse(json) as TaskChange[]).filter((e) => (e.seq ?? 0) > after));
    return { events, last: this.last(taskId) };
  }

  last(taskId: string): number {
    return (this.statements.last.get(key(taskId)) as number | null) ?? 0;
  }

  find(given: string, owner: string | undefined): IdempotentAnswer | undefined {
    const scope = ownerScope(owner);
    const bytes = key(given);
    if (!this.keys.mightHave(scope, bytes)) return undefined;
    const row = this.statements.findKey.get(scope, bytes) as { fingerprint: string; taskId: Buffer | null; message: string | null; createdAt: string } | undefined;
    if (row === undefined) return undefined;
    const answer: IdempotentAnswer = { fingerprint: row.fingerprint, createdAt: row.createdAt };
    if (row.taskId !== null) answer.taskId = unkey(row.taskId);
    if (row.message !== null) answer.message = JSON.parse(row.message) as TaskMessage;
    return answer;
  }

  answer(given: string, owner: string | undefined, answer: Omit<IdempotentAnswer, 'taskId'>): void {
    const scope = ownerScope(owner);
    const bytes = key(given);
    this.keys.add(scope, bytes);
    this.statements.addKey.run(scope, bytes, answer.fingerprint, null, answer.message === undefined ? null : JSON.stringify(answer.message), answer.createdAt);
  }
}

/** The owner column of a key: the owner's bytes, or an empty blob for a server without auth. */
export function ownerScope(owner: string | undefined): Buffer {
  return owner === undefined ? Buffer.alloc(0) : key(owner);
}

/** Folds a save's extras into what the commit will write for that task. */
export function addLogRows(rows: LogRows | undefined, extras: SaveExtras, owner: string | undefined): LogRows {
  const next: LogRows = rows ?? { events: [] };
  if (extras.events !== undefined && extras.events.length > 0) next.events.push(...extras.events);
  if (extras.idempotency !== undefined && next.idempotency === undefined) next.idempotency = { owner: ownerScope(owner), ...extras.idempotency };
  return next;
}
