import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2AHandler } from '../a2a/handler.js';
import { jiajiaCard } from '../card/examples.js';
import { createAgent } from '../runtime/agent.js';
import { listen, type Listening } from './node-http.js';

let server: Listening;
let release = () => {};
const gate = new Promise<void>((resolve) => (release = resolve));

beforeAll(async () => {
  const agent = createAgent({
    card: jiajiaCard(),
    async onTask(_task, ctx) {
      await ctx.status('working', { message: 'started' });
      await gate;
      return 'finished';
    },
  });
  let url = '';
  server = await listen(createA2AHandler({ agent, baseUrl: () => url }), { maxBodyBytes: 1000 });
  url = server.url;
});

afterAll(async () => {
  release();
  await server.close();
});

describe('the node:http adapter', () => {
  it('refuses a body over the limit with 413 and stores nothing', async () => {
    const response = await fetch(`${server.url}/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x'.repeat(5000) }] } } }),
    });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { status: string } }).error.status).toBe('PAYLOAD_TOO_LARGE');
  });

  it('sends each stream event when it happens, not when the task ends', async () => {
    const response = await fetch(`${server.url}/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: { messageId: 's', role: 'ROLE_USER', parts: [{ text: 'go' }] } } }),
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    while ((text.match(/\n\n/g) ?? []).length < 2) text += decoder.decode((await reader.read()).value);
    // The task is still waiting on the gate: these two events arrived while it runs.
    expect(text).toContain('"task"');
    expect(text).toContain('started');
    release();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value);
    expect(text).toContain('TASK_STATE_COMPLETED');
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads a stream's first event and returns its JSON. */
async function firstEvent(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<Record<string, unknown>> {
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes('\n\n')) {
    const chunk = await reader.read();
    if (chunk.done) throw new Error(`the stream ended after ${JSON.stringify(text)}`);
    text += decoder.decode(chunk.value, { stream: true });
  }
  return JSON.parse(text.slice(text.indexOf('data: ') + 6, text.indexOf('\n\n'))) as Record<string, unknown>;
}

/** Polls until `count()` is 0 or `ms` have passed; returns the last count. */
async function dropsToZero(count: () => number, ms: number): Promise<number> {
  const deadline = Date.now() + ms;
  while (count() > 0 && Date.now() < deadline) await sleep(10);
  return count();
}

describe('clients that go away', () => {
  const quiet = createAgent({
    card: jiajiaCard(),
    // Says it is working, then stays quiet until it is cancelled: no event would end a stream.
    onTask: (_task, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', resolve)),
  });
  let quietServer: Listening;
  beforeAll(async () => {
    quietServer = await listen(createA2AHandler({ agent: quiet, baseUrl: 'http://127.0.0.1' }));
  });
  afterAll(async () => {
    await quiet.shutdown();
    await quietServer.close();
  });

  const rpc = (version: string, method: string, params: unknown): RequestInit => ({
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': version },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const N = 50;

  it.each([
    ['SubscribeToTask (1.0)', (id: string) => ['/jsonrpc', rpc('1.0', 'SubscribeToTask', { id })] as const],
    ['tasks/resubscribe (0.3)', (id: string) => ['/jsonrpc', rpc('0.3', 'tasks/resubscribe', { id })] as const],
    ['GET /tasks/{id}:subscribe (REST)', (id: string) => [`/tasks/${id}:subscribe`, { headers: { 'a2a-version': '1.0' } }] as const],
  ])('%s: the task drops every subscriber as soon as its client disconnects', async (_what, requestFor) => {
    const task = await quiet.send({ messageId: `q-${Math.random()}`, role: 'user', parts: [{ kind: 'text', text: 'wait' }] }, { returnImmediately: true });
    const clients = await Promise.all(
      Array.from({ length: N }, async () => {
        const abort = new AbortController();
        const [path, init] = requestFor(task.id);
        const response = await fetch(`${quietServer.url}${path}`, { ...init, signal: abort.signal });
        await firstEvent((response.body as ReadableStream<Uint8Array>).getReader());
        return abort;
      }),
    );
    expect(quiet.subscribers(task.id)).toBe(N);
    for (const client of clients) client.abort();
    // Before the fix they stayed until the task's next event, which a quiet task never sends.
    expect(await dropsToZero(() => quiet.subscribers(task.id), 1000)).toBe(0);
    await quiet.cancel(task.id);
  });

  it('drops the subscriber of a streaming send whose client disconnects', async () => {
    const ids: string[] = [];
    const clients = await Promise.all(
      Array.from({ length: N }, async (_, n) => {
        const abort = new AbortController();
        const message = { messageId: `s-${n}`, role: 'ROLE_USER', parts: [{ text: 'wait' }] };
        const response = await fetch(`${quietServer.url}/jsonrpc`, { ...rpc('1.0', 'SendStreamingMessage', { message }), signal: abort.signal });
        const first = await firstEvent((response.body as ReadableStream<Uint8Array>).getReader());
        ids.push((first.result as { task: { id: string } }).task.id);
        return abort;
      }),
    );
    const total = () => ids.reduce((sum, id) => sum + quiet.subscribers(id), 0);
    expect(total()).toBe(N);
    for (const client of clients) client.abort();
    expect(await dropsToZero(total, 1000)).toBe(0);
    await Promise.all(ids.map((id) => quiet.cancel(id)));
  });
});

describe('a slow reader', () => {
  const EVENTS = 3000;
  const chatty = createAgent({
    card: jiajiaCard(),
    async onTask(_task, ctx) {
      // About 2 KB per event (the eta), kept out of the history so the task stays small.
      for (let n = 0; n < EVENTS; n += 1) await ctx.status('working', { progress: n % 100, eta: `${n}`.padEnd(2000, '.') });
      return 'done';
    },
  });

  it('makes the stream wait for the socket without piling up listeners', async () => {
    const chattyServer = await listen(createA2AHandler({ agent: chatty, baseUrl: 'http://127.0.0.1' }));
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    let response: ServerResponse | undefined;
    chattyServer.server.on('request', (_req, res: ServerResponse) => (response = res));
    try {
      const message = { messageId: 'slow', role: 'ROLE_USER', parts: [{ text: 'talk' }] };
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message } });
      const reply = await fetch(`${chattyServer.url}/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body });
      const reader = (reply.body as ReadableStream<Uint8Array>).getReader();
      let most = 0;
      let bytes = 0;
      let waits = 0;
      response?.on('drain', () => (waits += 1));
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        bytes += chunk.value.length;
        most = Math.max(most, response?.listenerCount('close') ?? 0);
        await sleep(10);
      }
      expect(bytes).toBeGreaterThan(EVENTS * 2000);
      // The reader was slow enough that the server waited for it many times...
      expect(waits).toBeGreaterThan(20);
      // ...and each wait took its listeners away again (before the fix: one more per wait).
      expect(most).toBeLessThan(5);
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await chattyServer.close();
    }
  });
});
