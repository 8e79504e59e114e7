// A client's calls through a hub for the cluster tests, over A2A 1.0's HTTP+JSON binding: a
// blocking send, a streamed send, get, cancel and subscribe, and the hub's live feed, each stream
// read as it comes (its events fill in while the test goes on).
import { randomUUID } from 'node:crypto';
import { SseParser } from '../../src/net/sse.js';

/** The headers of a 1.0 call, with `token` when given. */
export function v1(token?: string): Record<string, string> {
  return { 'content-type': 'application/json', 'a2a-version': '1.0', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) };
}

/** A message for `text`, continuing task `taskId` when given. */
function message(text: string, taskId?: string): Record<string, unknown> {
  return { message: { messageId: `m-${randomUUID()}`, role: 'ROLE_USER', parts: [{ text }], ...(taskId === undefined ? {} : { taskId }) } };
}

export interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function reply(response: Response): Promise<Reply> {
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text };
  }
  return { status: response.status, headers: response.headers, body };
}

/** A blocking SendMessage to agent `id` at `hub`. */
export async function send(hub: string, id: string, text: string, options: { token?: string; taskId?: string } = {}): Promise<Reply> {
  return reply(await fetch(`${hub}/agents/${id}/message:send`, { method: 'POST', headers: v1(options.token), body: JSON.stringify(message(text, options.taskId)) }));
}

export async function getTask(hub: string, id: string, taskId: string, token?: string): Promise<Reply> {
  return reply(await fetch(`${hub}/agents/${id}/tasks/${taskId}`, { headers: v1(token) }));
}

export async function cancelTask(hub: string, id: string, taskId: string, token?: string): Promise<Reply> {
  return reply(await fetch(`${hub}/agents/${id}/tasks/${taskId}:cancel`, { method: 'POST', headers: v1(token), body: JSON.stringify({}) }));
}

export interface Followed {
  /** The HTTP status, once the head came. */
  status: Promise<number>;
  /** Each event's data, parsed, as it came. */
  events: Record<string, unknown>[];
  /** Each event's id, as it came. */
  ids: string[];
  /** Resolves when the stream ends (by the server, or `stop`). */
  ended: Promise<void>;
  stop(): void;
}

/** Reads the event stream of `url` in the background. */
export function follow(url: string, init: RequestInit = {}): Followed {
  const stopper = new AbortController();
  const events: Record<string, unknown>[] = [];
  const ids: string[] = [];
  let status: (code: number) => void = () => undefined;
  const head = new Promise<number>((resolve) => (status = resolve));
  const ended = (async () => {
    const response = await fetch(url, { ...init, signal: stopper.signal });
    status(response.status);
    const parser = new SseParser();
    const decoder = new TextDecoder();
    for await (const bytes of response.body as AsyncIterable<Uint8Array>) {
      for (const event of parser.push(decoder.decode(bytes, { stream: true }))) {
        ids.push(event.id);
        events.push({ ...(JSON.parse(event.data) as Record<string, unknown>), ...(event.event === 'message' ? {} : { event: event.event }) });
      }
    }
  })().catch(() => status(0));
  return { status: head, events, ids, ended, stop: () => stopper.abort() };
}

/** A streamed SendMessage to agent `id`. */
export function stream(hub: string, id: string, text: string, token?: string): Followed {
  return follow(`${hub}/agents/${id}/message:stream`, { method: 'POST', headers: v1(token), body: JSON.stringify(message(text)) });
}

/** SubscribeToTask, resuming after `lastEventId` when given. */
export function subscribe(hub: string, id: string, taskId: string, options: { token?: string; lastEventId?: string } = {}): Followed {
  return follow(`${hub}/agents/${id}/tasks/${taskId}:subscribe`, { method: 'POST', headers: { ...v1(options.token), ...(options.lastEventId === undefined ? {} : { 'last-event-id': options.lastEventId }) }, body: '{}' });
}

/** The hub's live feed, as the console reads it. */
export function feed(hub: string, token?: string, lastEventId?: string): Followed {
  return follow(`${hub}/hub/v1/events`, { headers: { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) } });
}

/** The task id and state a stream event or an answer names. */
export function stateOf(value: Record<string, unknown>): { taskId?: string; state?: string } {
  const holder = (value.task ?? value.statusUpdate ?? value) as { id?: string; taskId?: string; status?: { state?: string } };
  return { taskId: holder.taskId ?? holder.id, state: holder.status?.state };
}

/** Polls `check` every 25 ms until it gives a value, at most `ms`. */
export async function until<T>(check: () => Promise<T | undefined | false> | T | undefined | false, ms = 10_000, what = 'the condition'): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
