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
