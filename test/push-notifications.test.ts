// Push notifications through the A2A handler: the four config methods of 1.0 and 0.3 with their
// errors, configs sent inline with a message, and the card's capability. Webhooks are real
// HTTP servers on 127.0.0.1.
import { afterEach, describe, expect, it } from 'vitest';
import { createA2AHandler } from '../src/a2a/server/handler.js';
import type { A2AHandler } from '../src/a2a/server/http.js';
import { jiajiaCard } from '../src/card/examples.js';
import { createAgent, type Agent } from '../src/runtime/agent.js';
import { startPushSender, type PushSender } from '../src/serve/push-sender.js';
import { MemoryTaskStore } from '../src/store/task-store.js';
import { eventually, startWebhook } from './fixtures/webhook.js';

const running: { agent: Agent; push?: PushSender }[] = [];
afterEach(async () => {
  for (const { agent, push } of running.splice(0)) {
    await push?.close();
    await agent.close();
  }
});

async function server(options: { push?: boolean; allowPrivateNetworks?: boolean } = {}): Promise<{ handle: A2AHandler; agent: Agent }> {
  const store = new MemoryTaskStore();
  const agent = createAgent({
    card: jiajiaCard(),
    store,
    async onTask(task, ctx) {
      await ctx.status('working');
      return `echo: ${task.text}`;
    },
  });
  if (options.push === false) {
    running.push({ agent });
    return { agent, handle: createA2AHandler({ agent, baseUrl: 'http://127.0.0.1:7331' }) };
  }
  const push = await startPushSender({ agent, store, allowPrivateNetworks: options.allowPrivateNetworks ?? true, retryBaseMs: 20 });
  running.push({ agent, push });
  return { agent, handle: createA2AHandler({ agent, baseUrl: 'http://127.0.0.1:7331', push }) };
}

type Reply = { result?: unknown; error?: { code: number; message: string; data?: unknown } };

function caller(handle: A2AHandler, version: '1.0' | '0.3') {
  return async (method: string, params: unknown): Promise<Reply> => {
    const response = await handle({
      method: 'POST',
      path: '/jsonrpc',
      query: new URLSearchParams(),
      headers: { 'content-type': 'application/json', 'a2a-version': version },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    if (!('body' in response)) throw new Error('expected a JSON response');
    return JSON.parse(response.body) as Reply;
  };
}

const v1Message = (text: string) => ({ messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] });
const v03Message = (text: string) => ({ kind: 'message', messageId: `m-${text}`, role: 'user', parts: [{ kind: 'text', text }] });

async function newTask(rpc: ReturnType<typeof caller>): Promise<string> {
  const reply = (await rpc('SendMessage', { message: v1Message('x') })) as { result: { task: { id: string } } };
  return reply.result.task.id;
}

describe('push config methods, A2A 1.0', () => {
  it('create, get, list and delete a config', async () => {
    const { handle } = await server();
    const rpc = caller(handle, '1.0');
    const taskId = await newTask(rpc);
    const created = await rpc('CreateTaskPushNotificationConfig', {
      taskId,
      url: 'http://127.0.0.1:9/hook',
      token: 'tok-1',
      authentication: { scheme: 'Bearer', credentials: 'never-echoed' },
    });
    const config = created.result as { id: string };
    expect(config).toEqual({ id: expect.any(String), taskId, url: 'http://127.0.0.1:9/hook', token: 'tok-1', authentication: { scheme: 'Bearer' } });
    await rpc('CreateTaskPushNotificationConfig', { id: 'mine', taskId, url: 'http://127.0.0.1:9/other' });

    expect((await rpc('GetTaskPushNotificationConfig', { taskId, id: config.id })).result).toEqual(config);
    expect((await rpc('ListTaskPushNotificationConfigs', { taskId })).result).toEqual({
      configs: [config, { id: 'mine', taskId, url: 'http://127.0.0.1:9/other' }],
      nextPageToken: '',
    });
    expect(await rpc('DeleteTaskPushNotificationConfig', { taskId, id: 'mine' })).toMatchObject({ result: null });
    expect(((await rpc('ListTaskPushNotificationConfigs', { taskId })).result as { configs: unknown[] }).configs).toEqual([config]);
    expect(JSON.stringify(await rpc('ListTaskPushNotificationConfigs', { taskId }))).not.toContain('never-echoed');
  });

  it('deletes idempotently: a config already gone, or never made, is deleted again without an error', async () => {
    const { handle } = await server();
    const rpc = caller(handle, '1.0');
    const taskId = await newTask(rpc);
    await rpc('CreateTaskPushNotificationConfig', { id: 'once', taskId, url: 'http://127.0.0.1:9/hook' });
    expect(await rpc('DeleteTaskPushNotificationConfig', { taskId, id: 'once' })).toMatchObject({ result: null });
    expect(await rpc('DeleteTaskPushNotificationConfig', { taskId, id: 'once' })).toMatchObject({ result: null });
    expect(await rpc('DeleteTaskPushNotificationConfig', { taskId, id: 'never-made' })).toMatchObject({ result: null });
    expect(((await rpc('ListTaskPushNotificationConfigs', { taskId })).result as { configs: unknown[] }).configs).toEqual([]);
  });

  it.each([
    ['create for an unknown task', 'CreateTaskPushNotificationConfig', { taskId: 'nope', url: 'http://127.0.0.1:9/' }, -32001],
    ['get for an unknown task', 'GetTaskPushNotificationConfig', { taskId: 'nope', id: 'c' }, -32001],
    ['list for an unknown task', 'ListTaskPushNotificationConfigs', { taskId: 'nope' }, -32001],
    ['delete for an unknown task', 'DeleteTaskPushNotificationConfig', { taskId: 'nope', id: 'c' }, -32001],
    ['get an unknown config', 'GetTaskPushNotificationConfig', { taskId: '$task', id: 'nope' }, -32001],
    ['create without a URL', 'CreateTaskPushNotificationConfig', { taskId: '$task' }, -32602],
    ['create with a relative URL', 'CreateTaskPushNotificationConfig', { taskId: '$task', url: '/hook' }, -32602],
    ['create with an ftp URL', 'CreateTaskPushNotificationConfig', { taskId: '$task', url: 'ftp://127.0.0.1/' }, -32602],
    ['create with a password in the URL', 'CreateTaskPushNotificationConfig', { taskId: '$task', url: 'http://u:p@127.0.0.1/' }, -32602],
    ['create with a URL over 2048 characters', 'CreateTaskPushNotificationConfig', { taskId: '$task', url: `http://127.0.0.1/${'a'.repeat(2048)}` }, -32602],
    ['create with a header in the token', 'CreateTaskPushNotificationConfig', { taskId: '$task', url: 'http://127.0.0.1/', token: 'a\nb: c' }, -32602],
    ['create without a task', 'CreateTaskPushNotificationConfig', { url: 'http://127.0.0.1/' }, -32602],
    ['get without a config id', 'GetTaskPushNotificationConfig', { taskId: '$task' }, -32602],
  ])('refuses to %s', async (_what, method, params, code) => {
    const { handle } = await server();
    const rpc = caller(handle, '1.0');
    const taskId = await newTask(rpc);
    const error = (await rpc(method, JSON.parse(JSON.stringify(params).replace('$task', taskId)))).error;
    expect(error?.code).toBe(code);
  });

  it('names a missing config as TaskNotFound in the error data, as the SDK does', async () => {
    const { handle } = await server();
    const rpc = caller(handle, '1.0');
    const taskId = await newTask(rpc);
    expect((await rpc('GetTaskPushNotificationConfig', { taskId, id: 'nope' })).error).toEqual({
      code: -32001,
      message: `task "${taskId}" has no push notification config "nope"`,
      data: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }],
    });
  });

  it('refuses a private webhook unless the operator allows it', async () => {
    const { handle } = await server({ allowPrivateNetworks: false });
    const rpc = caller(handle, '1.0');
    const taskId = await newTask(rpc);
    for (const url of ['http://127.0.0.1:9/', 'http://[::ffff:10.0.0.1]/', 'http://localhost/', 'http://3232235777/']) {
      expect((await rpc('CreateTaskPushNotificationConfig', { taskId, url })).error, url).toMatchObject({ code: -32602, message: expect.stringContaining('--allow-private-webhooks') });
    }
    // Cloud metadata: no setting allows it, and the refusal says so.
    expect((await rpc('CreateTaskPushNotificationConfig', { taskId, url: 'http://169.254.169.254/' })).error).toMatchObject({ code: -32602, message: expect.stringContaining('no setting allows it') });
  });

  it('sends a config made inline with SendMessage every update of the new task', async () => {
    const hook = await startWebhook();
    const { handle } = await server();
    const rpc = caller(handle, '1.0');
    const sent = await rpc('SendMessage', {
      message: v1Message('inline'),
      configuration: { taskPushNotificationConfig: { url: hook.url, token: 'tok-inline', authentication: { scheme: 'Bearer', credentials: 'c-1' } } },
    });
    const taskId = (sent.result as { task: { id: string } }).task.id;
    await eventually(() => expect(hook.delivered).toHaveLength(4));
    expect(hook.delivered.map((r) => Object.keys(r.json)[0])).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
    expect(hook.delivered[0]?.headers).toMatchObject({ authorization: 'Bearer c-1', 'x-a2a-notification-token': 'tok-inline' });
    const listed = (await rpc('ListTaskPushNotificationConfigs', { taskId })).result as { configs: { taskId: string; url: string }[] };
    expect(listed.configs).toEqual([expect.objectContaining({ taskId, url: hook.url })]);
  });

  it('sends a config made inline with SendStreamingMessage every update too', async () => {
    const hook = await startWebhook();
    const { handle } = await server();
    const response = await handle({
      method: 'POST',
      path: '/jsonrpc',
      query: new URLSearchParams(),
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: v1Message('stream'), configuration: { taskPushNotificationConfig: { url: hook.url } } } }),
    });
    if (!('events' in response)) throw new Error('expected a stream');
    for await (const event of response.events) void event;
    await eventually(() => expect(hook.delivered).toHaveLength(4));
  });

  it('refuses a message with a bad inline config, before any task exists', async () => {
    const { handle, agent } = await server({ allowPrivateNetworks: false });
    const rpc = caller(handle, '1.0');
    expect((await rpc('SendMessage', { message: v1Message('a'), configuration: { taskPushNotificationConfig: { url: 'nope' } } })).error?.code).toBe(-32602);
    expect((await rpc('SendMessage', { message: v1Message('b'), configuration: { taskPushNotificationConfig: { url: 'http://127.0.0.1/' } } })).error?.code).toBe(-32602);
    expect((await agent.listTasks()).tasks).toEqual([]);
  });
});

describe('push config methods, A2A 0.3', () => {
  it('set, get, list and delete a config', async () => {
    const { handle } = await server();
    const rpc = caller(handle, '0.3');
    const taskId = await newTask(caller(handle, '1.0'));
    const set = await rpc('tasks/pushNotificationConfig/set', {
      taskId,
      pushNotificationConfig: { url: 'http://127.0.0.1:9/hook', token: 'tok-03', authentication: { schemes: ['Bearer'], credentials: 'never-echoed' } },
    });
    const config = set.result as { pushNotificationConfig: { id: string } };
    expect(config).toEqual({
      taskId,
      pushNotificationConfig: { id: expect.any(String), url: 'http://127.0.0.1:9/hook', token: 'tok-03', authentication: { schemes: ['Bearer'] } },
    });
    const id = config.pushNotificationConfig.id;
    expect((await rpc('tasks/pushNotificationConfig/get', { id: taskId, pushNotificationConfigId: id })).result).toEqual(config);
    expect((await rpc('tasks/pushNotificationConfig/get', { id: taskId })).result).toEqual(config);
    expect((await rpc('tasks/pushNotificationConfig/list', { id: taskId })).result).toEqual([config]);
    expect(await rpc('tasks/pushNotificationConfig/delete', { id: taskId, pushNotificationConfigId: id })).toMatchObject({ result: null });
    expect((await rpc('tasks/pushNotificationConfig/list', { id: taskId })).result).toEqual([]);
  });

  it.each([
    ['set for an unknown task', 'tasks/pushNotificationConfig/set', { taskId: 'nope', pushNotificationConfig: { url: 'http://127.0.0.1:9/' } }, -32001],
    ['get for an unknown task', 'tasks/pushNotificationConfig/get', { id: 'nope' }, -32001],
    ['list for an unknown task', 'tasks/pushNotificationConfig/list', { id: 'nope' }, -32001],
    ['get an unknown config', 'tasks/pushNotificationConfig/get', { id: '$task', pushNotificationConfigId: 'nope' }, -32001],
    ['get when there is no config', 'tasks/pushNotificationConfig/get', { id: '$task' }, -32001],
    ['delete an unknown config', 'tasks/pushNotificationConfig/delete', { id: '$task', pushNotificationConfigId: 'nope' }, -32001],
    ['set with a bad URL', 'tasks/pushNotificationConfig/set', { taskId: '$task', pushNotificationConfig: { url: 'mailto:a@b.example' } }, -32602],
    ['set without a config', 'tasks/pushNotificationConfig/set', { taskId: '$task' }, -32602],
    ['delete without a config id', 'tasks/pushNotificationConfig/delete', { id: '$task' }, -32602],
  ])('refuses to %s', async (_what, method, params, code) => {
    const { handle } = await server();
    const taskId = await newTask(caller(handle, '1.0'));
    const error = (await caller(handle, '0.3')(method, JSON.parse(JSON.stringify(params).replace('$task', taskId)))).error;
    expect(error?.code).toBe(code);
    expect(error).not.toHaveProperty('data');
  });

  it('sends a config made inline with message/send the whole 0.3 task, with the token header', async () => {
    const hook = await startWebhook();
    const { handle } = await server();
    const rpc = caller(handle, '0.3');
    const sent = await rpc('message/send', { message: v03Message('old'), configuration: { blocking: true, pushNotificationConfig: { url: hook.url, token: 'tok-03' } } });
    expect((sent.result as { status: { state: string } }).status.state).toBe('completed');
    await eventually(() => expect(hook.delivered).toHaveLength(4));
    expect(hook.delivered.map((r) => [r.json.kind, (r.json.status as { state: string }).state])).toEqual([
      ['task', 'submitted'],
      ['task', 'working'],
      ['task', 'working'],
      ['task', 'completed'],
    ]);
    expect(hook.delivered[3]?.headers).toMatchObject({ 'content-type': 'application/json', 'x-a2a-notification-token': 'tok-03' });
  });
});

describe('push config routes of the 1.0 REST binding', () => {
  it('create (201), list, get and delete (204) run the same methods', async () => {
    const hook = await startWebhook();
    const { handle } = await server();
    const taskId = await newTask(caller(handle, '1.0'));
    const rest = async (method: string, path: string, body?: unknown) => {
      const response = await handle({ method, path, query: new URLSearchParams(), headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body: body === undefined ? '' : JSON.stringify(body) });
      return { status: response.status, json: 'body' in response && response.body !== '' ? (JSON.parse(response.body) as Record<string, unknown>) : undefined };
    };
    const created = await rest('POST', `/tasks/${taskId}/pushNotificationConfigs`, { id: 'r1', url: hook.url });
    expect(created).toEqual({ status: 201, json: { id: 'r1', taskId, url: hook.url } });
    expect((await rest('GET', `/tasks/${taskId}/pushNotificationConfigs`)).json).toEqual({ configs: [{ id: 'r1', taskId, url: hook.url }], nextPageToken: '' });
    expect((await rest('GET', `/tasks/${taskId}/pushNotificationConfigs/r1`)).status).toBe(200);
    expect((await rest('DELETE', `/tasks/${taskId}/pushNotificationConfigs/r1`)).status).toBe(204);
    expect((await rest('GET', `/tasks/${taskId}/pushNotificationConfigs/r1`)).status).toBe(404);
    expect((await rest('POST', `/tasks/${taskId}/pushNotificationConfigs`, { url: 'ftp://x/' })).status).toBe(400);
  });
});

describe('with push off', () => {
  it('every push method, and a message carrying a config, answer -32003', async () => {
    const { handle, agent } = await server({ push: false });
    const v1 = caller(handle, '1.0');
    const v03 = caller(handle, '0.3');
    for (const method of ['CreateTaskPushNotificationConfig', 'GetTaskPushNotificationConfig', 'ListTaskPushNotificationConfigs', 'DeleteTaskPushNotificationConfig']) {
      expect((await v1(method, { taskId: 'x', id: 'y', url: 'http://127.0.0.1/' })).error?.code, method).toBe(-32003);
    }
    for (const method of ['set', 'get', 'list', 'delete']) {
      expect((await v03(`tasks/pushNotificationConfig/${method}`, { id: 'x' })).error?.code, method).toBe(-32003);
    }
    expect((await v1('SendMessage', { message: v1Message('a'), configuration: { taskPushNotificationConfig: { url: 'https://h.example/' } } })).error?.code).toBe(-32003);
    expect((await v03('message/send', { message: v03Message('b'), configuration: { pushNotificationConfig: { url: 'https://h.example/' } } })).error?.code).toBe(-32003);
    expect((await agent.listTasks()).tasks).toEqual([]);
  });

  it('the card says whether push is on', async () => {
    const card = async (push: boolean) => {
      const { handle } = await server({ push });
      const response = await handle({ method: 'GET', path: '/.well-known/agent-card.json', query: new URLSearchParams(), headers: {}, body: '' });
      return ('body' in response ? JSON.parse(response.body) : {}) as { capabilities: { pushNotifications: boolean } };
    };
    expect((await card(true)).capabilities.pushNotifications).toBe(true);
    expect((await card(false)).capabilities.pushNotifications).toBe(false);
  });
});
