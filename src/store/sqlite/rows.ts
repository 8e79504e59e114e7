// How a task becomes a row. Ids, context ids and timestamps are UTF-16BE bytes (see `key`), so
// that SQL orders and compares them exactly as JavaScript compares strings.

import type { TaskState } from '../../protocol/states.js';
import type { Task } from '../../model/task.js';

/** A task row but for created_at: id, context_id, state, status_timestamp, json, owner. */
export type Row = [Buffer, Buffer, TaskState, Buffer, string, Buffer | null];

/** The task's row, its JSON a snapshot taken now. */
export function rowOf(task: Task, owner: Buffer | null): Row {
  return [key(task.id), key(task.contextId), task.status.state, key(task.status.timestamp), JSON.stringify(task), owner];
}

export function ownerKey(owner: string | undefined): Buffer | null {
  return owner === undefined ? null : key(owner);
}

/**
 * About how many WAL pages committing `rows` writes: a few index and table pages per row (ids
 * are random, so each lands on pages of its own), and the JSON itself.
 */
export function walPagesOf(rows: readonly Row[]): number {
  let pages = 0;
  for (const row of rows) pages += 3 + (row[4].length >>> 12);
  return pages;
}

/** A string as UTF-16BE bytes, whose byte order is JavaScript's string order. */
export function key(text: string): Buffer {
  return Buffer.from(text, 'utf16le').swap16();
}

/** The string `key` made the bytes of. */
export function unkey(bytes: Buffer): string {
  return Buffer.from(bytes).swap16().toString('utf16le');
}
