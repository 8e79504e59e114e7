// The push sender against real webhook servers on 127.0.0.1: order, headers, retries,
// isolation of slow targets, the durable outbox across a restart, and SSRF refusals.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, startWebhook, type Webhook } from '../../test/fixtures/webhook.js';
import { tempHome } from '../../test/fixtures/home.js';
import type { PushConfigInput } from '../model/push-config.js';
import { jiajiaCard } from '../card/examples.js';
import { createAgent, type Agent, type AgentOptions } from '../runtime/agent.js';
import type { TaskMessage } from '../model/task.js';
import { openSqliteTaskStore } from '../store/sqlite/task-store.js';
import { MemoryTaskStore, type TaskStore } from '../store/task-store.js';
import type { PushStore } from '../store/push-store.js';
import { startPushSender, type PushSender, type PushSenderOptions } from './push-sender.js';

const TOKEN = 'tok-Secret-123';
const CREDENTIALS = 'cred-Secret-456';

let counter = 0;
const message = (text: string): TaskMessage => ({ messageId: `m-${(counter += 1)}`, role: 'user', parts: [{ kind: 'text', text }] });

const echo: AgentOptions['onTask'] = async (task, ctx) => {
  await ctx.status('working', { message: `working on ${task.text}` });
  return `echo: ${task.text}`;
};

const running: { agent: Agent; push: PushSender }[] = [];
afterEach(async () => {
  for (const { agent, push } of running.splice(0)) {
    await push.close();
    await agent.close();
  }
});

const logs: string[] = [];
afterEach(() => {
  // Whatever happened in the test, no log line gave a secret away.
  for (const line of logs.splice(0)) {
    expect(line).not.toContain(TOKEN);
    expect(line).not.toContain(CREDENTIALS);
  }
});

async function setup(options: Partial<PushSenderOptions> & { onTask?: AgentOptions['onTask']; store?: TaskStore & PushStore } = {}) {
  const { onTask = echo, store = new MemoryTaskStore(), ...rest } = options;
  const agent = createAgent({ card: jiajiaCard(), store, onTask });
  const push = await startPushSender({ agent, store, allowPrivateNetworks: true, retryBaseMs: 20, timeoutMs: 2_000, random: () => 0, log: (line) => logs.push(line), ...rest });
  running.push({ agent, push });
  return { agent, push, store };
}

/** Sends a message whose task registers `hooks` before anything happens to it. */
function sendWithHooks(agent: Agent, push: PushSender, text: string, hooks: (Partial<PushConfigInput> & { url: string })[]) {
  return agent.send(message(text), {
    beforeStart: async (task) => {
      for (const hook of hooks) await push.save({ taskId: task.id, version: '1.0', ...hook });
    },
  });
}

const v1Kinds = (hook: Webhook) =>
  hook.delivered.map(({ json }) => {
    const [kind, value] = Object.entries(json)[0] as [string, Record<string, unknown>];
    if (kind === 'task' || kind === 'statusUpdate') return `${kind}:${((value.status as Record<string, unknown>).state as string).replace('TASK_STATE_', '')}`;
    return kind;
  });

describe('the push sender delivers', () => {
  it('every update of a 1.0 task, in order, as StreamResponses with the Authorization header and token', async () => {
    const hook = await startWebhook();
    const { agent, push } = await setup();
    const task = await sendWithHooks(agent, push, 'hello', [{ url: hook.url, token: TOKEN, authentication: { scheme: 'Bearer', credentials: CREDENTIALS } }]);
    await eventually(() => expect(hook.delivered).toHaveLength(4));
    expect(v1Kinds(hook)).toEqual(['task:SUBMITTED', 'statusUpdate:WORKING', 'artifactUpdate', 'statusUpdate:COMPLETED']);
    expect(hook.delivered[3]?.json).toEqual({ statusUpdate: { taskId: task.id, contextId: task.contextId, status: { state: 'TASK_STATE_COMPLETED', timestamp: task.status.timestamp, message: expect.objectContaining({ role: 'ROLE_AGENT', parts: [{ text: 'echo: hello' }] }) } } });
    expect((hook.delivered[2]?.json.artifactUpdate as { artifact: { parts: unknown[] } }).artifact.parts).toEqual([{ text: 'echo: hello' }]);
    for (const { headers } of hook.delivered) {
      expect(headers).toMatchObject({ 'content-type': 'application/a2a+json', authorization: `Bearer ${CREDENTIALS}`, 'x-a2a-notification-token': TOKEN });
    }
  });

  it('the whole 0.3 task for every update of a config made over 0.3, with the token header', async () => {
    const hook = await startWebhook();
    const { agent, push } = await setup();
    const task = await sendWithHooks(agent, push, 'hi', [{ url: hook.url, token: TOKEN, version: '0.3' }]);
    await eventually(() => expect(hook.delivered).toHaveLength(4));
    expect(hook.delivered.map(({ json }) => [json.kind, json.id, (json.status as { state: string }).state])).toEqual([
      ['task', task.id, 'submitted'],
      ['task', task.id, 'working'],
      ['task', task.id, 'working'],
      ['task', task.id, 'completed'],
    ]);
    expect(hook.delivered[2]?.json.artifacts).toEqual([expect.objectContaining({ parts: [{ kind: 'text', text: 'echo: hi' }] })]);
    expect(hook.delivered[0]?.headers).toMatchObject({ 'content-type': 'application/json', 'x-a2a-notification-token': TOKEN });
    expect(hook.delivered[0]?.headers.authorization).toBeUndefined();
  });

  it('after retries, when the target answers 500 twice and then 200', async () => {
    const hook = await startWebhook((n) => (n < 2 ? 500 : 200));
    const { agent, push } = await setup();
    await sendWithHooks(agent, push, 'flaky', [{ url: hook.url }]);
    await eventually(() => expect(hook.delivered).toHaveLength(4));
    expect(hook.requests).toHaveLength(6);
    expect(hook.requests.slice(0, 3).map((r) => r.body)).toEqual([hook.delivered[0]?.body, hook.delivered[0]?.body, hook.delivered[0]?.body]);
    expect(v1Kinds(hook)).toEqual(['task:SUBMITTED', 'statusUpdate:WORKING', 'artifactUpdate', 'statusUpdate:COMPLETED']);
    expect(logs.filter((line) => line.includes('HTTP 500'))).toHaveLength(2);
  });

  it('to every config of a task, and to nobody once a config is deleted', async () => {
    const [first, second] = [await startWebhook(), await startWebhook()];
    let resume: (value?: unknown) => void = () => undefined;
    const gate = new Promise((resolve) => (resume = resolve));
    const { agent, push, store } = await setup({
      onTask: async (_task, ctx) => {
        await ctx.status('working');
        await gate;
        return 'done';
      },
    });
    const task = await agent.send(message('two hooks'), { returnImmediately: true, beforeStart: async (t) => void (await push.save({ id: 'a', taskId: t.id, url: first.url, version: '1.0' })) });
    await push.save({ id: 'b', taskId: task.id, url: second.url, version: '1.0' });
    await eventually(() => expect(v1Kinds(first)).toEqual(['task:SUBMITTED', 'statusUpdate:WORKING']));
    await eventually(() => expect(v1Kinds(second)).toEqual(['statusUpdate:WORKING']));
    expect(await push.delete(task.id, 'a')).toBe(true);
    resume();
    await eventually(() => expect(v1Kinds(second)).toEqual(['statusUpdate:WORKING', 'artifactUpdate', 'statusUpdate:COMPLETED']));
    expect(first.requests).toHaveLength(2);
    await eventually(async () => expect(await store.pendingDeliveries()).toEqual([]));
  });
});

describe('the push sender gives up', () => {
  it('after the last attempt, and forgets the delivery', async () => {
    const hook = await startWebhook(() => 503);
    const { agent, push, store } = await setup({ maxAttempts: 3 });
    await sendWithHooks(agent, push, 'down', [{ url: `${hook.url}?key=${TOKEN}`, token: TOKEN, authentication: { scheme: 'Bearer', credentials: CREDENTIALS } }]);
    await eventually(() => expect(hook.requests).toHaveLength(12));
    await eventually(async () => expect(await store.pendingDeliveries()).toEqual([]));
    expect(logs.filter((line) => line.includes('gave up on a notification after 3 attempts: HTTP 503'))).toHaveLength(4);
    expect(logs[0]).toContain(`http://127.0.0.1:${hook.port}`);
  });

  it('at once on a 4xx, which trying again will not fix', async () => {
    const hook = await startWebhook(() => 404);
    const { agent, push } = await setup();
    await sendWithHooks(agent, push, 'gone', [{ url: hook.url }]);
    await eventually(() => expect(hook.requests).toHaveLength(4));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(hook.requests).toHaveLength(4);
  });

  it('at once on a redirect, which it does not follow, even to an allowed address', async () => {
    const elsewhere = await startWebhook();
    const hook = await startWebhook(() => ({ status: 307, location: elsewhere.url }));
    const { agent, push } = await setup();
    await sendWithHooks(agent, push, 'moved', [{ url: hook.url }]);
    await eventually(() => expect(hook.requests).toHaveLength(4));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(elsewhere.requests).toEqual([]);
    expect(logs.some((line) => line.includes('HTTP 307: redirects are not followed'))).toBe(true);
  });
});

describe('a webhook that never answers', () => {
  it('delays neither its own task, nor that task’s other webhook, nor other tasks and theirs', async () => {
    const stuck = await startWebhook(() => 'hang');
    const [sibling, other] = [await startWebhook(), await startWebhook()];
    const { agent, push } = await setup({ timeoutMs: 30_000 });
    const first = await sendWithHooks(agent, push, 'one', [{ url: stuck.url }, { url: sibling.url }]);
    const second = await sendWithHooks(agent, push, 'two', [{ url: other.url }]);
    expect(first.status.state).toBe('completed');
    expect(second.status.state).toBe('completed');
    await eventually(() => expect(v1Kinds(sibling)).toHaveLength(4));
    await eventually(() => expect(v1Kinds(other)).toHaveLength(4));
    // Everything else arrived while the sender still waits for the stuck webhook's first answer.
    expect(stuck.requests).toHaveLength(1);
    expect(stuck.waiting()).toBe(1);
  });
});

describe('the outbox', () => {
  it('survives a restart: what was not delivered is sent, in order, by the next sender', async () => {
    const path = join(tempHome('push'), 'tasks.db');
    let up = false;
    const hook = await startWebhook(() => (up ? 200 : 503));
    const before = await setup({ store: await openSqliteTaskStore(path), retryBaseMs: 60_000 });
    const task = await sendWithHooks(before.agent, before.push, 'durable', [{ url: hook.url, token: TOKEN }]);
    // Until the failed first attempt is on record (the retry waits a minute).
    await eventually(() => expect(logs.some((line) => line.includes('attempt 1 of 6 failed (HTTP 503)'))).toBe(true));
    running.splice(0);
    await before.push.close();
    await before.agent.close();

    up = true;
    const store = await openSqliteTaskStore(path);
    expect((await store.pendingDeliveries()).map((d) => [d.taskId, d.attempts])).toEqual([
      [task.id, 1],
      [task.id, 0],
      [task.id, 0],
      [task.id, 0],
    ]);
    await setup({ store });
    await eventually(() => expect(hook.delivered).toHaveLength(4));
    expect(v1Kinds(hook)).toEqual(['task:SUBMITTED', 'statusUpdate:WORKING', 'artifactUpdate', 'statusUpdate:COMPLETED']);
    expect(hook.delivered[0]?.headers['x-a2a-notification-token']).toBe(TOKEN);
    await eventually(async () => expect(await store.pendingDeliveries()).toEqual([]));
  });

  it('drops deliveries whose config is gone', async () => {
    const store = new MemoryTaskStore();
    await store.addDeliveries([{ taskId: 't', configId: 'deleted', body: '{}' }]);
    await setup({ store });
    await eventually(async () => expect(await store.pendingDeliveries()).toEqual([]));
  });

  it('keeps the last updates of a shutdown for the next run', async () => {
    const hook = await startWebhook();
    const { agent, push, store } = await setup({ onTask: (_task, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', resolve)) });
    await agent.send(message('long'), { returnImmediately: true, beforeStart: async (t) => void (await push.save({ taskId: t.id, url: hook.url, version: '1.0' })) });
    await eventually(() => expect(hook.delivered).toHaveLength(1));
    await push.close();
    const pending = store.pendingDeliveries.bind(store);
    const closing = store.close.bind(store);
    let left: Awaited<ReturnType<typeof pending>> = [];
    store.close = async () => {
      left = await pending();
      await closing();
    };
    running.splice(0);
    await agent.shutdown('stopping for the test');
    expect(left.map((d) => JSON.parse(d.body) as Record<string, unknown>)).toEqual([{ statusUpdate: expect.objectContaining({ status: expect.objectContaining({ state: 'TASK_STATE_FAILED' }) }) }]);
  });
});

describe('the push sender refuses private targets unless allowed', () => {
  it('when a config is saved', async () => {
    const hook = await startWebhook();
    const { push } = await setup({ allowPrivateNetworks: false });
    for (const url of [hook.url, `http://localhost:${hook.port}/`, `http://[::ffff:127.0.0.1]:${hook.port}/`, `http://2130706433:${hook.port}/`]) {
      await expect(push.save({ taskId: 't', url, version: '1.0' }), url).rejects.toMatchObject({ code: 'WEBHOOK_REFUSED' });
    }
  });

  it('when it sends, in case the name has come to resolve elsewhere since', async () => {
    const hook = await startWebhook();
    // A public address when the config is saved, loopback ever after (a rebinding DNS).
    let asked = 0;
    const resolve = async () => [{ address: (asked += 1) === 1 ? '93.184.215.14' : '127.0.0.1', family: 4 as const }];
    const { agent, push } = await setup({ allowPrivateNetworks: false, resolve });
    await sendWithHooks(agent, push, 'rebind', [{ url: `http://hooks.example:${hook.port}/hook` }]);
    await eventually(() => expect(logs.filter((line) => line.includes('gave up'))).toHaveLength(4));
    expect(logs[0]).toMatch(/after 1 attempt: webhooks may not go to "hooks.example" \(127.0.0.1\)/);
    expect(hook.requests).toEqual([]);
  });

  it('keeps at most 10 configs per task', async () => {
    const { push } = await setup();
    for (let i = 0; i < 10; i += 1) await push.save({ id: `c${i}`, taskId: 't', url: 'http://127.0.0.1:9/', version: '1.0' });
    await push.save({ id: 'c3', taskId: 't', url: 'http://127.0.0.1:10/', version: '1.0' });
    await expect(push.save({ taskId: 't', url: 'http://127.0.0.1:9/', version: '1.0' })).rejects.toMatchObject({ code: 'INVALID_PARAMS', message: expect.stringContaining('the most it can have') });
  });
});
