// Listing tasks in SQL: filtered and ordered by the database, newest first, paged by the memory
// store's keyset cursor, with the total and the page read from one snapshot. The statements of
// each filter shape are prepared once.

import type { SqliteDatabase, SqliteStatement } from './driver.js';
import { key } from './rows.js';
import { decodeCursor, encodeCursor, pageSizeOf, statesOf, type TaskPage, type TaskQuery } from '../task-store.js';
import type { Task } from '../../model/task.js';

/** The newest-first order of the memory store's `newestFirst`, as SQL. */
const NEWEST_FIRST = 'ORDER BY status_timestamp DESC, id ASC';

export class SqliteListing {
  /** List statements by filter shape, prepared on first use. */
  private readonly statements = new Map<string, { count: SqliteStatement; rows: SqliteStatement }>();

  constructor(private readonly db: SqliteDatabase) {}

  /** One page of tasks matching `query`. */
  page(query: TaskQuery): TaskPage {
    const size = pageSizeOf(query.pageSize);
    const after = query.pageToken ? decodeCursor(query.pageToken) : undefined;
    const states = statesOf(query);
    if (states?.length === 0) return { tasks: [], nextPageToken: '', totalSize: 0 };
    const params: Record<string, unknown> = { limit: size + 1 };
    if (query.owner !== undefined) params.owner = key(query.owner);
    if (query.contextId) params.contextId = key(query.contextId);
    states?.forEach((state, i) => (params[`state${i}`] = state));
    if (query.updatedAfter) params.updatedAfter = key(query.updatedAfter);
    if (after) Object.assign(params, { afterTimestamp: key(after.timestamp), afterId: key(after.id) });
    const { count, rows } = this.statementsFor(query, states?.length ?? 0);
    // One read transaction, so the total and the page come from the same snapshot.
    const [totalSize, json] = this.db.transaction((): [number, string[]] => [count.get(params) as number, rows.all(params) as string[]])();
    const tasks = json.slice(0, size).map((j) => JSON.parse(j) as Task);
    const last = tasks.at(-1);
    const more = json.length > size && last !== undefined;
    return { tasks, nextPageToken: more ? encodeCursor(last.status.timestamp, last.id) : '', totalSize };
  }

  /** The statements for the query's filters and `states` states (0: any state). */
  private statementsFor(query: TaskQuery, states: number): { count: SqliteStatement; rows: SqliteStatement } {
    const sql = listingSql(query, states);
    let statements = this.statements.get(sql.rows);
    if (statements === undefined) {
      statements = { count: this.db.prepare(sql.count).pluck(), rows: this.db.prepare(sql.rows).pluck() };
      this.statements.set(sql.rows, statements);
    }
    return statements;
  }
}

/**
 * The SQL that counts the tasks `query` matches and reads a page of them (as `json` first
 * column), for a filter on `states` states (0: any state); the states are `@state0`, `@state1`…
 */
export function listingSql(query: TaskQuery, states: number): { count: string; rows: string } {
  const where: string[] = [];
  if (query.owner !== undefined) where.push('owner = @owner');
  if (query.contextId) where.push('context_id = @contextId');
  if (query.updatedAfter) where.push('status_timestamp >= @updatedAfter');
  // Strictly after the cursor in newest-first order. The `<=` is implied by the OR, and is there
  // so that SQLite can seek the index instead of scanning to the cursor.
  const cursor = query.pageToken ? ['status_timestamp <= @afterTimestamp', '(status_timestamp < @afterTimestamp OR id > @afterId)'] : [];
  const filter = (...more: string[]) => (where.length + more.length > 0 ? `WHERE ${[...more, ...where].join(' AND ')}` : '');
  const names = Array.from({ length: states }, (_, i) => `@state${i}`);
  const inStates = states === 0 ? [] : [states === 1 ? 'state = @state0' : `state IN (${names.join(', ')})`];
  // Several states are one newest-first walk of tasks_by_state (state, status_timestamp, id) per
  // state, merged: SQLite merges the ordered arms of a UNION ALL as they come, where
  // `state IN (…)` would read every matching row and sort them all to find the first page.
  const rows =
    states <= 1
      ? `SELECT json FROM tasks ${filter(...inStates, ...cursor)} ${NEWEST_FIRST} LIMIT @limit`
      : `${names.map((name) => `SELECT json, status_timestamp, id FROM tasks ${filter(`state = ${name}`, ...cursor)}`).join(' UNION ALL ')} ${NEWEST_FIRST} LIMIT @limit`;
  return { count: `SELECT count(*) FROM tasks ${filter(...inStates)}`, rows };
}
