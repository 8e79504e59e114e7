import { describe, expect, it } from 'vitest';
import { jiajiaCard } from '../../card/examples.js';
import { LiteError } from '../../errors.js';
import { createAgent } from '../../runtime/agent.js';
import { EventQueue } from '../../runtime/event-queue.js';
import type { TaskEvent } from '../../model/task.js';
import { createA2AHandler } from './handler.js';
import type { HttpRequest } from '../../net/http-types.js';
import { mapEvents, type MapEventsOptions } from './map-events.js';

/** A source that gives `items`, then fails with `error` (if any), and counts its `return()` calls. */
function source<T>(items: T[], error?: unknown): AsyncIterable<T> & { returned: number } {
  const iterable = {
    returned: 0,
    [Symbol.asyncIterator](): AsyncIterator<T> {
      const queue = [...items];
      return {
        next: async () => {
          if (queue.length > 0) return { value: queue.shift() as T, done: false };
          if (error !== undefined) throw error;
          return { value: undefined, done: true };
        },
        return: async () => {
          iterable.returned += 1;
          return { value: undefined, done: true };
        },
      };
    },
  };
  return iterable;
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe('mapEvents', () => {
  it('closes the source at once when closed while a next() waits', async () => {
    let closed = 0;
    const queue = new EventQueue<number>(() => (closed += 1));
    const doubled = mapEvents(mapEvents(queue, (n) => n * 2), String)[Symbol.asyncIterator]();
    queue.push(1);
    expect(await doubled.next()).toEqual({ value: '2', done: false });
    const pending = doubled.next();
    await doubled.return?.();
    // An async generator would still wait here for the queue's next item.
    expect(closed).toBe(1);
    expect(await pending).toEqual({ value: undefined, done: true });
    expect(await doubled.next()).toEqual({ value: undefined, done: true });
  });

  it.each<[string, AsyncIterable<number>, MapEventsOptions<string>, string[]]>([
    ['maps every item', source([1, 2, 3]), {}, ['1', '2', '3']],
    ['adds the closing item of onEnd', source([1]), { onEnd: () => 'end' }, ['1', 'end']],
    ['adds nothing when onEnd gives nothing', source([1]), { onEnd: () => undefined }, ['1']],
    ['turns a failure into one last item', source([1], new Error('boom')), { onError: (e) => `error: ${(e as Error).message}` }, ['1', 'error: boom']],
  ])('%s', async (_what, items, options, expected) => {
    expect(await collect(mapEvents(items, String, options))).toEqual(expected);
  });

  it('throws a failure of the source when there is no onError', async () => {
    await expect(collect(mapEvents(source([1], new LiteError('INTERNAL', 'broken')), String))).rejects.toMatchObject({ code: 'INTERNAL', message: 'broken' });
  });

  it('closes the source when fn throws, as for await does', async () => {
    const items = source([1, 2]);
    const fail = (n: number): string => {
      if (n === 2) throw new Error('bad item');
      return String(n);
    };
    expect(await collect(mapEvents(items, fail, { onError: (e) => `error: ${(e as Error).message}` }))).toEqual(['1', 'error: bad item']);
    expect(items.returned).toBe(1);
  });

  it('closes the source when its signal fires, and gives nothing after', async () => {
    let closed = 0;
    const queue = new EventQueue<number>(() => (closed += 1));
    const abort = new AbortController();
    const mapped = mapEvents(queue, String, { signal: abort.signal })[Symbol.asyncIterator]();
    const pending = mapped.next();
    abort.abort();
    expect(closed).toBe(1);
    expect(await pending).toEqual({ value: undefined, done: true });
  });

  it('closes the source at once when its signal fired before', async () => {
    let closed = 0;
    const queue = new EventQueue<number>(() => (closed += 1));
    queue.push(1);
    const mapped = mapEvents(queue, String, { signal: AbortSignal.abort() })[Symbol.asyncIterator]();
    expect(closed).toBe(1);
    expect(await mapped.next()).toEqual({ value: undefined, done: true });
  });
});

describe('a stream that fails midway', () => {
  const agent = createAgent({ card: jiajiaCard(), onTask: () => 'done' });
  const task = { id: 't1', contextId: 'c1', status: { state: 'working' as const, timestamp: '2025-01-01T00:00:00.000Z' }, history: [], artifacts: [] };
  // The runtime never fails a stream today; a source that does stands in for a future one.
  agent.subscribe = async () => source<TaskEvent>([{ kind: 'task', task }], new LiteError('TASK_NOT_FOUND', 'the task went away'));
  const handle = createA2AHandler({ agent, baseUrl: 'http://127.0.0.1' });
  const request = (path: string, method: string, body: string, version: string): HttpRequest => ({
    method,
    path,
    query: new URLSearchParams(),
    headers: { 'content-type': 'application/json', 'a2a-version': version },
    body,
  });
  const rpc = (method: string, version: string) => request('/jsonrpc', 'POST', JSON.stringify({ jsonrpc: '2.0', id: 9, method, params: { id: 't1' } }), version);

  it.each([
    ['JSON-RPC 1.0', rpc('SubscribeToTask', '1.0'), { jsonrpc: '2.0', id: 9, error: { code: -32001, message: 'the task went away' } }],
    ['JSON-RPC 0.3', rpc('tasks/resubscribe', '0.3'), { jsonrpc: '2.0', id: 9, error: { code: -32001, message: 'the task went away' } }],
    ['REST', request('/tasks/t1:subscribe', 'GET', '', '1.0'), { error: { code: 404, status: 'NOT_FOUND', message: 'the task went away' } }],
  ])('%s: ends with an error event carrying the error envelope', async (_what, req, envelope) => {
    const response = await handle(req);
    if (!('events' in response)) throw new Error('expected a stream');
    const events = await collect(response.events);
    expect(events).toHaveLength(2);
    expect(events[0]).toMatch(/^data: /);
    expect(events[1]).toMatch(/^event: error\ndata: /);
    expect(JSON.parse((events[1] as string).replace(/^event: error\ndata: /, ''))).toMatchObject(envelope);
  });
});
