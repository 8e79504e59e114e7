// The official @a2a-js/sdk 1.0 client registers webhooks on our server (inline and with the
// config methods) and the webhook gets notifications the SDK's own types read back.
import { StreamResponse, TaskState, type TaskPushNotificationConfig } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createA2AHandler } from '../../src/a2a/server/handler.js';
import { jiajiaCard } from '../../src/card/examples.js';
import { createAgent, type Agent } from '../../src/runtime/agent.js';
import { listen, type Listening } from '../../src/net/node-http.js';
import { startPushSender, type PushSender } from '../../src/serve/push-sender.js';
import { MemoryTaskStore } from '../../src/store/task-store.js';
import { eventually, startWebhook, type Webhook } from '../fixtures/webhook.js';
import { asTask, describeEvent, jsonRpcClient, sendConfiguration, sendRequest, start, userMessage } from './sdk-requests.js';

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
  client = await jsonRpcClient(server.url);
});

afterEach(async () => {
  release();
  await server.close();
  await push.close();
  await agent.close();
});

const pushConfig = (hook: Webhook, taskId = '', id = ''): TaskPushNotificationConfig => ({
  tenant: '',
  id,
  taskId,
  url: hook.url,
  token: 'sdk-token',
  authentication: { scheme: 'Bearer', credentials: 'sdk-credentials' },
});

/** What the webhook was told, each notification read as the SDK reads a stream event. */
const payloads = (hook: Webhook) => hook.delivered.map((r) => describeEvent(StreamResponse.fromJSON(r.json)));

describe('the @a2a-js/sdk 1.0 client and push notifications', () => {
  it('sees pushNotifications in the card', async () => {
    expect((await client.getAgentCard()).capabilities?.pushNotifications).toBe(true);
  });

  it('registers a webhook inline with sendMessage, which gets every update', async () => {
    const hook = await startWebhook();
    const task = asTask(await client.sendMessage(sendRequest(userMessage('inline'), sendConfiguration({ taskPushNotificationConfig: pushConfig(hook) }))));
    expect(TaskState[task.status!.state]).toBe('TASK_STATE_COMPLETED');
    await eventually(() => expect(hook.delivered).toHaveLength(4));
    expect(payloads(hook)).toEqual(['task:TASK_STATE_SUBMITTED', 'status:TASK_STATE_WORKING', 'artifact:{"$case":"text","value":"echo: inline"}', 'status:TASK_STATE_COMPLETED']);
    expect(hook.delivered[3]?.headers).toMatchObject({ authorization: 'Bearer sdk-credentials', 'x-a2a-notification-token': 'sdk-token' });
  });

  it('creates, reads, lists and deletes a config, and the webhook hears the task end', async () => {
    const hook = await startWebhook();
    const taskId = (await start(client, 'wait')).id;
    const created = await client.createTaskPushNotificationConfig(pushConfig(hook, taskId, 'sdk-cfg'));
    expect(created).toMatchObject({ id: 'sdk-cfg', taskId, url: hook.url, token: 'sdk-token', authentication: { scheme: 'Bearer', credentials: '' } });
    expect(await client.getTaskPushNotificationConfig({ tenant: '', taskId, id: 'sdk-cfg' })).toMatchObject({ id: 'sdk-cfg', url: hook.url });
    expect((await client.listTaskPushNotificationConfig({ tenant: '', taskId, pageSize: 0, pageToken: '' })).configs.map((c) => c.id)).toEqual(['sdk-cfg']);

    release();
    await eventually(() => expect(payloads(hook).at(-1)).toBe('status:TASK_STATE_COMPLETED'));
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId, id: 'sdk-cfg' });
    expect((await client.listTaskPushNotificationConfig({ tenant: '', taskId, pageSize: 0, pageToken: '' })).configs).toEqual([]);
    await expect(client.getTaskPushNotificationConfig({ tenant: '', taskId, id: 'sdk-cfg' })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
  });
});
