// Tasks belong to the principal that made them: over JSON-RPC 1.0, REST and JSON-RPC 0.3, a
// second client answers for the first one's task exactly as for a task that does not exist,
// and lists none of it; the first client reaches it as usual. Driven through the handler.
import { afterEach, describe, expect, it } from 'vitest';
import { createA2AHandler } from '../src/a2a/server/handler.js';
import type { A2AHandler } from '../src/a2a/server/http.js';
import type { HttpResponse } from '../src/net/http-types.js';
import { jiajiaCard } from '../src/card/examples.js';
import { createAgent, type Agent } from '../src/runtime/agent.js';
import { startPushSender, type PushSender } from '../src/serve/push-sender.js';
import { MemoryTaskStore } from '../src/store/task-store.js';
import { startWebhook } from './fixtures/webhook.js';

type Json = Record<string, unknown>;

const ALICE = { authorization: `Bearer ${['alice', '-token-', 'Q9w8E7r6T5'].join('')}` };
const BOB = { 'x-api-key': ['bob', '-key-', 'Z1x2C3v4B5'].join('') };

const running: { agent: Agent; push: PushSender }[] = [];
afterEach(async () => {
  for (const { agent, push } of running.splice(0)) {
    await push.close();
    await agent.shutdown();
  }
});

/** An agent that asks a question first, so that its tasks wait, alive, for a reply. */
async function server(): Promise<A2AHandler> {
  const store = new MemoryTaskStore();
  const agent = createAgent({
    card: jiajiaCard(),
    store,
    async onTask(task, ctx) {
      const reply = await ctx.ask('时间范围？');
      return `${task.text}: ${reply.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('')}`;
    },
  });
  const push = await startPushSender({ agent, store, allowPrivateNetworks: true, maxAttempts: 1 });
  running.push({ agent, push });
  return createA2AHandler({
    agent,
    baseUrl: 'http://127.0.0.1:7331',
    push,
    auth: {
      bearerTokens: [{ principal: 'A2A_ALICE', secret: ALICE.authorization.slice('Bearer '.length) }],
      apiKeys: [{ principal: 'A2A_BOB', secret: BOB['x-api-key'] }],
    },
  });
}

/** What a client got: the status, and the body (JSON) or that a stream began. */
interface Answer {
  status: number;
  body?: Json;
  stream?: true;
}

async function answerOf(response: HttpResponse): Promise<Answer> {
  if ('body' in response) return { status: response.status, body: response.body === '' ? {} : (JSON.parse(response.body) as Json) };
  // A stream that began: its first event, then closed, so that nothing is left following the
  // task (a subscription to a task that waits for input stays open until the task ends).
  for await (const chunk of response.events) {
    void chunk;
    break;
  }
  return { status: response.status, stream: true };
}

/** One binding's way to do each operation on a task. */
interface Client {
  send(text: string, taskId?: string): Promise<Answer>;
  get(id: string): Promise<Answer>;
  cancel(id: string): Promise<Answer>;
  subscribe(id: string): Promise<Answer>;
  /** Absent where the binding has no list (0.3 over JSON-RPC). */
  list?(): Promise<Answer>;
  setPush(id: string, url: string): Promise<Answer>;
  getPush(id: string, configId: string): Promise<Answer>;
  listPush(id: string): Promise<Answer>;
  deletePush(id: string, configId: string): Promise<Answer>;
}

function jsonRpc(handle: A2AHandler, headers: Record<string, string>, version: '1.0' | '0.3') {
  let n = 0;
  return async (method: string, params: Json): Promise<Answer> =>
    answerOf(
      await handle({
        method: 'POST',
        path: '/jsonrpc',
        query: new URLSearchParams(),
        headers: { 'content-type': 'application/json', 'a2a-version': version, ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: (n += 1), method, params }),
      }),
    );
}

const BINDINGS: Record<string, (handle: A2AHandler, headers: Record<string, string>) => Client> = {
  'JSON-RPC 1.0': (handle, headers) => {
    const rpc = jsonRpc(handle, headers, '1.0');
    return {
      send: (text, taskId) => rpc('SendMessage', { message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }], ...(taskId ? { taskId } : {}) } }),
      get: (id) => rpc('GetTask', { id }),
      cancel: (id) => rpc('CancelTask', { id }),
      subscribe: (id) => rpc('SubscribeToTask', { id }),
      list: () => rpc('ListTasks', {}),
      setPush: (id, url) => rpc('CreateTaskPushNotificationConfig', { taskId: id, id: 'cfg', url }),
      getPush: (id, configId) => rpc('GetTaskPushNotificationConfig', { taskId: id, id: configId }),
      listPush: (id) => rpc('ListTaskPushNotificationConfigs', { taskId: id }),
      deletePush: (id, configId) => rpc('DeleteTaskPushNotificationConfig', { taskId: id, id: configId }),
    };
  },
  REST: (handle, headers) => {
    const call = async (method: string, path: string, body?: Json): Promise<Answer> =>
      answerOf(
        await handle({
          method,
          path,
          query: new URLSearchParams(),
          headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0', ...headers },
          body: body === undefined ? '' : JSON.stringify(body),
        }),
      );
    const task = (id: string) => `/tasks/${encodeURIComponent(id)}`;
    return {
      send: (text, taskId) => call('POST', '/message:send', { message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }], ...(taskId ? { taskId } : {}) } }),
      get: (id) => call('GET', task(id)),
      cancel: (id) => call('POST', `${task(id)}:cancel`),
      subscribe: (id) => call('POST', `${task(id)}:subscribe`),
      list: () => call('GET', '/tasks'),
      setPush: (id, url) => call('POST', `${task(id)}/pushNotificationConfigs`, { id: 'cfg', url }),
      getPush: (id, configId) => call('GET', `${task(id)}/pushNotificationConfigs/${configId}`),
      listPush: (id) => call('GET', `${task(id)}/pushNotificationConfigs`),
      deletePush: (id, configId) => call('DELETE', `${task(id)}/pushNotificationConfigs/${configId}`),
    };
  },
  'JSON-RPC 0.3': (handle, headers) => {
    const rpc = jsonRpc(handle, headers, '0.3');
    return {
      send: (text, taskId) => rpc('message/send', { message: { kind: 'message', messageId: `m-${text}`, role: 'user', parts: [{ kind: 'text', text }], ...(taskId ? { taskId } : {}) } }),
      get: (id) => rpc('tasks/get', { id }),
      cancel: (id) => rpc('tasks/cancel', { id }),
      subscribe: (id) => rpc('tasks/resubscribe', { id }),
      setPush: (id, url) => rpc('tasks/pushNotificationConfig/set', { taskId: id, pushNotificationConfig: { id: 'cfg', url } }),
      getPush: (id, configId) => rpc('tasks/pushNotificationConfig/get', { id, pushNotificationConfigId: configId }),
      listPush: (id) => rpc('tasks/pushNotificationConfig/list', { id }),
      deletePush: (id, configId) => rpc('tasks/pushNotificationConfig/delete', { id, pushNotificationConfigId: configId }),
    };
  },
};

/** The id of the task an answer carries, in any binding's shape. */
function taskIdOf(answer: Answer): string {
  const body = answer.body as { result?: Json & { task?: Json }; task?: Json; id?: string };
  const task = body.result?.task ?? body.result ?? body.task ?? body;
  return (task as { id: string }).id;
}

/** The answer with the task id written as ID, and the JSON-RPC request id left out. */
function shapeOf(answer: Answer, id: string): unknown {
  const { id: _requestId, ...rest } = answer.body ?? {};
  return JSON.parse(JSON.stringify({ ...answer, body: rest }).replaceAll(id, 'ID'));
}

const MISSING = '01a1fd89-0000-7000-8000-000000000000';

describe.each(Object.keys(BINDINGS))('a task belongs to its principal over %s', (binding) => {
  it('answers another principal as for a task that does not exist, and its owner as usual', async () => {
    const handle = await server();
    const hook = await startWebhook();
    const alice = BINDINGS[binding]!(handle, ALICE);
    const bob = BINDINGS[binding]!(handle, BOB);
    const sent = await alice.send('research');
    expect(sent.status).toBe(200);
    const id = taskIdOf(sent);
    expect(JSON.stringify(sent.body)).not.toContain('A2A_ALICE');
    expect((await alice.setPush(id, hook.url)).status).toBe(binding === 'REST' ? 201 : 200);

    // Each operation by Bob on Alice's task, beside the same one on a task that does not exist.
    const attempts: [string, (task: string) => Promise<Answer>][] = [
      ['get', (task) => bob.get(task)],
      ['cancel', (task) => bob.cancel(task)],
      ['subscribe', (task) => bob.subscribe(task)],
      ['reply', (task) => bob.send('2025', task)],
      ['set a push config', (task) => bob.setPush(task, hook.url)],
      ['get a push config', (task) => bob.getPush(task, 'cfg')],
      ['list push configs', (task) => bob.listPush(task)],
      ['delete a push config', (task) => bob.deletePush(task, 'cfg')],
    ];
    for (const [what, attempt] of attempts) {
      const theirs = await attempt(id);
      const missing = await attempt(MISSING);
      expect(shapeOf(theirs, id), what).toEqual(shapeOf(missing, MISSING));
      expect(theirs.status, what).toBe(binding === 'REST' ? 404 : 200);
      const code = binding === 'REST' ? (theirs.body?.error as Json).code : (theirs.body?.error as Json).code;
      expect(code, what).toBe(binding === 'REST' ? 404 : -32001);
    }
    if (bob.list !== undefined && alice.list !== undefined) {
      const listed = (await bob.list()).body as Json & { result?: Json };
      expect(listed.result ?? listed).toMatchObject({ tasks: [], totalSize: 0 });
      const own = (await alice.list()).body as Json & { result?: Json };
      expect(own.result ?? own).toMatchObject({ tasks: [expect.objectContaining({ id })], totalSize: 1 });
    }

    // Alice's task is untouched, and she reaches every part of it.
    expect((await alice.get(id)).status).toBe(200);
    expect(JSON.stringify((await alice.get(id)).body)).toMatch(/input-required|INPUT_REQUIRED/);
    expect(await alice.subscribe(id)).toEqual({ status: 200, stream: true });
    expect((await alice.getPush(id, 'cfg')).status).toBe(200);
    expect(JSON.stringify((await alice.listPush(id)).body)).toContain(hook.url);
    const replied = await alice.send('2025', id);
    expect(JSON.stringify(replied.body)).toMatch(/completed|COMPLETED/);
    expect((await alice.deletePush(id, 'cfg')).status).toBe(binding === 'REST' ? 204 : 200);
  });

  it('lets the owner cancel, and no one else', async () => {
    const handle = await server();
    const alice = BINDINGS[binding]!(handle, ALICE);
    const bob = BINDINGS[binding]!(handle, BOB);
    const id = taskIdOf(await alice.send('cancel me'));
    expect(shapeOf(await bob.cancel(id), id)).toEqual(shapeOf(await bob.cancel(MISSING), MISSING));
    const cancelled = await alice.cancel(id);
    expect(cancelled.status).toBe(200);
    expect(JSON.stringify(cancelled.body)).toMatch(/"canceled"|CANCELED/);
  });
});

describe('a principal’s list', () => {
  it('counts only its own tasks, page after page', async () => {
    const handle = await server();
    const alice = BINDINGS['JSON-RPC 1.0']!(handle, ALICE);
    const bob = BINDINGS['JSON-RPC 1.0']!(handle, BOB);
    for (let i = 0; i < 3; i += 1) await alice.send(`a${i}`);
    await bob.send('b0');
    const rpc = jsonRpc(handle, ALICE, '1.0');
    const first = (await rpc('ListTasks', { pageSize: 2 })).body?.result as { tasks: unknown[]; totalSize: number; nextPageToken: string };
    expect(first).toMatchObject({ totalSize: 3 });
    expect(first.tasks).toHaveLength(2);
    const second = (await rpc('ListTasks', { pageSize: 2, pageToken: first.nextPageToken })).body?.result as { tasks: unknown[]; nextPageToken: string };
    expect(second).toMatchObject({ nextPageToken: '' });
    expect(second.tasks).toHaveLength(1);
    expect(((await bob.list!()).body?.result as { totalSize: number }).totalSize).toBe(1);
  });
});
