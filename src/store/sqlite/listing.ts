// Listing tasks in SQL: filtered and ordered by the database, newest first, paged by the memory
// store's keyset cursor, with the total and the page read from one snapshot. The statements of
// each filter shape are prepared once.

import type { SqliteDatabase, SqliteStatement } from './driver.js';
import { key } from './rows.js';
import { decodeCursor, encodeCursor, pageSizeOf, type TaskPage, type TaskQuery } from '../task-store.js';
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
    const params: Record<string, unknown> = { limit: size + 1 };
    if (query.owner !== undefined) params.owner = key(query.owner);
    if (query.contextId) params.contextId = key(query.contextId);
    if (query.state) params.state = query.state;
    if (query.updatedAfter) params.updatedAfter = key(query.updatedAfter);
    if (after) Object.assign(params, { afterTimestamp: key(after.timestamp), afterId: key(after.id) });
    const { count, rows } = this.statementsFor(query);
    // One read transaction, so the total and the page come from the same snapshot.
    const [totalSize, json] = this.db.transaction((): [number, string[]] => [count.get(params) as number, rows.all(params) as string[]])();
    const tasks = json.slice(0, size).map((j) => JSON.parse(j) as Task);
    const last = tasks.at(-1);
    const more = json.length > size && last !== undefined;
    return { tasks, nextPageToken: more ? encodeCursor(last.status.timestamp, last.id) : '', totalSize };
  }

  private statementsFor(query: TaskQuery): { count: SqliteStatement; rows: SqliteStatement } {
    const where: string[] = [];
    if (query.owner !== undefined) where.push('owner = @owner');
    if (query.contextId) where.push('context_id = @contextId');
    if (query.state) where.push('state = @state');
    if (query.updatedAfter) where.push('status_timestamp >= @updatedAfter');
    const shape = `${where.join(' AND ')}|${query.pageToken ? 'after' : ''}`;
    let statements = this.statements.get(shape);
    if (statements === undefined) {
      const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
      // Strictly after the cursor in newest-first order. The `<=` is implied by the OR, and
      // is there so that SQLite can seek the index instead of scanning to the cursor.
      const page = query.pageToken
        ? `${filter ? `${filter} AND` : 'WHERE'} status_timestamp <= @afterTimestamp
           AND (status_timestamp < @afterTimestamp OR id > @afterId)`
        : filter;
      statements = {
        count: this.db.prepare(`SELECT count(*) FROM tasks ${filter}`).pluck(),
        rows: this.db.prepare(`SELECT json FROM tasks ${page} ${NEWEST_FIRST} LIMIT @limit`).pluck(),
      };
      this.statements.set(shape, statements);
    }
    return statements;
  }
}
