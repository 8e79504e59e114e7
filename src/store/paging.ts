// Listing tasks a page at a time: the query and the page, the newest-first order every store
// lists in, the page size rules, and the page token, which names the last task of a page the same
// way whichever store made it.

import { LiteError } from '../errors.js';
import type { TaskState } from '../protocol/states.js';
import type { Task } from '../model/task.js';

export interface TaskQuery {
  /** Only the tasks of this owner (see `TaskStore.save`); every task when left out. */
  owner?: string;
  contextId?: string;
  /** Only tasks in this state, or in any of these. */
  state?: TaskState | readonly TaskState[];
  /** Only tasks whose status changed at or after this ISO time. */
  updatedAfter?: string;
  /** 1–100; defaults to 50. */
  pageSize?: number;
  /** The `nextPageToken` of the previous page. */
  pageToken?: string;
}

export interface TaskPage {
  tasks: Task[];
  /** Empty on the last page. */
  nextPageToken: string;
  totalSize: number;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

/** The states a query filters on, each once; undefined when it does not filter on state. */
export function statesOf(query: TaskQuery): readonly TaskState[] | undefined {
  if (query.state === undefined) return undefined;
  return typeof query.state === 'string' ? [query.state] : [...new Set(query.state)];
}

/** What paging reads of a listed task. */
interface Listed {
  id: string;
  status: { timestamp: string };
}

/** Newest status first; ties broken by id so that paging is stable. */
export function newestFirst(a: Listed, b: Listed): number {
  if (a.status.timestamp !== b.status.timestamp) return a.status.timestamp < b.status.timestamp ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Cuts one page from tasks sorted newest first, each read into a task of its own by `read`;
 * the cursor names the last task handed out.
 */
export function page<T extends Listed>(sorted: readonly T[], query: TaskQuery, read: (entry: T) => Task): TaskPage {
  const size = pageSizeOf(query.pageSize);
  let start = 0;
  if (query.pageToken) {
    const after = decodeCursor(query.pageToken);
    start = sorted.findIndex((t) => newestFirst(t, { id: after.id, status: { timestamp: after.timestamp } }) > 0);
    if (start === -1) start = sorted.length;
  }
  const tasks = sorted.slice(start, start + size).map(read);
  const last = tasks.at(-1);
  const more = start + size < sorted.length && last !== undefined;
  return { tasks, nextPageToken: more ? encodeCursor(last.status.timestamp, last.id) : '', totalSize: sorted.length };
}

export function pageSizeOf(requested: number | undefined): number {
  if (requested === undefined || requested === 0) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(requested) || requested < 1 || requested > MAX_PAGE_SIZE) {
    throw new LiteError('INVALID_PARAMS', `pageSize must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  }
  return requested;
}

/**
 * The page token naming the last task of a page. Every store hands out the same tokens, so a
 * token means "the tasks after this one in newest-first order" whichever store made it.
 */
export function encodeCursor(timestamp: string, id: string): string {
  return Buffer.from(JSON.stringify([timestamp, id])).toString('base64url');
}

/** The task position a page token names; INVALID_PARAMS for a token no store made. */
export function decodeCursor(token: string): { timestamp: string; id: string } {
  try {
    const [timestamp, id] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown[];
    if (typeof timestamp === 'string' && typeof id === 'string') return { timestamp, id };
  } catch {
    // Fall through to the error below.
  }
  throw new LiteError('INVALID_PARAMS', 'pageToken is not one this server handed out');
}
