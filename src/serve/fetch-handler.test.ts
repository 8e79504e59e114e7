import { describe, expect, it } from 'vitest';
import { createA2AHandler } from '../a2a/server/handler.js';
import { jiajiaCard } from '../card/examples.js';
import { createAgent } from '../runtime/agent.js';
import { fetchHandler } from './fetch-handler.js';

const agent = createAgent({
  card: jiajiaCard(),
  async onTask(task, ctx) {
    await ctx.status('working', { progress: 50 });
    return `echo: ${task.text}`;
  },
});
const serve = fetchHandler(createA2AHandler({ agent, baseUrl: 'https://agent.example' }), { maxBodyBytes: 10_000 });

const rpc = (method: string, params: unknown) =>
  new Request('https://agent.example/jsonrpc', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  });
const message = { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] };

describe('the fetch(Request) → Response adapter', () => {
  it('serves the card', async () => {
    const response = await serve(new Request('https://agent.example/.well-known/agent-card.json'));
    expect(response.status).toBe(200);
    expect(((await response.json()) as { supportedInterfaces: { url: string }[] }).supportedInterfaces[0]?.url).toBe('https://agent.example/jsonrpc');
  });

  it('answers a blocking SendMessage', async () => {
    const response = await serve(rpc('SendMessage', { message }));
    const body = (await response.json()) as { id: number; result: { task: { status: { state: string } } } };
    expect(body.id).toBe(7);
    expect(body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('streams events as a readable body', async () => {
    const response = await serve(rpc('SendStreamingMessage', { message }));
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const text = await response.text();
    const events = text.split('\n\n').filter(Boolean).map((chunk) => JSON.parse(chunk.replace(/^id: \d+\n/, '').replace(/^data: /, '')).result);
    expect(events.map((e) => Object.keys(e)[0])).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
  });

  it('refuses a body over the limit with 413', async () => {
    const response = await serve(rpc('SendMessage', { message: { ...message, parts: [{ text: 'x'.repeat(20_000) }] } }));
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toBe('application/a2a+json');
    // The same google.rpc.Status the node:http adapter sends: a status google.rpc knows.
    expect(await response.json()).toEqual({ error: { code: 413, status: 'RESOURCE_EXHAUSTED', message: 'the request body is over 10000 bytes' } });
  });
});

describe('a cancelled response body', () => {
  it('drops the task’s subscriber at once, though the task is quiet', async () => {
    const quiet = createAgent({ card: jiajiaCard(), onTask: (_task, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', resolve)) });
    const serveQuiet = fetchHandler(createA2AHandler({ agent: quiet, baseUrl: 'https://agent.example' }));
    const task = await quiet.send({ messageId: 'q', role: 'user', parts: [{ kind: 'text', text: 'wait' }] }, { returnImmediately: true });
    const readers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const response = await serveQuiet(rpc('SubscribeToTask', { id: task.id }));
        const reader = (response.body as ReadableStream<Uint8Array>).getReader();
        expect(new TextDecoder().decode((await reader.read()).value)).toContain('"task"');
        return reader;
      }),
    );
    expect(quiet.subscribers(task.id)).toBe(20);
    // Each cancel comes while a pull waits for the task's next event (before the fix, the
    // cancels waited for that event too, and the subscribers stayed).
    const cancelled = Promise.all(readers.map((reader) => reader.cancel()));
    for (let waited = 0; quiet.subscribers(task.id) > 0 && waited < 10_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(quiet.subscribers(task.id)).toBe(0);
    await cancelled;
    await quiet.shutdown();
  });

  it('answers a caller without a credential from the head, reading none of its body', async () => {
    const guarded = fetchHandler(createA2AHandler({ agent, baseUrl: 'https://agent.example', auth: { bearerTokens: ['fetch-token-4e1f'] } }));
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new Uint8Array(64 * 1024));
      },
    });
    const response = await guarded(new Request('https://agent.example/jsonrpc', { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit));
    expect(response.status).toBe(401);
    expect(pulled).toBeLessThanOrEqual(1);
    const card = await guarded(new Request('https://agent.example/.well-known/agent-card.json'));
    expect(card.status).toBe(200);
  });
});

