import { describe, expect, it } from 'vitest';
import { createA2AHandler } from '../a2a/handler.js';
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
    const events = text.split('\n\n').filter(Boolean).map((chunk) => JSON.parse(chunk.replace(/^data: /, '')).result);
    expect(events.map((e) => Object.keys(e)[0])).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
  });

  it('refuses a body over the limit with 413', async () => {
    const response = await serve(rpc('SendMessage', { message: { ...message, parts: [{ text: 'x'.repeat(20_000) }] } }));
    expect(response.status).toBe(413);
  });
});
