// Retention seen by A2A clients over real HTTP on 127.0.0.1: a library agent with a clock the test
// moves, whose unanswered task ends while clients follow it over JSON-RPC and REST; the cap's
// refusal on both bindings; and the card that declares the rules.
import { afterEach, describe, expect, it } from 'vitest';
import { createA2AHandler } from '../src/a2a/server/handler.js';
import { RETENTION_EXTENSION } from '../src/a2a/wire/retention-extension.js';
import { jiajiaCard } from '../src/card/examples.js';
import { readSse } from '../src/net/sse.js';
import type { RetentionRules } from '../src/model/retention.js';
import { createAgent, type Agent } from '../src/runtime/agent.js';
import { listen, type Listening } from '../src/net/node-http.js';

const T0 = Date.parse('2026-11-21T08:00:00.000Z');
const HOUR = 3_600_000;
const V1 = { 'content-type': 'application/json', 'a2a-version': '1.0' };
const REASON = 'Waited 1h for a reply, the longest this agent waits; the task has ended. Send a new message to start again.';

type Json = Record<string, unknown>;

const open: { agent: Agent; server: Listening }[] = [];
afterEach(async () => {
  for (const { agent, server } of open.splice(0)) {
    await server.close();
    await agent.shutdown();
  }
});

/** An agent that asks every requester a question, served on a free port, with its clock. */
async function serveAsking(retention: RetentionRules) {
  let now = T0;
  const agent = createAgent({
    card: jiajiaCard(),
    now: () => new Date(now),
    retention,
    onTask: async (_task, ctx) => `thanks for ${(await ctx.ask('Which week?')).parts.length} part(s)`,
  });
  let url = '';
  const server = await listen(createA2AHandler({ agent, baseUrl: () => url }));
  url = server.url;
  open.push({ agent, server });
  return { agent, url, at: (ms: number) => void (now = T0 + ms) };
}

const rpc = async (url: string, method: string, params: Json): Promise<Json> =>
  (await fetch(`${url}/jsonrpc`, { method: 'POST', headers: V1, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })).json() as Promise<Json>;

const message = (text: string) => ({ message: { messageId: `m-${text}-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] } });

/** Every event of an SSE response, until the server ends it. */
async function eventsOf(response: Response): Promise<Json[]> {
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const events: Json[] = [];
  for await (const event of readSse(response.body as AsyncIterable<Uint8Array>)) events.push(JSON.parse(event.data) as Json);
  return events;
}

describe('an unanswered task ends over HTTP, and its followers see it', () => {
  it('over JSON-RPC and REST: subscriptions get the failed status with the reason, then close; GetTask says the same', async () => {
    const { agent, url, at } = await serveAsking({ inputTimeoutMs: HOUR });
    const asked = await rpc(url, 'SendMessage', message('research'));
    expect(asked).toMatchObject({ result: { task: { status: { state: 'TASK_STATE_INPUT_REQUIRED' } } } });
    const id = (asked.result as { task: { id: string } }).task.id;

    const overRpc = fetch(`${url}/jsonrpc`, { method: 'POST', headers: V1, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'SubscribeToTask', params: { id } }), signal: AbortSignal.timeout(20_000) });
    const overRest = fetch(`${url}/tasks/${id}:subscribe`, { headers: { 'a2a-version': '1.0' }, signal: AbortSignal.timeout(20_000) });
    const [rpcEvents, restEvents] = [eventsOf(await overRpc), eventsOf(await overRest)];
    // Both are open before the task ends: each has subscribed.
    for (let turns = 0; turns < 1_000 && agent.subscribers(id) < 2; turns += 1) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(agent.subscribers(id)).toBe(2);

    at(HOUR + 1);
    expect(await agent.retention?.prune()).toEqual({ ended: 1, deleted: 0 });

    const failed = { state: 'TASK_STATE_FAILED', message: { role: 'ROLE_AGENT', parts: [{ text: REASON }] } };
    expect((await rpcEvents).at(-1)).toMatchObject({ result: { statusUpdate: { taskId: id, status: failed } } });
    expect((await restEvents).at(-1)).toMatchObject({ statusUpdate: { taskId: id, status: failed } });
    expect(await rpc(url, 'GetTask', { id })).toMatchObject({ result: { id, status: failed } });
    expect(await (await fetch(`${url}/tasks/${id}`, { headers: { 'a2a-version': '1.0' } })).json()).toMatchObject({ id, status: failed });

    // The answer comes too late: the task takes no more messages.
    const late = await rpc(url, 'SendMessage', { message: { ...message('this week').message, taskId: id } });
    expect(late).toMatchObject({ error: { code: -32004 } });
  });
});

describe('the cap over HTTP', () => {
  it('refuses a new task with STORE_FULL on both bindings when none of the kept tasks has ended', async () => {
    const { url } = await serveAsking({ maxTasks: 1 });
    expect(await rpc(url, 'SendMessage', message('first'))).toMatchObject({ result: { task: { status: { state: 'TASK_STATE_INPUT_REQUIRED' } } } });
    const refusal = 'this agent keeps at most 1 task, and none of them has ended; try again once one has';

    expect(await rpc(url, 'SendMessage', message('second'))).toMatchObject({ error: { code: -32000, message: refusal } });
    const rest = await fetch(`${url}/message:send`, { method: 'POST', headers: { ...V1, 'content-type': 'application/a2a+json' }, body: JSON.stringify(message('third')) });
    expect(rest.status).toBe(429);
    expect(await rest.json()).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: refusal } });
  });
});

describe('the card', () => {
  it('declares the rules as the retention extension, in 1.0 and in the card 0.3 clients read', async () => {
    const { url } = await serveAsking({ taskTtlMs: 7 * 24 * HOUR, inputTimeoutMs: HOUR, maxTasks: 10_000 });
    for (const headers of [{ 'a2a-version': '1.0' }, {}] as Record<string, string>[]) {
      const card = (await (await fetch(`${url}/.well-known/agent-card.json`, { headers })).json()) as { capabilities: { extensions: Json[] } };
      const extension = card.capabilities.extensions.find((e) => e.uri === RETENTION_EXTENSION);
      expect(extension).toMatchObject({ required: false, params: { taskTtlSeconds: 604_800, inputTimeoutSeconds: 3_600, maxTasks: 10_000 } });
    }
  });

  it('declares no retention extension for an agent without rules', async () => {
    const agent = createAgent({ card: jiajiaCard(), onTask: () => 'done' });
    const server = await listen(createA2AHandler({ agent, baseUrl: 'http://127.0.0.1' }));
    open.push({ agent, server });
    const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as { capabilities: { extensions: Json[] } };
    expect(card.capabilities.extensions.map((e) => e.uri)).not.toContain(RETENTION_EXTENSION);
  });
});
