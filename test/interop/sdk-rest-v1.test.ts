// The official @a2a-js/sdk 1.0 client over HTTP+JSON (REST) against our server, over real HTTP.
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiteServer, type LiteServer } from './lite-server.js';

let server: LiteServer;
let client: Client;
let counter = 0;
/** Every request the client made: method, path and the headers that matter here. */
const wire: { method: string; path: string; version: string | null; contentType: string | null }[] = [];

const watch: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  const url = new URL(input instanceof Request ? input.url : String(input));
  wire.push({ method: init?.method ?? 'GET', path: url.pathname, version: headers.get('a2a-version'), contentType: headers.get('content-type') });
  return fetch(input, init);
};

const userMessage = (text: string, taskId = '', contextId = ''): Message => ({
  messageId: `sdk-rest-${(counter += 1)}`,
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

const sendAndReturn = (text: string) =>
  client.sendMessage({
    tenant: '',
    message: userMessage(text),
    configuration: { acceptedOutputModes: [], historyLength: undefined, returnImmediately: true, taskPushNotificationConfig: undefined },
    metadata: undefined,
  });

const asTask = (value: Message | Task): Task => {
  if ('messageId' in value) throw new Error('expected a task, got a message');
  return value;
};

const textOf = (task: Task) => task.artifacts[0]?.parts[0]?.content;

beforeAll(async () => {
  server = await startLiteServer();
  // Only the REST factory: createFrom would merge in the default JSON-RPC one, which the card prefers.
  const factory = new ClientFactory({ transports: [new RestTransportFactory({ fetchImpl: watch })] });
  client = await factory.createFromUrl(server.url);
});

afterAll(async () => {
  server.release();
  await server.close();
});

describe('the @a2a-js/sdk 1.0 client over REST against a2a-lite', () => {
  it('finds the HTTP+JSON interface in our card, at the base URL', async () => {
    expect(client.transport.protocolName).toBe('HTTP+JSON');
    expect(client.protocolVersion).toBe('1.0');
    await send('where');
    expect(wire.at(-1)).toEqual({ method: 'POST', path: '/message:send', version: '1.0', contentType: 'application/json' });
  });

  it('keeps to JSON-RPC when the client may use both, and takes REST when told to prefer it', async () => {
    const both = await new ClientFactory().createFromUrl(server.url);
    expect(both.transport.protocolName).toBe('JSONRPC');
    const preferring = await new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ['HTTP+JSON'] })).createFromUrl(server.url);
    expect(preferring.transport.protocolName).toBe('HTTP+JSON');
    const task = asTask(await preferring.sendMessage({ tenant: '', message: userMessage('preferred'), configuration: undefined, metadata: undefined }));
    expect(textOf(task)).toEqual({ $case: 'text', value: 'echo: preferred' });
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
    expect(wire.at(-1)).toMatchObject({ method: 'POST', path: '/message:stream' });
  });

  it('gets and lists tasks', async () => {
    const task = asTask(await send('for get'));
    const got = await client.getTask({ tenant: '', id: task.id, historyLength: 1 });
    expect(got.id).toBe(task.id);
    expect(got.history).toHaveLength(1);
    expect(wire.at(-1)).toMatchObject({ method: 'GET', path: `/tasks/${task.id}` });
    const list = await client.listTasks({
      tenant: '',
      contextId: task.contextId,
      status: TaskState.TASK_STATE_COMPLETED,
      pageSize: 10,
      pageToken: '',
      historyLength: 0,
      statusTimestampAfter: undefined,
      includeArtifacts: true,
    });
    expect(list.tasks.map((t) => t.id)).toEqual([task.id]);
    expect(list.tasks[0]?.history).toEqual([]);
    expect(list.tasks[0]?.artifacts).toHaveLength(1);
    expect(list.totalSize).toBe(1);
    expect(list.pageSize).toBe(10);
    expect(list.nextPageToken).toBe('');
    expect(wire.at(-1)).toMatchObject({ method: 'GET', path: '/tasks' });
  });

  it('pages through the task list with the tokens it hands out', async () => {
    const query = { tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 2, historyLength: 0, statusTimestampAfter: undefined, includeArtifacts: false };
    const first = await client.listTasks({ ...query, pageToken: '' });
    expect(first.tasks).toHaveLength(2);
    expect(first.nextPageToken).not.toBe('');
    const second = await client.listTasks({ ...query, pageToken: first.nextPageToken });
    expect(second.tasks.map((t) => t.id)).not.toContain(first.tasks[0]?.id);
  });

  it('answers a question asked with input-required in the same task', async () => {
    const asked = asTask(await send('ask me'));
    expect(TaskState[asked.status!.state]).toBe('TASK_STATE_INPUT_REQUIRED');
    const done = asTask(await send('last week', asked.id, asked.contextId));
    expect(done.id).toBe(asked.id);
    expect(textOf(done)).toEqual({ $case: 'text', value: 'research over last week' });
  });

  it('cancels a running task, and refuses to cancel an ended one', async () => {
    const running = asTask(await sendAndReturn('wait for me'));
    const cancelled = await client.cancelTask({ tenant: '', id: running.id, metadata: undefined });
    expect(TaskState[cancelled.status!.state]).toBe('TASK_STATE_CANCELED');
    expect(wire.at(-1)).toMatchObject({ method: 'POST', path: `/tasks/${running.id}:cancel` });
    const again = await client.cancelTask({ tenant: '', id: running.id, metadata: undefined });
    expect(TaskState[again.status!.state]).toBe('TASK_STATE_CANCELED');
    const ended = asTask(await send('quick'));
    await expect(client.cancelTask({ tenant: '', id: ended.id, metadata: undefined })).rejects.toMatchObject({ name: 'TaskNotCancelableError', statusCode: 400 });
  });

  it('reports a task that does not exist', async () => {
    await expect(client.getTask({ tenant: '', id: 'nope', historyLength: undefined })).rejects.toMatchObject({ name: 'TaskNotFoundError', statusCode: 404 });
    await expect(client.cancelTask({ tenant: '', id: 'nope', metadata: undefined })).rejects.toMatchObject({ name: 'TaskNotFoundError', statusCode: 404 });
    await expect(send('x', 'nope')).rejects.toMatchObject({ name: 'TaskNotFoundError' });
  });

  it('resubscribes to a running task and follows it to the end', async () => {
    const running = asTask(await sendAndReturn('wait a bit'));
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
    expect(wire.at(-1)).toMatchObject({ method: 'POST', path: `/tasks/${running.id}:subscribe` });
  });

  it('refuses a resubscription to an ended task', async () => {
    const ended = asTask(await send('done already'));
    const attempt = (async () => {
      for await (const _event of client.resubscribeTask({ tenant: '', id: ended.id })) {
        // Nothing should arrive.
      }
    })();
    await expect(attempt).rejects.toMatchObject({ name: 'UnsupportedOperationError', statusCode: 400 });
  });

  it('follows a running task over GET :subscribe too, which the proto names', async () => {
    const running = asTask(await sendAndReturn('wait over GET'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const response = await fetch(`${server.url}/tasks/${running.id}:subscribe`, { headers: { 'a2a-version': '1.0', accept: 'text/event-stream' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    setTimeout(() => server.release(), 50);
    const events = (await response.text()).split('\n\n').filter((chunk) => chunk !== '');
    expect(JSON.parse(events[0]!.slice('data: '.length))).toMatchObject({ task: { id: running.id, status: { state: 'TASK_STATE_WORKING' } } });
    expect(JSON.parse(events.at(-1)!.slice('data: '.length))).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } } });
  });
});
