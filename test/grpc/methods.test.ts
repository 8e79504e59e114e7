// The methods over gRPC that the shared client suite does not reach, with the official
// @a2a-js/sdk 1.0 gRPC client as the peer: the push-config methods (and their refusal when push
// is off), the extended card for callers with and without a credential, credentials in metadata
// (bearer token and API key, each the principal of its own tasks), paging through ListTasks, and a
// running task followed and cancelled from a second client on a channel of its own. The server is
// built on the public API (`a2a-lite/server`), as a library user builds one.
import { TaskState, type Task, type TaskPushNotificationConfig } from '@a2a-js/sdk';
import { ClientFactory, type Client, type RequestOptions } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2AHandler, createAgent, listen, MemoryTaskStore, serveGrpc, startPushSender, type A2AHandlerOptions, type GrpcServer, type Listening } from '../../src/server.js';
import { jiajiaCard } from '../../src/card/examples.js';
import { grpcMethod, jsonToMessage } from '../../src/grpc/service.js';
import { detailsOfStatus } from '../../src/grpc/status.js';
import { eventually, startWebhook } from '../fixtures/webhook.js';
import { describeStream, listRequest, sendConfiguration, sendRequest, userMessage } from '../interop/sdk-requests.js';

const TOKEN = ['grpc', '-bearer-', 'Hq61Zt04'].join('');
const KEY = ['grpc', '-key-', 'Mv27Rc95'].join('');
const EXTRA = { skills: [{ id: 'audit', name: 'Audit', description: 'Audits a ledger', tags: ['finance'] }] };
const asAlice: RequestOptions = { serviceParameters: { authorization: `Bearer ${TOKEN}` } };
const asBob: RequestOptions = { serviceParameters: { 'x-api-key': KEY } };

interface Served {
  url: string;
  grpc: GrpcServer;
  release(): void;
  close(): Promise<void>;
}

/** Our agent on HTTP and gRPC: "wait" runs until released or cancelled, anything else echoes. */
async function serve(options: Omit<Partial<A2AHandlerOptions>, 'push'> & { push?: boolean } = {}): Promise<Served> {
  let open = () => {};
  let gate = new Promise<void>((resolve) => (open = resolve));
  const store = new MemoryTaskStore();
  const agent = createAgent({
    card: jiajiaCard(),
    store,
    async onTask(task, ctx) {
      await ctx.status('working', { message: `working on: ${task.text}` });
      if (task.text === 'wait') await Promise.race([gate, new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))]);
      return ctx.signal.aborted ? undefined : `echo: ${task.text}`;
    },
  });
  const push = options.push === true ? await startPushSender({ agent, store, allowPrivateNetworks: true }) : undefined;
  let url = '';
  const served: { grpc?: string } = {};
  const { push: _wanted, ...handlerOptions } = options;
  const handler = createA2AHandler({ agent, baseUrl: () => url, grpcUrl: () => served.grpc, ...(push === undefined ? {} : { push }), ...handlerOptions });
  const http: Listening = await listen(handler);
  url = http.url;
  const grpc = await serveGrpc(handler);
  served.grpc = grpc.target;
  return {
    url,
    grpc,
    release: () => {
      open();
      gate = new Promise<void>((resolve) => (open = resolve));
    },
    close: async () => {
      open();
      await grpc.close(100);
      await http.close();
      await push?.close();
      await agent.close();
    },
  };
}

/** An SDK client that speaks gRPC only, on a channel of its own. */
/** One unary call with raw @grpc/grpc-js: the method's message made from 1.0 JSON, sent as it is. */
function rawCall(target: string, method: string, json: unknown, metadata = new grpc.Metadata()): Promise<{ answer?: Buffer; error?: grpc.ServiceError }> {
  const client = new grpc.Client(target, grpc.credentials.createInsecure());
  const bytes = (value: Uint8Array): Buffer => Buffer.from(value);
  return new Promise((resolve) => {
    client.makeUnaryRequest(grpcMethod(method).path, bytes, bytes, jsonToMessage(grpcMethod(method).input, json), metadata, { deadline: Date.now() + 10_000 }, (error, answer) => {
      client.close();
      resolve(error ? { error } : { answer: answer! });
    });
  });
}

const grpcClient = (url: string): Promise<Client> => new ClientFactory({ transports: [new GrpcTransportFactory()] }).createFromUrl(url);
const stateOf = (task: Task): string => TaskState[task.status!.state];
const started = async (client: Client, text: string, options?: RequestOptions): Promise<Task> => {
  const answer = await client.sendMessage(sendRequest(userMessage(text), sendConfiguration({ returnImmediately: true })), options);
  if (!('status' in answer)) throw new Error('expected a task');
  return answer;
};
const finished = async (client: Client, text: string, options?: RequestOptions): Promise<Task> => {
  const answer = await client.sendMessage(sendRequest(userMessage(text)), options);
  if (!('status' in answer)) throw new Error('expected a task');
  return answer;
};

let guarded: Served;
let plain: Served;
let alice: Client;
let bob: Client;
let anonymous: Client;

beforeAll(async () => {
  guarded = await serve({
    push: true,
    auth: { bearerTokens: [{ principal: 'alice', secret: TOKEN }], apiKeys: [{ principal: 'bob', secret: KEY }], maxFailuresPerMinute: 1000 },
    // Alice has an extended card; Bob, authenticated too, has none configured.
    extendedCard: (principal) => (principal === 'alice' ? EXTRA : undefined),
  });
  plain = await serve();
  [alice, bob, anonymous] = await Promise.all([grpcClient(guarded.url), grpcClient(guarded.url), grpcClient(plain.url)]);
});
afterAll(async () => {
  await guarded?.close();
  await plain?.close();
});

describe('push-config methods over gRPC (§10.4.7–10.4.10)', () => {
  it('creates, gets, lists and deletes a config, and the webhook hears the task end', async () => {
    expect(alice.transport.protocolName).toBe('GRPC');
    const hook = await startWebhook();
    const task = await started(alice, 'wait', asAlice);
    const config = (id: string): TaskPushNotificationConfig => ({ tenant: '', id, taskId: task.id, url: hook.url, token: `token-${id}`, authentication: undefined });
    expect(await alice.createTaskPushNotificationConfig(config('first'), asAlice)).toMatchObject({ id: 'first', taskId: task.id, url: hook.url, token: 'token-first' });
    await alice.createTaskPushNotificationConfig(config('second'), asAlice);
    expect(await alice.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'second' }, asAlice)).toMatchObject({ id: 'second', url: hook.url });
    const listed = await alice.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' }, asAlice);
    expect(listed.configs.map((c) => c.id)).toEqual(['first', 'second']);

    guarded.release();
    await eventually(() => expect(hook.delivered.filter((post) => JSON.stringify(post.json).includes('TASK_STATE_COMPLETED'))).toHaveLength(2));
    expect(new Set(hook.delivered.map((post) => post.headers['x-a2a-notification-token']))).toEqual(new Set(['token-first', 'token-second']));

    await alice.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'first' }, asAlice);
    expect((await alice.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' }, asAlice)).configs.map((c) => c.id)).toEqual(['second']);
    await expect(alice.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'first' }, asAlice)).rejects.toMatchObject({ name: 'TaskNotFoundError' });
  });

  it('deletes a config that is already gone without an error: delete is idempotent (§3.1.10)', async () => {
    const task = await finished(alice, 'for delete', asAlice);
    await expect(alice.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'never-made' }, asAlice)).resolves.toBeUndefined();
    await expect(alice.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'never-made' }, asAlice)).resolves.toBeUndefined();
  });

  it("keeps one principal's configs from another: Bob cannot read or list Alice's", async () => {
    const hook = await startWebhook();
    const task = await finished(alice, 'alice only', asAlice);
    await alice.createTaskPushNotificationConfig({ tenant: '', id: 'mine', taskId: task.id, url: hook.url, token: '', authentication: undefined }, asAlice);
    await expect(bob.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'mine' }, asBob)).rejects.toMatchObject({ name: 'TaskNotFoundError' });
    await expect(bob.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' }, asBob)).rejects.toMatchObject({ name: 'TaskNotFoundError' });
  });

  it('answers each push-config method with PushNotificationNotSupported (FAILED_PRECONDITION in 1.0.1) when push is off', async () => {
    // The SDK refuses these itself when the card says push is off: raw calls reach the server.
    const task = await finished(anonymous, 'no push here');
    const calls: [string, unknown][] = [
      ['CreateTaskPushNotificationConfig', { taskId: task.id, url: 'https://example.com/hook' }],
      ['GetTaskPushNotificationConfig', { taskId: task.id, id: 'x' }],
      ['ListTaskPushNotificationConfigs', { taskId: task.id }],
      ['DeleteTaskPushNotificationConfig', { taskId: task.id, id: 'x' }],
    ];
    for (const [method, request] of calls) {
      const { error } = await rawCall(plain.grpc.target, method, request);
      expect(error?.code, method).toBe(grpc.status.FAILED_PRECONDITION);
      expect(detailsOfStatus(error?.metadata.get('grpc-status-details-bin')[0] as Buffer), method).toContainEqual(expect.objectContaining({ reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED', domain: 'a2a-protocol.org' }));
    }
  });
});

describe('GetExtendedAgentCard over gRPC (§10.4.11)', () => {
  it('gives an authenticated caller the extended card', async () => {
    const card = await alice.transport.getExtendedAgentCard({ tenant: '' }, asAlice);
    expect(card.skills.map((skill) => skill.id)).toEqual(['research', 'podcast-script', 'audit']);
  });

  it('refuses a caller with no credential as UNAUTHENTICATED', async () => {
    await expect(alice.transport.getExtendedAgentCard({ tenant: '' })).rejects.toMatchObject({ cause: { code: grpc.status.UNAUTHENTICATED } });
  });

  it('answers ExtendedAgentCardNotConfigured to an authenticated caller it has none for', async () => {
    await expect(bob.transport.getExtendedAgentCard({ tenant: '' }, asBob)).rejects.toMatchObject({ name: 'ExtendedAgentCardNotConfiguredError' });
  });

  it('answers UnsupportedOperation when the card offers no extended card', async () => {
    await expect(anonymous.transport.getExtendedAgentCard({ tenant: '' })).rejects.toMatchObject({ name: 'UnsupportedOperationError' });
  });
});

describe('credentials in gRPC metadata', () => {
  it('takes a bearer token and an API key, each the principal of its own tasks', async () => {
    const alices = await finished(alice, 'by token', asAlice);
    const bobs = await finished(bob, 'by key', asBob);
    expect(stateOf(alices)).toBe('TASK_STATE_COMPLETED');
    expect(stateOf(bobs)).toBe('TASK_STATE_COMPLETED');
    expect((await bob.getTask({ tenant: '', id: bobs.id, historyLength: 0 }, asBob)).id).toBe(bobs.id);
    await expect(bob.getTask({ tenant: '', id: alices.id, historyLength: 0 }, asBob)).rejects.toMatchObject({ name: 'TaskNotFoundError' });
    await expect(alice.getTask({ tenant: '', id: bobs.id, historyLength: 0 }, asAlice)).rejects.toMatchObject({ name: 'TaskNotFoundError' });
  });

  it('refuses no credential, a wrong key and a token sent as a key as UNAUTHENTICATED', async () => {
    for (const options of [undefined, { serviceParameters: { 'x-api-key': 'wrong' } }, { serviceParameters: { 'x-api-key': TOKEN } }]) {
      await expect(alice.getTask({ tenant: '', id: 'any', historyLength: 0 }, options)).rejects.toMatchObject({ cause: { code: grpc.status.UNAUTHENTICATED } });
    }
  });
});

describe('tasks over gRPC', () => {
  it('pages through ListTasks: every task once, then no next page', async () => {
    const context = crypto.randomUUID();
    const made: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const answer = await bob.sendMessage(sendRequest(userMessage(`page ${i}`, '', context)), asBob);
      made.push((answer as Task).id);
    }
    const seen: string[] = [];
    let token = '';
    for (let page = 0; page < 10; page += 1) {
      const listed = await bob.listTasks(listRequest({ contextId: context, pageSize: 2, pageToken: token }), asBob);
      expect(listed.tasks.length).toBeLessThanOrEqual(2);
      expect(listed.totalSize).toBe(5);
      seen.push(...listed.tasks.map((task) => task.id));
      token = listed.nextPageToken;
      if (token === '') break;
    }
    expect(seen.sort()).toEqual([...made].sort());
    // A token it did not hand out is a bad argument, which the SDK calls RequestMalformed.
    await expect(bob.listTasks(listRequest({ pageToken: 'not-a-token' }), asBob)).rejects.toMatchObject({ name: 'RequestMalformedError' });
  });

  it('follows a running task from a second client, which sees it end when the first one releases it', async () => {
    const second = await grpcClient(guarded.url);
    const task = await started(alice, 'wait', asAlice);
    const follow = describeStream(second.resubscribeTask({ tenant: '', id: task.id }, asAlice));
    // The subscription is open once the server has sent the task as it stands.
    await eventually(async () => expect((await alice.getTask({ tenant: '', id: task.id, historyLength: 0 }, asAlice)).status?.message).toBeDefined());
    await new Promise((resolve) => setTimeout(resolve, 50));
    guarded.release();
    const seen = await follow;
    expect(seen[0]).toBe('task:TASK_STATE_WORKING');
    expect(seen.at(-1)).toBe('status:TASK_STATE_COMPLETED');
    await expect(describeStream(bob.resubscribeTask({ tenant: '', id: task.id }, asBob))).rejects.toMatchObject({ name: 'TaskNotFoundError' });
  });

  it('cancels a running task, and a second client following it sees CANCELED', async () => {
    const second = await grpcClient(guarded.url);
    const task = await started(alice, 'wait', asAlice);
    const follow = describeStream(second.resubscribeTask({ tenant: '', id: task.id }, asAlice));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const cancelled = await alice.cancelTask({ tenant: '', id: task.id, metadata: undefined }, asAlice);
    expect(stateOf(cancelled)).toBe('TASK_STATE_CANCELED');
    expect((await follow).at(-1)).toBe('status:TASK_STATE_CANCELED');
    expect(stateOf(await second.getTask({ tenant: '', id: task.id, historyLength: 0 }, asAlice))).toBe('TASK_STATE_CANCELED');
    await expect(second.cancelTask({ tenant: '', id: task.id, metadata: undefined }, asBob)).rejects.toMatchObject({ name: 'TaskNotFoundError' });
  });
});
