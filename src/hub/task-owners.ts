// Whose task is whose at an agent registered by URL. A connected agent is told who each relayed
// request is from and keeps its callers apart itself; an agent the hub calls at its URL sees
// only the hub. So the hub records, with its registry, which caller's send made each task there,
// keyed by the agent's URL (two ids registered on one URL share its tasks' owners, not its tasks).
// A task the hub has no owner for was not made through it: no caller reaches it through the hub.
// An answer naming another caller's task (a key or message id two callers both used) is refused.

import { statusError } from '../a2a/server/http.js';
import { type HttpResponse } from '../net/http-types.js';
import { LiteError } from '../errors.js';
import type { HubStore } from './hub-store.js';
import { SseParser } from '../net/sse.js';
import { object } from './task-lite.js';

/** The key owners are kept under: the agent's URL without a trailing slash, its host in lower case. */
export function backendOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
  } catch {
    return url;
  }
}

export class TaskOwners {
  constructor(private readonly store: HubStore) {}

  /** Throws TASK_NOT_FOUND unless `principal` made task `taskId` at `backend` through this hub. */
  async check(backend: string, taskId: string, principal: string): Promise<void> {
    if ((await this.store.taskOwner(backend, taskId)) !== principal) throw notFound(taskId);
  }

  /**
   * `response` to a call by `principal`, read on its way: every task it names must be the
   * caller's; a task nobody owns yet is the caller's when `claims` (the answer to its send).
   */
  read(backend: string, principal: string, claims: boolean, response: HttpResponse): Promise<HttpResponse> | HttpResponse {
    const mine = async (value: unknown): Promise<boolean> => {
      for (const taskId of taskIdsIn(value)) {
        const owner = claims ? await this.store.claimTask(backend, taskId, principal) : await this.store.taskOwner(backend, taskId);
        if (owner !== principal) return false;
      }
      return true;
    };
    if ('body' in response) return this.readBody(response, mine);
    return { ...response, events: checkedStream(response.events, mine) };
  }

  /** A list of tasks, blocking answer of ListTasks, with only those `principal` made. */
  async filterList(backend: string, principal: string, response: HttpResponse): Promise<HttpResponse> {
    if (!('body' in response) || response.status !== 200) return response;
    let value: Record<string, unknown> | undefined;
    try {
      value = object(JSON.parse(response.body));
    } catch {
      return response;
    }
    const holder = object(value?.result) ?? value;
    if (value === undefined || holder === undefined || !Array.isArray(holder.tasks)) return response;
    const kept: unknown[] = [];
    for (const task of holder.tasks) {
      const id = object(task)?.id;
      if (typeof id === 'string' && (await this.store.taskOwner(backend, id)) === principal) kept.push(task);
    }
    holder.tasks = kept;
    // A count of everyone's tasks would tell of other callers.
    if ('totalSize' in holder) holder.totalSize = kept.length;
    return { ...response, body: JSON.stringify(value) };
  }

  private async readBody(response: Extract<HttpResponse, { body: string }>, mine: (value: unknown) => Promise<boolean>): Promise<HttpResponse> {
    let value: unknown;
    try {
      value = JSON.parse(response.body);
    } catch {
      return response; // Not JSON: it names no task.
    }
    if (await mine(value)) return response;
    return statusError(502, 'UNAVAILABLE', 'the agent answered with a task of another caller');
  }
}

/** The stream as it comes, each event read whole however it was cut; it stops at an event naming another caller's task. */
async function* checkedStream(events: AsyncIterable<string>, mine: (value: unknown) => Promise<boolean>): AsyncGenerator<string> {
  const parser = new SseParser();
  for await (const chunk of events) {
    for (const event of parser.push(chunk)) {
      let value: unknown;
      try {
        value = JSON.parse(event.data);
      } catch {
        continue;
      }
      if (!(await mine(value))) return;
    }
    yield chunk;
  }
}

function notFound(taskId: string): LiteError {
  return new LiteError('TASK_NOT_FOUND', `no task "${taskId.slice(0, 100)}" for this caller`);
}

/**
 * Every task an answer names, in either version and binding: a task, a status or artifact
 * update, a message of a task, a list. Both spellings of a task id are read, as a client reads them.
 */
export function taskIdsIn(value: unknown): string[] {
  const top = object(value);
  if (top === undefined) return [];
  const result = object(top.result) ?? top;
  const ids = new Set<string>();
  const add = (item: unknown, ...names: string[]): void => {
    const record = object(item);
    if (record === undefined) return;
    for (const name of names) if (typeof record[name] === 'string') ids.add(record[name]);
  };
  add(result.task, 'id');
  add(result.statusUpdate, 'taskId', 'task_id');
  add(result.status_update, 'taskId', 'task_id');
  add(result.artifactUpdate, 'taskId', 'task_id');
  add(result.artifact_update, 'taskId', 'task_id');
  add(result.message, 'taskId', 'task_id');
  add(result, 'taskId', 'task_id');
  // A task itself (REST GetTask, a 0.3 result): an id beside a status.
  if (object(result.status) !== undefined || result.kind === 'task') add(result, 'id');
  if (Array.isArray(result.tasks)) for (const task of result.tasks) add(task, 'id');
  return [...ids];
}
