import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2AHandler } from '../a2a/server/handler.js';
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
    expect(response.headers.get('content-type')).toBe('application/a2a+json');
    expect(((await response.json()) as { error: { status: string } }).error.status).toBe('RESOURCE_EXHAUSTED');
  });

  it('reads a path that starts with two slashes as a path, not as a host, and a target that is no URL as no route', async () => {
    // Resolved against a base URL, `//` names a host and `//` alone none: those answered 500.
    const answers: string[] = [];
    for (const target of ['//', '//jsonrpc', '//x/../.well-known/agent-card.json', 'http://[/jsonrpc']) {
      const text = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
        let got = '';
        socket.on('data', (chunk: Buffer) => (got += chunk.toString('latin1')));
        socket.on('end', () => resolve(got));
        socket.on('error', reject);
        socket.end(`GET ${target} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`);
      });
      answers.push(`${target} ${text.slice(9, 12)}`);
    }
    expect(answers).toEqual(['// 404', '//jsonrpc 404', '//x/../.well-known/agent-card.json 404', 'http://[/jsonrpc 404']);
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
    expect(await dropsToZero(() => quiet.subscribers(task.id), 10_000)).toBe(0);
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
    expect(await dropsToZero(total, 10_000)).toBe(0);
    await Promise.all(ids.map((id) => quiet.cancel(id)));
  });
});

describe('a slow reader', () => {
  const EVENT_BYTES = 2000;
  const chatty = createAgent({
    card: jiajiaCard(),
    async onTask(task, ctx) {
      // "talk N": N events of about 2 KB (the eta, kept out of the history so the task stays
      // small), as fast as the agent can. "big N": one result of N bytes.
      const [verb, count] = task.text.split(' ');
      if (verb === 'big') return 'x'.repeat(Number(count));
      for (let n = 0; n < Number(count) && !ctx.signal.aborted; n += 1) await ctx.status('working', { progress: n % 100, eta: `${n}`.padEnd(EVENT_BYTES, '.') });
      return 'done';
    },
  });
  const body = (text: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] } } });
  const post = (url: string, text: string) =>
    fetch(`${url}/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body: body(text) });
  afterAll(() => chatty.shutdown());

  it('gets every event while it stays within the backlog limit', async () => {
    const EVENTS = 3000;
    const chattyServer = await listen(createA2AHandler({ agent: chatty, baseUrl: 'http://127.0.0.1' }), { maxStreamBacklogBytes: 64 * 1024 * 1024 });
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    let response: ServerResponse | undefined;
    chattyServer.server.on('request', (_req, res: ServerResponse) => (response = res));
    try {
      const reader = ((await post(chattyServer.url, `talk ${EVENTS}`)).body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let text = '';
      let most = 0;
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        text += decoder.decode(chunk.value, { stream: true });
        most = Math.max(most, response?.listenerCount('close') ?? 0);
        await sleep(10);
      }
      // 6 MB at about 1 MB/s: well behind the agent, yet every event arrives, in order.
      const etas = [...text.matchAll(/"eta":"(\d+)\./g)].map((m) => Number(m[1]));
      expect(etas).toEqual(Array.from({ length: EVENTS }, (_, n) => n));
      expect(text).toContain('TASK_STATE_COMPLETED');
      expect(most).toBeLessThan(5);
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await chattyServer.close();
    }
  });

  it('is dropped once it falls a backlog limit behind, and the task lets go of it', async () => {
    const LIMIT = 64 * 1024;
    const chattyServer = await listen(createA2AHandler({ agent: chatty, baseUrl: 'http://127.0.0.1' }), { maxStreamBacklogBytes: LIMIT });
    let response: ServerResponse | undefined;
    chattyServer.server.on('request', (_req, res: ServerResponse) => (response = res));
    const socket = connect(Number(new URL(chattyServer.url).port), '127.0.0.1');
    socket.on('error', () => {});
    try {
      const request = body('talk 100000');
      socket.write(`POST /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: ${request.length}\r\n\r\n${request}`);
      // Reads the first event for the task's id, then stops reading.
      const first = await new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8'))));
      socket.pause();
      const id = /"task":\{"id":"([^"]+)"/.exec(first)?.[1] ?? '';
      expect(chatty.subscribers(id)).toBe(1);
      // What the server holds for this reader, polled until it lets go (bounded).
      let most = 0;
      for (let tries = 0; tries < 1000 && !response?.destroyed; tries += 1) {
        most = Math.max(most, response?.writableLength ?? 0);
        await sleep(5);
      }
      expect(response?.destroyed).toBe(true);
      // The limit, plus the last event and what the socket held before it was full.
      expect(most).toBeLessThan(LIMIT + 64 * 1024);
      expect(await dropsToZero(() => chatty.subscribers(id), 10_000)).toBe(0);
      await chatty.cancel(id).catch(() => {});
    } finally {
      socket.destroy();
      await chattyServer.close();
    }
  });

  it('gets one event larger than the limit in full', async () => {
    const chattyServer = await listen(createA2AHandler({ agent: chatty, baseUrl: 'http://127.0.0.1' }), { maxStreamBacklogBytes: 1024 });
    try {
      const text = await (await post(chattyServer.url, 'big 2000000')).text();
      expect(text).toContain('x'.repeat(2_000_000));
      expect(text).toContain('TASK_STATE_COMPLETED');
    } finally {
      await chattyServer.close();
    }
  });
});
