// Listing tasks in SQL on PostgreSQL: filtered and ordered by the database, newest first, paged
// by the memory store's keyset cursor, with the total and the page read by one statement (so
// from one snapshot, in one round trip).

import type { Task } from '../../model/task.js';
import { decodeCursor, encodeCursor, pageSizeOf, statesOf, type TaskPage, type TaskQuery } from '../paging.js';
import type { PgDatabase } from './connection.js';
import { indexKey, key } from './keys.js';

export class PgListing {
  constructor(
    private readonly db: PgDatabase,
    private readonly schema: string,
  ) {}

  /** One page of tasks matching `query`. */
  async page(query: TaskQuery): Promise<TaskPage> {
    const size = pageSizeOf(query.pageSize);
    const after = query.pageToken ? decodeCursor(query.pageToken) : undefined;
    const states = statesOf(query);
    if (states?.length === 0) return { tasks: [], nextPageToken: '', totalSize: 0 };
    const values: unknown[] = [size + 1];
    const param = (value: unknown): string => `$${values.push(value)}`;
    const where: string[] = [];
    if (query.owner !== undefined) where.push(`owner = ${param(indexKey(query.owner))}`);
    if (query.contextId) where.push(`context_id = ${param(indexKey(query.contextId))}`);
    if (query.updatedAfter) where.push(`status_timestamp >= ${param(indexKey(query.updatedAfter))}`);
    if (states !== undefined) where.push(states.length === 1 ? `state = ${param(states[0])}` : `state = ANY(${param(states)}::text[])`);
    const cursor: string[] = [];
    if (after) {
      const timestamp = param(indexKey(after.timestamp));
      // Strictly after the cursor in newest-first order; the `<=` lets the index seek to it.
      cursor.push(`status_timestamp <= ${timestamp}`, `(status_timestamp < ${timestamp} OR id > ${param(key(after.id))})`);
    }
    const filter = (more: string[]) => (where.length + more.length > 0 ? `WHERE ${[...where, ...more].join(' AND ')}` : '');
    const tasks = `${this.schema}.tasks`;
    const rows = await this.db.query<{ total: string; json: string | null }>(
      'list tasks',
      `SELECT c.total, p.json FROM (SELECT count(*) AS total FROM ${tasks} ${filter([])}) c
       LEFT JOIN LATERAL (SELECT json, status_timestamp, id FROM ${tasks} ${filter(cursor)}
                          ORDER BY status_timestamp DESC, id ASC LIMIT $1) p ON true
       ORDER BY p.status_timestamp DESC, p.id ASC`,
      values,
    );
    const json = rows.flatMap((row) => (row.json === null ? [] : [row.json]));
    const page = json.slice(0, size).map((text) => JSON.parse(text) as Task);
    const last = page.at(-1);
    const more = json.length > size && last !== undefined;
    return { tasks: page, nextPageToken: more ? encodeCursor(last.status.timestamp, last.id) : '', totalSize: Number(rows[0]?.total ?? 0) };
  }
}
