// Tasks seen passing through the hub: every relayed answer and stream event is read for a task
// or a status update (1.0 or 0.3, JSON-RPC or HTTP+JSON), and what it says is published on the
// hub's live feed, with the event itself, so a watcher can follow each task as it happens.
// While nobody follows the feed, answers are kept unread and read when someone asks for the
// tasks or starts watching: most relayed answers are never looked at, and reading each one was
// a tenth of the relay's work. Only the newest are kept unread, enough for the tasks listed.

import type { HttpResponse } from '../net/http-types.js';
import { SseParser } from '../net/sse.js';
import type { HubEvent, HubEvents, TaskSeen } from './hub-events.js';
import { answerValue, liteTextOf, object } from './task-lite.js';
import { watchedEvents } from './watched-events.js';

/** The most tasks remembered for `GET /hub/v1/tasks`; the oldest are forgotten first. */
const KEPT_TASKS = 500;
/** The most answers kept unread; the oldest are dropped first. */
const UNREAD = 2 * KEPT_TASKS;
/** The most text kept unread: past it, what is kept is read at once (and then let go). */
export const UNREAD_BYTES = 8 * 1024 * 1024;

/** An answer, or the data of one event of a stream, as relayed at `at`. */
interface Unread {
  agentId: string;
  principal: string;
  text: string;
  at: number;
}

export class TaskWatch {
  private readonly tasks = new Map<string, TaskSeen>();
  /** A ring of the newest answers not read yet: `count` of them, the oldest at `first`. */
  private readonly unread: (Unread | undefined)[] = new Array<Unread | undefined>(UNREAD);
  private first = 0;
  private count = 0;
  /** The length of the text kept unread (UTF-16 units, about its bytes). */
  private kept = 0;

  constructor(private readonly events: HubEvents) {
    events.beforeWatch(() => this.catchUp());
  }

  /** The tasks `principal` sent through the hub, newest first, those of `agentId` only when given. */
  list(principal: string, agentId?: string): TaskSeen[] {
    this.catchUp();
    return [...this.tasks.values()].reverse().filter((task) => task.principal === principal && (agentId === undefined || task.agentId === agentId));
  }

  /** `response` to `principal` as it was, reading it on its way to the client. */
  tap(agentId: string, principal: string, response: HttpResponse): HttpResponse {
    if ('body' in response) {
      if (/json/i.test(response.headers['content-type'] ?? '')) this.note({ agentId, principal, text: response.body, at: Date.now() });
      return response;
    }
    // Each event read whole however the stream was cut; a stream the reader refuses (an event
    // over its limit) is no longer watched, and still reaches its client as it is.
    let parser: SseParser | undefined = new SseParser();
    const read = (chunk: string): void => {
      try {
        for (const event of parser?.push(chunk) ?? []) this.note({ agentId, principal, text: event.data, at: Date.now() });
      } catch {
        parser = undefined;
      }
    };
    return { ...response, events: watchedEvents(response.events, { chunk: read }) };
  }

  /** How much answer text is kept unread now. */
  get keptText(): number {
    return this.kept;
  }

  /**
   * Reads `answer` now if someone follows the feed, or keeps it for later. However large the
   * answers, no more than UNREAD_BYTES of them are kept: reaching it, all are read at once.
   */
  private note(answer: Unread): void {
    if (this.events.followed || this.kept + answer.text.length > UNREAD_BYTES) {
      this.catchUp();
      this.readAnswer(answer);
      return;
    }
    // Full: the newest takes the oldest one's place.
    const slot = (this.first + this.count) % UNREAD;
    this.kept += answer.text.length - (this.unread[slot]?.text.length ?? 0);
    this.unread[slot] = answer;
    if (this.count < UNREAD) this.count += 1;
    else this.first = (this.first + 1) % UNREAD;
  }

  /** Reads what was kept unread, in the order it came. */
  private catchUp(): void {
    const unread: Unread[] = [];
    for (let i = 0; i < this.count; i += 1) {
      const at = (this.first + i) % UNREAD;
      unread.push(this.unread[at] as Unread);
      this.unread[at] = undefined;
    }
    this.first = 0;
    this.count = 0;
    this.kept = 0;
    for (const answer of unread) this.readAnswer(answer);
  }

  private readAnswer({ agentId, principal, text, at }: Unread): void {
    const value = answerValue(text);
    if (value !== undefined) this.read(agentId, principal, value, at);
  }

  private read(agentId: string, principal: string, value: unknown, at: number): void {
    const statuses = statusesIn(value);
    for (const found of statuses) {
      const key = `${principal}/${agentId}/${found.taskId}`;
      const task: TaskSeen = { ...this.tasks.get(key), agentId, principal, ...found, updatedAt: new Date(at).toISOString() };
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
      this.events.publish(event, at);
    }
  }
}

type Found = Omit<TaskSeen, 'agentId' | 'principal' | 'updatedAt'>;


/** The tasks and status updates in an answer, a stream event or a list. */
export function statusesIn(value: unknown): Found[] {
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
