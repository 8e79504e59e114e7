// Whose task is whose at an agent registered by URL. A connected agent is told who each relayed
// request is from and keeps its callers apart itself; an agent the hub calls at its URL sees
// only the hub. So the hub remembers which caller's send made each task there (read from the
// answer, blocking or streamed), answers another caller who names that task "task not found",
// as an agent would, and shows each caller only their own tasks in a list.

import type { HttpResponse } from '../a2a/server/http.js';
import { LiteError } from '../errors.js';
import { answerValues, object } from './task-lite.js';
import { statusesIn } from './task-watch.js';
import { watchedEvents } from './watched-events.js';

/** Tasks remembered; the oldest are forgotten first (their ids alone then protect them). */
const REMEMBERED = 50_000;

const TASK_METHODS = new Set([
  'GetTask', 'CancelTask', 'SubscribeToTask', 'CreateTaskPushNotificationConfig', 'GetTaskPushNotificationConfig', 'ListTaskPushNotificationConfigs', 'DeleteTaskPushNotificationConfig',
  'tasks/get', 'tasks/cancel', 'tasks/resubscribe', 'tasks/pushNotificationConfig/set', 'tasks/pushNotificationConfig/get', 'tasks/pushNotificationConfig/list', 'tasks/pushNotificationConfig/delete',
]);
const SENDS = new Set(['SendMessage', 'SendStreamingMessage', 'message/send', 'message/stream']);

/** What a request does with tasks: names one (reading, cancelling, continuing it), lists them, or neither. */
export type TaskUse = { kind: 'task'; taskId: string } | { kind: 'list' } | { kind: 'send' } | undefined;

/** How `method path body` uses tasks, in any binding (1.0 JSON-RPC and HTTP+JSON, 0.3 JSON-RPC). */
export function taskUse(method: string, path: string, body: string): TaskUse {
  if (path === '/jsonrpc' || path === '/') {
    let envelope: Record<string, unknown> | undefined;
    try {
      envelope = object(JSON.parse(body));
    } catch {
      return undefined;
    }
    const name = envelope?.method;
    const params = object(envelope?.params);
    if (typeof name !== 'string' || params === undefined) return undefined;
    if (name === 'ListTasks') return { kind: 'list' };
    if (TASK_METHODS.has(name)) {
      // 1.0 names the task `taskId` in push config calls (`id` is the config's); 0.3 and the rest, `id`.
      const id = typeof params.taskId === 'string' ? params.taskId : params.id;
      return typeof id === 'string' ? { kind: 'task', taskId: id } : undefined;
    }
    if (SENDS.has(name)) return continued(params.message) ?? { kind: 'send' };
    return undefined;
  }
  const task = /\/tasks\/([^/:]+)/.exec(path);
  if (task !== null) return { kind: 'task', taskId: decodeURIComponent(task[1] as string) };
  if (method === 'GET' && /\/tasks\/?$/.test(path)) return { kind: 'list' };
  if (method === 'POST' && /\/message:(?:send|stream)$/.test(path)) {
    try {
      return continued(object(JSON.parse(body))?.message) ?? { kind: 'send' };
    } catch {
      return { kind: 'send' };
    }
  }
  return undefined;
}

/** A send that continues a task names it in `message.taskId`. */
function continued(message: unknown): TaskUse {
  const taskId = object(message)?.taskId;
  return typeof taskId === 'string' && taskId !== '' ? { kind: 'task', taskId } : undefined;
}

export class TaskOwners {
  private readonly owners = new Map<string, string>();

  /** Throws TASK_NOT_FOUND when `taskId` at `agentId` was made by another caller than `principal`. */
  check(agentId: string, taskId: string, principal: string): void {
    const owner = this.owners.get(`${agentId}\n${taskId}`);
    if (owner !== undefined && owner !== principal) throw new LiteError('TASK_NOT_FOUND', `no task "${taskId.slice(0, 100)}" at agent ${agentId} for this caller`);
  }

  /** `response` to a send by `principal`, read on its way for the tasks it makes. */
  learn(agentId: string, principal: string, response: HttpResponse): HttpResponse {
    const read = (text: string, stream: boolean): void => {
      for (const value of answerValues(text, stream)) for (const { taskId } of statusesIn(value)) this.claim(agentId, taskId, principal);
    };
    if ('body' in response) {
      read(response.body, false);
      return response;
    }
    return { ...response, events: watchedEvents(response.events, { chunk: (chunk) => read(chunk, true) }) };
  }

  /** A list of tasks, blocking answer of ListTasks, with only those `principal` made. */
  filterList(agentId: string, principal: string, response: HttpResponse): HttpResponse {
    if (!('body' in response) || response.status !== 200) return response;
    try {
      const value = JSON.parse(response.body) as Record<string, unknown>;
      const holder = object(value.result) ?? value;
      if (!Array.isArray(holder.tasks)) return response;
      const mine = holder.tasks.filter((task) => {
        const id = object(task)?.id;
        return typeof id === 'string' && this.owners.get(`${agentId}\n${id}`) === principal;
      });
      holder.tasks = mine;
      // A count of everyone's tasks would tell of other callers.
      if ('totalSize' in holder) holder.totalSize = mine.length;
      return { ...response, body: JSON.stringify(value) };
    } catch {
      return response;
    }
  }

  private claim(agentId: string, taskId: string, principal: string): void {
    const key = `${agentId}\n${taskId}`;
    // The first caller a task was answered to made it.
    if (this.owners.has(key)) return;
    this.owners.set(key, principal);
    if (this.owners.size > REMEMBERED) this.owners.delete(this.owners.keys().next().value as string);
  }
}
