// The official @a2a-js/sdk 1.0 client registers webhooks on our server (inline and with the
// config methods) and the webhook gets notifications the SDK's own types read back.
import { Role, StreamResponse, TaskState, type Message, type TaskPushNotificationConfig } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createA2AHandler } from '../../src/a2a/handler.js';
import { jiajiaCard } from '../../src/card/examples.js';
import { createAgent, type Agent } from '../../src/runtime/agent.js';
import { listen, type Listening } from '../../src/serve/node-http.js';
import { startPushSender, type PushSender } from '../../src/serve/push-sender.js';
import { MemoryTaskStore } from '../../src/store/task-store.js';
import { eventually, startWebhook, type Webhook } from '../fixtures/webhook.js';

let agent: Agent;
let push: PushSender;
let server: Listening;
let client: Client;
let release: () => void;

beforeEach(async () => {
  let open = () => {};
  const gate = new Promise<void>((resolve) => (open = resolve));
  release = open;
  const store = new MemoryTaskStore();
  agent = createAgent({
    card: jiajiaCard(),
    store,
    async onTask(task, ctx) {
      await ctx.status('working');
      if (task.text === 'wait') await gate;
      return `echo: ${task.text}`;
    },
  });
  push = await startPushSender({ agent, store, allowPrivateNetworks: true });
  let url = '';
  server = await listen(createA2AHandler({ agent, baseUrl: () => url, push }));
  url = server.url;
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory()] }));
  client = await factory.createFromUrl(server.url);
});

afterEach(async () => {
  release();
  await server.close();
  await push.close();
  await agent.close();
});

const userMessage = (text: string): Message => ({
  messageId: `sdk-${text}-${Date.now()}`,
  contextId: '',
  taskId: '',
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

const pushConfig = (hook: Webhook, taskId = '', id = ''): TaskPushNotificationConfig => ({
  tenant: '',
  id,
  taskId,
  url: hook.url,
  token: 'sdk-token',
  authentication: { scheme: 'Bearer', credentials: 'sdk-credentials' },
});

const payloads = (hook: Webhook) =>
  hook.delivered.map((r) => {
    const payload = StreamResponse.fromJSON(r.json).payload;
    if (payload?.$case === 'task' || payload?.$case === 'statusUpdate') return `${payload.$case}:${TaskState[payload.value.status!.state]}`;
    return payload?.$case;
  });

describe('the @a2a-js/sdk 1.0 client and push notifications', () => {
  it('sees pushNotifications in the card', async () => {
    expect((await client.getAgentCard()).capabilities?.pushNotifications).toBe(true);
  });

  it('registers a webhook inline with sendMessage, which gets every update', async () => {
    const hook = await startWebhook();
    const task = await client.sendMessage({
      tenant: '',
      message: userMessage('inline'),
      configuration: { acceptedOutputModes: [], taskPushNotificationConfig: pushConfig(hook), returnImmediately: false },
      metadata: undefined,
    });
    expect('id' in task && TaskState[task.status!.state]).toBe('TASK_STATE_COMPLETED');
    await eventually(() => expect(hook.delivered).toHaveLength(4));
    expect(payloads(hook)).toEqual(['task:TASK_STATE_SUBMITTED', 'statusUpdate:TASK_STATE_WORKING', 'artifactUpdate', 'statusUpdate:TASK_STATE_COMPLETED']);
    expect(hook.delivered[3]?.headers).toMatchObject({ authorization: 'Bearer sdk-credentials', 'x-a2a-notification-token': 'sdk-token' });
  });

  it('creates, reads, lists and deletes a config, and the webhook hears the task end', async () => {
    const hook = await startWebhook();
    const sent = await client.sendMessage({
      tenant: '',
      message: userMessage('wait'),
      configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true },
      metadata: undefined,
    });
    const taskId = 'id' in sent ? sent.id : '';
    const created = await client.createTaskPushNotificationConfig(pushConfig(hook, taskId, 'sdk-cfg'));
    expect(created).toMatchObject({ id: 'sdk-cfg', taskId, url: hook.url, token: 'sdk-token', authentication: { scheme: 'Bearer', credentials: '' } });
    expect(await client.getTaskPushNotificationConfig({ tenant: '', taskId, id: 'sdk-cfg' })).toMatchObject({ id: 'sdk-cfg', url: hook.url });
    expect((await client.listTaskPushNotificationConfig({ tenant: '', taskId, pageSize: 0, pageToken: '' })).configs.map((c) => c.id)).toEqual(['sdk-cfg']);

    release();
    await eventually(() => expect(payloads(hook).at(-1)).toBe('statusUpdate:TASK_STATE_COMPLETED'));
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId, id: 'sdk-cfg' });
    expect((await client.listTaskPushNotificationConfig({ tenant: '', taskId, pageSize: 0, pageToken: '' })).configs).toEqual([]);
    await expect(client.getTaskPushNotificationConfig({ tenant: '', taskId, id: 'sdk-cfg' })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
  });
});
