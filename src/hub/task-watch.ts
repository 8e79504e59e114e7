// Tasks seen passing through the hub: every relayed answer and stream event is read for a task
// or a status update (1.0 or 0.3, JSON-RPC or HTTP+JSON), and what it says is published on the
// hub's live feed, with the event itself, so a watcher can follow each task as it happens.

import type { HttpResponse } from '../a2a/server/http.js';
import type { HubEvent, HubEvents, TaskSeen } from './hub-events.js';
import { liteTextOf, object } from './task-lite.js';
import { watchedEvents } from './watched-events.js';

/** The most tasks remembered for `GET /hub/v1/tasks`; the oldest are forgotten first. */
const KEPT_TASKS = 500;

export class TaskWatch {
  private readonly tasks = new Map<string, TaskSeen>();

  constructor(private readonly events: HubEvents) {}

  /** The tasks `principal` sent through the hub, newest first, those of `agentId` only when given. */
  list(principal: string, agentId?: string): TaskSeen[] {
    return [...this.tasks.values()].reverse().filter((task) => task.principal === principal && (agentId === undefined || task.agentId === agentId));
  }

  /** `response` to `principal` as it was, reading it on its way to the client. */
  tap(agentId: string, principal: string, response: HttpResponse): HttpResponse {
    if ('body' in response) {
      if (/json/i.test(response.headers['content-type'] ?? '')) this.read(agentId, principal, response.body);
      return response;
    }
    const read = (chunk: string): void => {
      for (const line of chunk.split('\n')) if (line.startsWith('data:')) this.read(agentId, principal, line.slice(5));
    };
    return { ...response, events: watchedEvents(response.events, { chunk: read }) };
  }

  private read(agentId: string, principal: string, text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return;
    }
    const statuses = statusesIn(value);
    for (const found of statuses) {
      const key = `${principal}/${agentId}/${found.taskId}`;
      const task: TaskSeen = { ...this.tasks.get(key), agentId, principal, ...found, updatedAt: new Date().toISOString() };
      // A bar left at its last step would say a finished task is still part-way.
      if (found.state === 'completed') task.progress = 100;
      this.tasks.delete(key);
      this.tasks.set(key, task);
      if (this.tasks.size > KEPT_TASKS) this.tasks.delete(this.tasks.keys().next().value as string);
      const event: HubEvent = { type: 'task', task, event: value };
      // The lite words of one task's event (a list of tasks is shown by its states only), said
      // only when a watcher reads the event: most relayed answers are watched by nobody.
      if (statuses.length === 1) {
        let said: { text: string | undefined } | undefined;
        Object.defineProperty(event, 'lite', { enumerable: true, get: () => (said ??= { text: liteTextOf(value) }).text });
      }
      this.events.publish(event);
    }
  }
}

type Found = Omit<TaskSeen, 'agentId' | 'principal' | 'updatedAt'>;


/** The tasks and status updates in an answer, a stream event or a list. */
function statusesIn(value: unknown): Found[] {
  const top = object(value);
  if (top === undefined) return [];
  const result = object(top.result) ?? top;
  const items = [result.task, result.statusUpdate, result, ...(Array.isArray(result.tasks) ? result.tasks : [])];
  const found: Found[] = [];
  for (const item of items.map(object)) {
    const status = object(item?.status);
    if (item === undefined || status === undefined || typeof status.state !== 'string') continue;
    const taskId = typeof item.taskId === 'string' ? item.taskId : typeof item.id === 'string' ? item.id : undefined;
    if (taskId === undefined) continue;
    const entry: Found = { taskId, state: liteState(status.state) };
    if (typeof item.contextId === 'string') entry.contextId = item.contextId;
    const message = object(status.message);
    const progress = object(object(message?.metadata)?.a2aLite)?.progress;
    if (typeof progress === 'number') entry.progress = progress;
    const words = Array.isArray(message?.parts) ? message.parts.map((part) => object(part)?.text).filter((t): t is string => typeof t === 'string').join('\n') : '';
    if (words !== '') entry.text = words.slice(0, 500);
    found.push(entry);
  }
  return found;
}

/** `TASK_STATE_INPUT_REQUIRED` (1.0) and `input-required` (0.3) alike read as `input-required`. */
function liteState(state: string): string {
  const plain = state.toLowerCase().replace(/^task_state_/, '').replaceAll('_', '-');
  return plain === 'canceled' ? 'cancelled' : plain;
}
