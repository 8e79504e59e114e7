// A2A 0.3 against our server, over real HTTP: the official @a2a-js/sdk client with its 0.3
// transport (LegacyJsonRpcTransport), then raw JSON-RPC to pin the exact 0.3 wire shapes.
import type { AgentCard } from '@a2a-js/sdk';
import { Client, ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { describe, expect, it } from 'vitest';
import { sdkClientSuite, sdkSession } from './sdk-client-suite.js';
import { asTask, describeStream, listRequest, sendRequest, textOf, userMessage } from './sdk-requests.js';

type Json = Record<string, unknown>;

let rawCard: Json;
/** Responses the SDK client received, cloned so their bodies can be read afterwards. */
const sniffed: Response[] = [];

const sniffingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  sniffed.push(response.clone());
  return response;
};

/** The `result` of each `data:` line of an SSE body, in order. */
const sseResults = (body: string): Json[] =>
  body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => (JSON.parse(line.slice('data: '.length)) as { result: Json }).result);

const session = sdkSession(async (server) => {
  // The card a client that says it speaks 0.3 gets: the hybrid (card-shape.ts).
  rawCard = (await (await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '0.3' } })).json()) as Json;
  // Route B: the SDK resolves the hybrid card as 1.0, so the 0.3 transport is chosen by hand,
  // aimed at the card's 0.3 `url`.
  const card = await new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }).resolve(server.url);
  return new Client(new LegacyJsonRpcTransport({ endpoint: rawCard.url as string, fetchImpl: sniffingFetch }), card);
});

describe('our card, as 0.3 and 1.0 clients read it', () => {
  it('holds the 0.3 fields next to the 1.0 ones', () => {
    expect(rawCard).toMatchObject({
      protocolVersion: '0.3.0',
      url: `${session.server.url}/jsonrpc`,
      preferredTransport: 'JSONRPC',
      capabilities: { streaming: true, pushNotifications: false },
      defaultInputModes: expect.any(Array),
      defaultOutputModes: expect.any(Array),
      supportsAuthenticatedExtendedCard: false,
      supportedInterfaces: [
        { url: `${session.server.url}/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: session.server.url, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
        { url: `${session.server.url}/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      ],
    });
    for (const skill of rawCard.skills as Json[]) expect(skill).toMatchObject({ id: expect.any(String), name: expect.any(String), description: expect.any(String), tags: expect.any(Array) });
  });

  it('is served at the older /.well-known/agent.json too, to a client that says no version', async () => {
    expect(await (await fetch(`${session.server.url}/.well-known/agent.json`)).json()).toEqual(rawCard);
  });

  it('leads the SDK factory to 1.0 even with legacy support on, since it has supportedInterfaces', async () => {
    const legacy = { legacyCompat: { enabled: true } };
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        cardResolver: new DefaultAgentCardResolver(legacy),
        transports: [new JsonRpcTransportFactory(legacy)],
      }),
    );
    const picked = await factory.createFromUrl(session.server.url);
    expect(picked.protocolVersion).toBe('1.0');
  });

  it('leads a client that reads only the 0.3 fields to the 0.3 transport, which works', async () => {
    const methods: string[] = [];
    const watch: typeof fetch = (input, init) => {
      methods.push((JSON.parse(String(init?.body)) as { method: string }).method);
      return fetch(input, init);
    };
    const legacy = { legacyCompat: { enabled: true } };
    const { supportedInterfaces: _ignored, ...pure03 } = rawCard;
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        cardResolver: new DefaultAgentCardResolver(legacy),
        transports: [new JsonRpcTransportFactory({ ...legacy, fetchImpl: watch })],
      }),
    );
    const pureClient = await factory.createFromAgentCard(pure03 as unknown as AgentCard);
    expect(pureClient.protocolVersion).toBe('0.3');
    const task = asTask(await pureClient.sendMessage(sendRequest(userMessage('pure'))));
    expect(textOf(task)).toEqual({ $case: 'text', value: 'echo: pure' });
    expect(methods).toEqual(['message/send']);
  });
});

describe('the @a2a-js/sdk 0.3 client against a2a-lite', () => {
  it('speaks JSON-RPC 0.3', () => {
    expect(session.client.transport.protocolName).toBe('JSONRPC');
    expect(session.client.protocolVersion).toBe('0.3');
  });

  sdkClientSuite(session, { lists: false, subscribesThroughInput: false });

  it('marks the last update of a stream final: true on the wire', async () => {
    await describeStream(session.client.sendMessageStream(sendRequest(userMessage('stream me'))));
    const wire = sseResults(await sniffed.at(-1)!.text());
    expect(wire.map((r) => r.kind)).toEqual(['task', 'status-update', 'artifact-update', 'status-update']);
    expect(wire.filter((r) => r.kind === 'status-update').map((r) => r.final)).toEqual([false, true]);
  });

  it('marks the question that ends a stream final: true on the wire', async () => {
    await describeStream(session.client.sendMessageStream(sendRequest(userMessage('ask in a stream'))));
    const wire = sseResults(await sniffed.at(-1)!.text());
    expect(wire.at(-1)).toMatchObject({ kind: 'status-update', status: { state: 'input-required' }, final: true });
  });

  it('has no tasks/list, as 0.3 had none over JSON-RPC', async () => {
    await expect(session.client.listTasks(listRequest())).rejects.toThrow('tasks/list');
  });
});

describe('A2A 0.3 on the wire', () => {
  let calls = 0;
  const post = async (body: unknown, headers: Record<string, string> = {}) =>
    fetch(rawCard.url as string, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const rpc = async (method: string, params: unknown, headers: Record<string, string> = {}) => {
    const id = (calls += 1);
    const response = await post({ jsonrpc: '2.0', id, method, params }, headers);
    expect(response.status).toBe(200);
    const reply = (await response.json()) as { id: unknown; result?: Json; error?: Json };
    expect(reply.id).toBe(id);
    return reply;
  };
  const message = (text: string, extra: Json = {}) => ({ kind: 'message', messageId: `raw-${(calls += 1)}`, role: 'user', parts: [{ kind: 'text', text }], ...extra });
  const stamp = expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/);

  it('answers message/send without a version header with a bare 0.3 task', async () => {
    const sent = message('shape');
    const { result } = await rpc('message/send', { message: sent });
    const id = result!.id as string;
    const contextId = result!.contextId as string;
    const finalWords = { kind: 'message', messageId: expect.any(String), role: 'agent', parts: [{ kind: 'text', text: 'echo: shape' }], contextId, taskId: id };
    expect(result).toEqual({
      kind: 'task',
      id: expect.any(String),
      contextId: expect.any(String),
      status: { state: 'completed', message: finalWords, timestamp: stamp },
      history: [
        { ...sent, contextId, taskId: id },
        { kind: 'message', messageId: expect.any(String), role: 'agent', parts: [{ kind: 'text', text: 'working on: shape' }], contextId, taskId: id },
        finalWords,
      ],
      artifacts: [{ artifactId: expect.any(String), name: 'result', parts: [{ kind: 'text', text: 'echo: shape' }] }],
    });
  });

  it.each(['0.3', '0.3.0', ' 0.3 '])('serves A2A-Version "%s" as 0.3', async (version) => {
    const { result } = await rpc('message/send', { message: message('versioned') }, { 'a2a-version': version });
    expect(result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
  });

  it('still serves a 1.0 method sent without a header as 1.0', async () => {
    const { result } = await rpc('SendMessage', { message: { messageId: 'v1-raw', role: 'ROLE_USER', parts: [{ text: 'old habit' }] } });
    expect(result).toMatchObject({ task: { status: { state: 'TASK_STATE_COMPLETED' } } });
  });

  it('spells a cancelled task "canceled", with one l, and keeps the agent’s words', async () => {
    const { result: started } = await rpc('message/send', { message: message('wait raw'), configuration: { blocking: false } });
    expect(started).toMatchObject({ kind: 'task', status: { state: expect.stringMatching(/^(submitted|working)$/) } });
    const { result } = await rpc('tasks/cancel', { id: started!.id });
    expect(result).toMatchObject({
      kind: 'task',
      status: { state: 'canceled', message: { kind: 'message', role: 'agent', parts: [{ kind: 'text', text: expect.any(String) }] }, timestamp: stamp },
    });
  });

  it('maps interrupted states: a question is "input-required"', async () => {
    const { result } = await rpc('message/send', { message: message('ask raw') });
    expect(result).toMatchObject({ kind: 'task', status: { state: 'input-required', message: { kind: 'message', role: 'agent', parts: [{ kind: 'text', text: 'which time range?' }] } } });
    const { result: done } = await rpc('message/send', { message: message('today', { taskId: result!.id, contextId: result!.contextId }) });
    expect(done).toMatchObject({ id: result!.id, status: { state: 'completed' }, artifacts: [{ parts: [{ kind: 'text', text: 'research over today' }] }] });
  });

  it('keeps file and data parts in their 0.3 form', async () => {
    const parts = [
      { kind: 'text', text: 'files' },
      { kind: 'file', file: { bytes: 'aGVsbG8=', mimeType: 'text/plain', name: 'hello.txt' } },
      { kind: 'file', file: { uri: 'https://example.com/a.pdf', mimeType: 'application/pdf' } },
      { kind: 'data', data: { k: 1 } },
    ];
    const { result } = await rpc('message/send', { message: { kind: 'message', messageId: 'files-1', role: 'user', parts } });
    expect((result!.history as Json[])[0]!.parts).toEqual(parts);
  });

  it('reads tasks/get with historyLength', async () => {
    const { result: sent } = await rpc('message/send', { message: message('get raw') });
    const { result } = await rpc('tasks/get', { id: sent!.id, historyLength: 1 });
    expect(result).toMatchObject({ kind: 'task', id: sent!.id, status: { state: 'completed' } });
    expect(result!.history).toHaveLength(1);
    const { result: bare } = await rpc('tasks/get', { id: sent!.id, historyLength: 0 });
    expect(bare).not.toHaveProperty('history');
  });

  it('streams bare 0.3 events over SSE, echoing the request id', async () => {
    const response = await post({ jsonrpc: '2.0', id: 'stream-1', method: 'message/stream', params: { message: message('sse') } });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const lines = (await response.text()).split('\n').filter((line) => line.startsWith('data: '));
    const replies = lines.map((line) => JSON.parse(line.slice('data: '.length)) as { jsonrpc: string; id: unknown; result: Json });
    expect(replies.every((r) => r.jsonrpc === '2.0' && r.id === 'stream-1')).toBe(true);
    const [task, working, artifact, done] = replies.map((r) => r.result);
    expect(task).toMatchObject({ kind: 'task', status: { state: 'submitted' } });
    expect(working).toEqual({ kind: 'status-update', taskId: task!.id, contextId: task!.contextId, status: expect.objectContaining({ state: 'working' }), final: false });
    expect(artifact).toEqual({
      kind: 'artifact-update',
      taskId: task!.id,
      contextId: task!.contextId,
      artifact: { artifactId: expect.any(String), name: 'result', parts: [{ kind: 'text', text: 'echo: sse' }] },
      append: false,
      lastChunk: true,
    });
    const finalWords = { kind: 'message', messageId: expect.any(String), role: 'agent', parts: [{ kind: 'text', text: 'echo: sse' }], contextId: task!.contextId, taskId: task!.id };
    expect(done).toEqual({ kind: 'status-update', taskId: task!.id, contextId: task!.contextId, status: { state: 'completed', message: finalWords, timestamp: stamp }, final: true });
    expect(replies).toHaveLength(4);
  });

  it('closes a resubscription to a task waiting for input with a final update', async () => {
    const { result: asked } = await rpc('message/send', { message: message('ask again') });
    const response = await post({ jsonrpc: '2.0', id: 9, method: 'tasks/resubscribe', params: { id: asked!.id } });
    const results = sseResults(await response.text());
    expect(results.map((r) => r.kind)).toEqual(['task', 'status-update']);
    expect(results[1]).toMatchObject({ taskId: asked!.id, status: { state: 'input-required' }, final: true });
  });

  it('sends errors without the 1.0 ErrorInfo data', async () => {
    const { error } = await rpc('tasks/get', { id: 'nope' });
    expect(error).toEqual({ code: -32001, message: 'no task "nope"' });
    const v1 = await rpc('GetTask', { id: 'nope' }, { 'a2a-version': '1.0' });
    expect(v1.error).toMatchObject({ code: -32001, data: [{ reason: 'TASK_NOT_FOUND' }] });
  });

  it('takes the header’s dialect for errors found before the method is known', async () => {
    const asText = { 'content-type': 'text/plain' };
    const v03 = (await (await post({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } }, asText)).json()) as Json;
    expect(v03.error).toEqual({ code: -32005, message: 'content type "text/plain" is not JSON' });
    const v1 = (await (await post({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }, { ...asText, 'a2a-version': '1.0' })).json()) as Json;
    expect(v1.error).toMatchObject({ code: -32005, data: [{ reason: 'CONTENT_TYPE_NOT_SUPPORTED' }] });
  });

  const refusals: [string, string, unknown, Record<string, string>, number, string][] = [
    ['tasks/list, absent from 0.3', 'tasks/list', {}, {}, -32601, 'no method "tasks/list" in A2A 0.3'],
    ['a 1.0 method under A2A-Version 0.3', 'GetTask', { id: 'x' }, { 'a2a-version': '0.3' }, -32601, 'no method "GetTask" in A2A 0.3'],
    ['a 0.3 method under A2A-Version 1.0', 'tasks/get', { id: 'x' }, { 'a2a-version': '1.0' }, -32601, 'no method "tasks/get" in A2A 1.0'],
    ['a version not served', 'tasks/get', { id: 'x' }, { 'a2a-version': '0.2' }, -32009, 'A2A-Version "0.2" is not supported; this agent speaks 1.0 and 0.3'],
    ['push config set', 'tasks/pushNotificationConfig/set', { taskId: 'x', pushNotificationConfig: { url: 'https://x.test' } }, {}, -32003, 'this agent does not send push notifications'],
    ['push config get', 'tasks/pushNotificationConfig/get', { id: 'x' }, {}, -32003, 'this agent does not send push notifications'],
    ['push config list', 'tasks/pushNotificationConfig/list', { id: 'x' }, {}, -32003, 'this agent does not send push notifications'],
    ['push config delete', 'tasks/pushNotificationConfig/delete', { id: 'x', pushNotificationConfigId: 'y' }, {}, -32003, 'this agent does not send push notifications'],
    ['the extended card', 'agent/getAuthenticatedExtendedCard', undefined, {}, -32004, 'this agent has no extended card; its card is public'],
    ['a 1.0 part', 'message/send', { message: { kind: 'message', messageId: 'p', role: 'user', parts: [{ text: 'hi' }] } }, {}, -32602, 'params.message.parts[0].kind must be "text", "file" or "data"'],
    ['an agent message', 'message/send', { message: { kind: 'message', messageId: 'p', role: 'agent', parts: [{ kind: 'text', text: 'hi' }] } }, {}, -32602, 'params.message.role must be "user"'],
    ['a blocking flag that is not a boolean', 'message/send', { message: { messageId: 'p', role: 'user', parts: [{ kind: 'text', text: 'hi' }] }, configuration: { blocking: 'yes' } }, {}, -32602, 'params.configuration.blocking must be true or false'],
    ['a message to an unknown task', 'message/send', { message: { messageId: 'p', role: 'user', taskId: 'nope', parts: [{ kind: 'text', text: 'hi' }] } }, {}, -32001, 'no task "nope"'],
    ['tasks/get without id', 'tasks/get', {}, {}, -32602, 'params.id is required'],
  ];
  it.each(refusals)('refuses %s', async (_name, method, params, headers, code, text) => {
    const { error } = await rpc(method, params, headers);
    expect(error).toEqual(code === -32009 ? { code, message: text, data: expect.any(Array) } : { code, message: text });
  });
});
