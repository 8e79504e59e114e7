// The log half of the PostgreSQL store: reading a task's numbered events, and the idempotency
// keys of sends (see ../task-log.ts). Lookups of keys made in one turn of the event loop go to
// the database together, as one statement: a busy server pays one round trip per turn for them,
// as it does for its saves.

import type { TaskChange, TaskMessage } from '../../model/task.js';
import type { IdempotentAnswer } from '../task-log.js';
import type { PgDatabase } from './connection.js';
import { indexKey, key, unkey } from './keys.js';
import { ownerScope } from './writes.js';

interface Lookup {
  owner: Buffer;
  key: Buffer;
  resolve(answer: IdempotentAnswer | undefined): void;
  reject(error: unknown): void;
}

interface KeyRow {
  i: string;
  fingerprint: string;
  task_id: Buffer | null;
  message: string | null;
  created_at: string;
}

export class PgTaskLog {
  private lookups: Lookup[] = [];
  /** The lookup on its way, if any (close waits for it). */
  private looking: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: PgDatabase,
    private readonly schema: string,
  ) {}

  /** One statement: the events and the last number from the same snapshot. */
  async events(taskId: string, after: number): Promise<{ events: TaskChange[]; last: number }> {
    const rows = await this.db.query<{ last: string | null; json: string | null }>(
      'read task events',
      {
        name: 'a2a_lite_events',
        text: `SELECT m.last, e.json FROM (SELECT max(last_seq) AS last FROM ${this.schema}.task_events WHERE task_id = $1) m
               LEFT JOIN LATERAL (SELECT json, last_seq FROM ${this.schema}.task_events WHERE task_id = $1 AND last_seq > $2) e ON true
               ORDER BY e.last_seq`,
      },
      [key(taskId), after],
    );
    const events = rows.flatMap((row) => (row.json === null ? [] : (JSON.parse(row.json) as TaskChange[]).filter((e) => (e.seq ?? 0) > after)));
    return { events, last: Number(rows[0]?.last ?? 0) };
  }

  /** What a send with `given` (in `owner`'s scope) was first answered with, looked up with the turn's others. */
  find(given: string, owner: string | undefined): Promise<IdempotentAnswer | undefined> {
    return new Promise((resolve, reject) => {
      if (this.lookups.length === 0) setImmediate(() => (this.looking = this.lookUp()));
      this.lookups.push({ owner: ownerScope(owner), key: indexKey(given), resolve, reject });
    });
  }

  /** Resolves once the lookups asked for so far are answered. */
  async settled(): Promise<void> {
    if (this.lookups.length > 0) await new Promise((resolve) => setImmediate(resolve));
    await this.looking;
  }

  /** Records a direct answer for a key, unless the key already has one. */
  async answer(given: string, owner: string | undefined, answer: Omit<IdempotentAnswer, 'taskId'>): Promise<void> {
    await this.db.query(
      'save an idempotency key',
      `INSERT INTO ${this.schema}.idempotency_keys (owner, key, fingerprint, task_id, message, created_at) VALUES ($1, $2, $3, NULL, $4, $5)
       ON CONFLICT (owner, key) DO NOTHING`,
      [ownerScope(owner), indexKey(given), answer.fingerprint, answer.message === undefined ? null : JSON.stringify(answer.message), answer.createdAt],
    );
  }

  private async lookUp(): Promise<void> {
    const batch = this.lookups;
    this.lookups = [];
    try {
      const rows = await this.db.query<KeyRow>(
        'read an idempotency key',
        {
          name: 'a2a_lite_find_keys',
          text: `SELECT q.i, k.fingerprint, k.task_id, k.message, k.created_at
                 FROM unnest($1::bytea[], $2::bytea[]) WITH ORDINALITY AS q (owner, key, i)
                 JOIN ${this.schema}.idempotency_keys k ON k.owner = q.owner AND k.key = q.key`,
        },
        [batch.map((l) => l.owner), batch.map((l) => l.key)],
      );
      const found = new Map(rows.map((row) => [Number(row.i) - 1, row]));
      batch.forEach((lookup, i) => lookup.resolve(answerOf(found.get(i))));
    } catch (error) {
      for (const lookup of batch) lookup.reject(error);
    }
  }
}

function answerOf(row: KeyRow | undefined): IdempotentAnswer | undefined {
  if (row === undefined) return undefined;
  const answer: IdempotentAnswer = { fingerprint: row.fingerprint, createdAt: row.created_at };
  if (row.task_id !== null) answer.taskId = unkey(row.task_id);
  if (row.message !== null) answer.message = JSON.parse(row.message) as TaskMessage;
  return answer;
}
