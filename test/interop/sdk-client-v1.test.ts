// The official @a2a-js/sdk 1.0 client (JSON-RPC) against our server, over real HTTP.
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiteServer, type LiteServer } from './lite-server.js';

let server: LiteServer;
let client: Client;
let counter = 0;

const userMessage = (text: string, taskId = '', contextId = ''): Message => ({
  messageId: `sdk-${(counter += 1)}`,
  contextId,
  taskId,
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

const send = (text: string, taskId = '', contextId = '') =>
  client.sendMessage({ tenant: '', message: userMessage(text, taskId, contextId), configuration: undefined, metadata: undefined });

const asTask = (value: Message | Task): Task => {
  if ('messageId' in value) throw new Error('expected a task, got a message');
  return value;
};

const textOf = (task: Task) => task.artifacts[0]?.parts[0]?.content;

beforeAll(async () => {
  server = await startLiteServer();
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory()] }));
  client = await factory.createFromUrl(server.url);
});

afterAll(async () => {
  server.release();
  await server.close();
});

describe('the @a2a-js/sdk 1.0 client against a2a-lite', () => {
  it('reads our agent card and speaks JSON-RPC 1.0', () => {
    expect(client.transport.protocolName).toBe('JSONRPC');
    expect(client.protocolVersion).toBe('1.0');
  });

  it('sends a blocking message and gets the completed task', async () => {
    const task = asTask(await send('hello'));
    expect(TaskState[task.status!.state]).toBe('TASK_STATE_COMPLETED');
    expect(textOf(task)).toEqual({ $case: 'text', value: 'echo: hello' });
    expect(task.history.map((m) => Role[m.role])).toEqual(['ROLE_USER', 'ROLE_AGENT']);
  });

  it('streams the task, its updates and its artifact, in order', async () => {
    const seen: string[] = [];
    for await (const event of client.sendMessageStream({ tenant: '', message: userMessage('stream me'), configuration: undefined, metadata: undefined })) {
      const payload = event.payload;
      if (payload?.$case === 'task') seen.push(`task:${TaskState[payload.value.status!.state]}`);
      if (payload?.$case === 'statusUpdate') seen.push(`status:${TaskState[payload.value.status!.state]}`);
      if (payload?.$case === 'artifactUpdate') seen.push(`artifact:${JSON.stringify(payload.value.artifact?.parts[0]?.content)}`);
    }
    expect(seen).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'artifact:{"$case":"text","value":"echo: stream me"}',
      'status:TASK_STATE_COMPLETED',
    ]);
  });

  it('gets and lists tasks', async () => {
    const task = asTask(await send('for get'));
    const got = await client.getTask({ tenant: '', id: task.id, historyLength: 1 });
    expect(got.id).toBe(task.id);
    expect(got.history).toHaveLength(1);
    const list = await client.listTasks({
      tenant: '',
      contextId: task.contextId,
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageSize: 10,
      pageToken: '',
      historyLength: 0,
      statusTimestampAfter: undefined,
      includeArtifacts: false,
    });
    expect(list.tasks.map((t) => t.id)).toEqual([task.id]);
    expect(list.totalSize).toBe(1);
    expect(list.nextPageToken).toBe('');
  });

  it('answers a question asked with input-required in the same task', async () => {
    const asked = asTask(await send('ask me'));
    expect(TaskState[asked.status!.state]).toBe('TASK_STATE_INPUT_REQUIRED');
    const done = asTask(await send('last week', asked.id, asked.contextId));
    expect(done.id).toBe(asked.id);
    expect(textOf(done)).toEqual({ $case: 'text', value: 'research over last week' });
  });

  it('cancels a running task, and refuses to cancel an ended one', async () => {
    const running = asTask(
      await client.sendMessage({ tenant: '', message: userMessage('wait for me'), configuration: { acceptedOutputModes: [], historyLength: undefined, returnImmediately: true, taskPushNotificationConfig: undefined }, metadata: undefined }),
    );
    const cancelled = await client.cancelTask({ tenant: '', id: running.id, metadata: undefined });
    expect(TaskState[cancelled.status!.state]).toBe('TASK_STATE_CANCELED');
    const ended = asTask(await send('quick'));
    await expect(client.cancelTask({ tenant: '', id: ended.id, metadata: undefined })).rejects.toMatchObject({ name: 'TaskNotCancelableError' });
    await expect(client.getTask({ tenant: '', id: 'nope', historyLength: undefined })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
  });

  it('resubscribes to a running task and follows it to the end', async () => {
    const running = asTask(
      await client.sendMessage({ tenant: '', message: userMessage('wait a bit'), configuration: { acceptedOutputModes: [], historyLength: undefined, returnImmediately: true, taskPushNotificationConfig: undefined }, metadata: undefined }),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    const seen: string[] = [];
    const follow = (async () => {
      for await (const event of client.resubscribeTask({ tenant: '', id: running.id })) {
        const payload = event.payload;
        if (payload?.$case === 'task') seen.push(`task:${TaskState[payload.value.status!.state]}`);
        if (payload?.$case === 'statusUpdate') seen.push(`status:${TaskState[payload.value.status!.state]}`);
        if (payload?.$case === 'artifactUpdate') seen.push('artifact');
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 50));
    server.release();
    await follow;
    expect(seen).toEqual(['task:TASK_STATE_WORKING', 'artifact', 'status:TASK_STATE_COMPLETED']);
  });
});
