// What saving tasks writes, as ONE statement: the task rows, the events each save brought, the
// trimming of logs grown past the limit and the idempotency keys, all from arrays (unnest), so
// that a batch of any size costs one round trip and commits or fails whole.

import type { Task, TaskChange } from '../../model/task.js';
import { isTerminal, WIRE_STATES } from '../../protocol/states.js';
import { EVENT_LOG_LIMIT, EVENT_LOG_SLACK, type SaveExtras } from '../task-log.js';
import { checkId, checkName, indexKey, key } from './keys.js';
import type { Query, Statement } from './connection.js';

/**
 * The states of tasks that have ended, as an SQL list: literal, so that the planner matches it
 * against the partial index tasks_running (whose predicate schema.ts spells the same way).
 */
export const ENDED_SQL = `(${WIRE_STATES.filter(isTerminal)
  .map((state) => `'${state}'`)
  .join(', ')})`;

/** A task as its row: the JSON is the snapshot `save` takes. */
export interface TaskRow {
  id: Buffer;
  contextId: Buffer;
  state: string;
  timestamp: Buffer;
  json: string;
  owner: Buffer | null;
  runner: string | null;
}

/** What one batch adds to a task's log: its new events and the key that made it. */
export interface LogRows {
  events: TaskChange[];
  idempotency?: { owner: Buffer; key: Buffer; fingerprint: string };
}

/** The row of `task`; throws (for this task alone) when an id or the runner cannot be kept. */
export function rowOf(task: Task, owner: Buffer | null, runner: string | null): TaskRow {
  checkId(task.id, 'task id');
  if (runner !== null) checkName(runner, 'replica');
  return {
    id: key(task.id),
    contextId: indexKey(task.contextId),
    state: task.status.state,
    timestamp: indexKey(task.status.timestamp),
    json: JSON.stringify(task),
    owner,
    runner,
  };
}

export function ownerKey(owner: string | undefined): Buffer | null {
  return owner === undefined ? null : indexKey(owner);
}

/** The owner column of an idempotency key: the owner's key, or an empty bytea for none. */
export function ownerScope(owner: string | undefined): Buffer {
  return owner === undefined ? Buffer.alloc(0) : indexKey(owner);
}

/** Folds a save's extras into what the batch will write for that task. */
export function addLogRows(rows: LogRows | undefined, extras: SaveExtras, owner: string | undefined): LogRows {
  const next: LogRows = rows ?? { events: [] };
  if (extras.events !== undefined && extras.events.length > 0) next.events.push(...extras.events);
  if (extras.idempotency !== undefined && next.idempotency === undefined) {
    next.idempotency = { owner: ownerScope(owner), key: indexKey(extras.idempotency.key), fingerprint: extras.idempotency.fingerprint };
  }
  return next;
}

/** The statement that writes a batch (see `writeBatch`). */
export function batchStatement(schema: string): Statement {
  return {
    name: 'a2a_lite_save',
    text: `WITH saved AS (
        INSERT INTO ${schema}.tasks (id, context_id, state, status_timestamp, json, owner, runner, created_at)
        SELECT r.id, r.context_id, r.state, r.status_timestamp, r.json, r.owner, r.runner, $8::text
        FROM unnest($1::bytea[], $2::bytea[], $3::text[], $4::bytea[], $5::text[], $6::bytea[], $7::text[])
          AS r (id, context_id, state, status_timestamp, json, owner, runner)
        -- Owner, runner and created_at are the first save's: an update keeps them. A save naming
        -- its runner is dropped, events and key too, when the task has ended meanwhile: its
        -- replica was taken for dead and a survivor failed the task (cluster-store.ts).
        ON CONFLICT (id) DO UPDATE SET context_id = excluded.context_id, state = excluded.state,
          status_timestamp = excluded.status_timestamp, json = excluded.json
        WHERE excluded.runner IS NULL OR tasks.state NOT IN ${ENDED_SQL}
        RETURNING id
      ), logged AS (
        INSERT INTO ${schema}.task_events (task_id, last_seq, first_seq, json)
        SELECT * FROM unnest($9::bytea[], $10::bigint[], $11::bigint[], $12::text[]) AS e (task_id, last_seq, first_seq, json)
        WHERE e.task_id IN (SELECT id FROM saved)
        ON CONFLICT (task_id, last_seq) DO UPDATE SET first_seq = excluded.first_seq, json = excluded.json
      ), trimmed AS (
        -- Sees the log as it was before this statement: never the rows added above.
        DELETE FROM ${schema}.task_events e USING unnest($13::bytea[], $14::bigint[]) AS t (task_id, upto)
        WHERE e.task_id = t.task_id AND e.last_seq <= t.upto AND t.task_id IN (SELECT id FROM saved)
      ), keyed AS (
        -- The first key in the batch wins, as the first batch does over later ones.
        INSERT INTO ${schema}.idempotency_keys (owner, key, fingerprint, task_id, created_at)
        SELECT k.owner, k.key, k.fingerprint, k.task_id, $8::text
        FROM unnest($15::bytea[], $16::bytea[], $17::text[], $18::bytea[]) AS k (owner, key, fingerprint, task_id)
        WHERE k.task_id IN (SELECT id FROM saved)
        ON CONFLICT (owner, key) DO NOTHING
      ), unclaimed AS (
        -- A replica's claim on the key (cluster.ts) is done with once its task is stored.
        UPDATE ${schema}.idempotency_keys i SET claimed_by = NULL
        FROM unnest($15::bytea[], $16::bytea[], $18::bytea[]) AS k (owner, key, task_id)
        WHERE i.owner = k.owner AND i.key = k.key AND i.task_id = k.task_id AND i.claimed_by IS NOT NULL
          AND k.task_id IN (SELECT id FROM saved)
      )
      SELECT 1`,
  };
}

/**
 * Writes `rows` and `logs` with the statement of `batchStatement`, in one round trip;
 * `createdAt` is the time of the batch, for new rows. Within a transaction when `query` is one.
 */
export async function writeBatch(query: Query, statement: Statement, rows: readonly TaskRow[], logs: readonly (readonly [Buffer, LogRows])[], createdAt: string): Promise<void> {
  const events: [Buffer[], number[], number[], string[]] = [[], [], [], []];
  const trims: [Buffer[], number[]] = [[], []];
  const keys: [Buffer[], Buffer[], string[], Buffer[]] = [[], [], [], []];
  for (const [taskId, log] of logs) {
    if (log.events.length > 0) {
      const first = log.events[0]!.seq ?? 0;
      const last = log.events.at(-1)!.seq ?? 0;
      events[0].push(taskId);
      events[1].push(last);
      events[2].push(first);
      events[3].push(JSON.stringify(log.events));
      // Past the limit, the oldest go, once every EVENT_LOG_SLACK events (see ../task-log.ts).
      if (last > EVENT_LOG_LIMIT + EVENT_LOG_SLACK && Math.floor(last / EVENT_LOG_SLACK) !== Math.floor((first - 1) / EVENT_LOG_SLACK)) {
        trims[0].push(taskId);
        trims[1].push(last - EVENT_LOG_LIMIT);
      }
    }
    if (log.idempotency !== undefined) {
      keys[0].push(log.idempotency.owner);
      keys[1].push(log.idempotency.key);
      keys[2].push(log.idempotency.fingerprint);
      keys[3].push(taskId);
    }
  }
  const columns = (pick: (row: TaskRow) => unknown) => rows.map(pick);
  await query(statement, [
    columns((r) => r.id),
    columns((r) => r.contextId),
    columns((r) => r.state),
    columns((r) => r.timestamp),
    columns((r) => r.json),
    columns((r) => r.owner),
    columns((r) => r.runner),
    createdAt,
    ...events,
    ...trims,
    ...keys,
  ]);
}
