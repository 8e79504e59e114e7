// Malformed, hostile and wrong requests against the A2A handler, each with the answer the spec gives.
import { describe, expect, it } from 'vitest';
import { createA2AHandler } from '../src/a2a/server/handler.js';
import type { HttpRequest, HttpResponse } from '../src/net/http-types.js';
import { METHODS_V03 } from '../src/a2a/server/jsonrpc-v03.js';
import { METHODS_V1 } from '../src/a2a/server/jsonrpc-v1.js';
import { RESUME_EXTENSION } from '../src/a2a/wire/extensions.js';
import { jiajiaCard } from '../src/card/examples.js';
import type { TaskEvent } from '../src/model/task.js';
import { createAgent } from '../src/runtime/agent.js';
import { MemoryTaskStore } from '../src/store/task-store.js';

const agent = createAgent({ card: jiajiaCard(), onTask: (task) => `echo: ${task.text}` });
const handle = createA2AHandler({ agent, baseUrl: 'http://127.0.0.1:7331' });

const request = (body: string, headers: Record<string, string> = { 'a2a-version': '1.0', 'content-type': 'application/json' }, path = '/jsonrpc', method = 'POST'): HttpRequest => ({
  method,
  path,
  query: new URLSearchParams(),
  headers,
  body,
});

async function rpcError(body: string, headers?: Record<string, string>): Promise<{ code: number; message: string } | undefined> {
  const response = await handle(request(body, headers));
  if (!('body' in response)) throw new Error('expected a JSON response');
  return (JSON.parse(response.body) as { error?: { code: number; message: string } }).error;
}

const call = (method: string, params: unknown, id: unknown = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, params });
const goodMessage = { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] };

describe('the A2A handler refuses bad requests with the spec’s errors', () => {
  it.each([
    ['invalid JSON', '{"jsonrpc": "2.0",', -32700],
    ['an empty body', '', -32700],
    ['a batch', JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }]), -32600],
    ['a string', '"hello"', -32600],
    ['no jsonrpc version', JSON.stringify({ id: 1, method: 'GetTask', params: { id: 'x' } }), -32600],
    ['jsonrpc 1.0', JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'GetTask' }), -32600],
    ['no method', JSON.stringify({ jsonrpc: '2.0', id: 1 }), -32600],
    ['an object id', JSON.stringify({ jsonrpc: '2.0', id: { a: 1 }, method: 'GetTask' }), -32600],
    ['params as an array', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: ['x'] }), -32602],
    ['an unknown method', call('FlyToTheMoon', {}), -32601],
    ['a method of the object prototype', call('constructor', {}), -32601],
    ['SendMessage without a message', call('SendMessage', {}), -32602],
    ['a message without parts', call('SendMessage', { message: { ...goodMessage, parts: [] } }), -32602],
    ['a part with two contents', call('SendMessage', { message: { ...goodMessage, parts: [{ text: 'a', data: 1 }] } }), -32602],
    ['a part with bad base64', call('SendMessage', { message: { ...goodMessage, parts: [{ raw: 'not base64!' }] } }), -32602],
    ['an agent-role message', call('SendMessage', { message: { ...goodMessage, role: 'ROLE_AGENT' } }), -32602],
    ['a message without messageId', call('SendMessage', { message: { role: 'ROLE_USER', parts: [{ text: 'x' }] } }), -32602],
    ['GetTask without id', call('GetTask', {}), -32602],
    ['GetTask of an unknown task', call('GetTask', { id: 'nope' }), -32001],
    ['CancelTask of an unknown task', call('CancelTask', { id: 'nope' }), -32001],
    ['a follow-up to an unknown task', call('SendMessage', { message: { ...goodMessage, taskId: 'nope' } }), -32001],
    ['ListTasks with pageSize 1000', call('ListTasks', { pageSize: 1000 }), -32602],
    ['ListTasks with a forged page token', call('ListTasks', { pageToken: 'forged' }), -32602],
    ['ListTasks with a bad state', call('ListTasks', { status: 'TASK_STATE_DANCING' }), -32602],
    ['push configs', call('CreateTaskPushNotificationConfig', { taskId: 'x', url: 'http://127.0.0.1/' }), -32003],
    ['the extended card, which the card does not offer', call('GetExtendedAgentCard', {}), -32004],
    ['a huge id', call('GetTask', { id: 'x'.repeat(100_000) }, 'y'.repeat(100_000)), -32001],
    ['metadata nested 500 deep', call('SendMessage', { message: { ...goodMessage, metadata: JSON.parse('{"a":'.repeat(500) + '1' + '}'.repeat(500)) } }), -32602],
  ])('%s', async (_what, body, code) => {
    expect((await rpcError(body))?.code).toBe(code);
  });

  it('refuses a version it does not speak', async () => {
    expect(await rpcError(call('GetTask', { id: 'x' }), { 'a2a-version': '2.0' })).toMatchObject({ code: -32009 });
  });

  it('refuses a body that is not JSON by content type', async () => {
    expect(await rpcError(call('GetTask', { id: 'x' }), { 'a2a-version': '1.0', 'content-type': 'text/xml' })).toMatchObject({ code: -32005 });
  });

  it('echoes the id of the request in errors', async () => {
    const response = await handle(request(call('GetTask', { id: 'nope' }, 'abc-7')));
    expect('body' in response && JSON.parse(response.body).id).toBe('abc-7');
  });

  it('answers 404 off the endpoints and 405 for the wrong method', async () => {
    expect((await handle(request('', {}, '/admin', 'GET'))).status).toBe(404);
    expect((await handle(request('', {}, '/jsonrpc', 'GET'))).status).toBe(405);
    expect((await handle(request('x', {}, '/.well-known/agent-card.json', 'POST'))).status).toBe(405);
  });

  it('serves the card from the lite card', async () => {
    const response = await handle(request('', {}, '/.well-known/agent-card.json', 'GET'));
    const card = 'body' in response ? JSON.parse(response.body) : undefined;
    expect(card.supportedInterfaces[0]).toEqual({ url: 'http://127.0.0.1:7331/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
    expect(card).toMatchObject({
      name: '佳佳',
      capabilities: { streaming: true, pushNotifications: false },
      skills: [
        { id: 'research', tags: ['research'], inputModes: ['text/plain'], outputModes: ['text/plain', 'application/octet-stream'] },
        { id: 'podcast-script' },
      ],
    });
  });

  it('leaves what is stored alone after a bad request', async () => {
    const good = await handle(request(call('SendMessage', { message: goodMessage })));
    const task = 'body' in good ? JSON.parse(good.body).result.task : undefined;
    await handle(request(call('CancelTask', { id: task.id })));
    const after = await handle(request(call('GetTask', { id: task.id })));
    expect('body' in after && JSON.parse(after.body).result.status.state).toBe('TASK_STATE_COMPLETED');
  });
});

describe('a trailing slash', () => {
  const body = (response: Awaited<ReturnType<typeof handle>>): string => ('body' in response ? response.body : '');

  it('reaches the same endpoint on every path, and two slashes reach none', async () => {
    const sent = await handle(request(call('SendMessage', { message: goodMessage }), undefined, '/jsonrpc/'));
    expect(sent.status).toBe(200);
    const task = (JSON.parse(body(sent)) as { result: { task: { id: string } } }).result.task;
    expect(task.id).toMatch(/\S/);
    expect((await handle(request('', {}, '/.well-known/agent-card.json/', 'GET'))).status).toBe(200);
    const rest = await handle(request('', { 'a2a-version': '1.0' }, `/tasks/${task.id}/`, 'GET'));
    expect(rest.status).toBe(200);
    expect((JSON.parse(body(rest)) as { id: string }).id).toBe(task.id);
    expect((await handle(request(call('GetTask', { id: task.id }), undefined, '/jsonrpc//'))).status).toBe(404);
    expect((await handle(request(call('GetTask', { id: task.id }), undefined, '/jsonrpc/x/'))).status).toBe(404);
  });
});

describe('the card’s validators (§8.6.1)', () => {
  it('sends an ETag and Last-Modified, and 304 with no body to a client that holds this version', async () => {
    const card = await handle(request('', {}, '/.well-known/agent-card.json', 'GET'));
    expect(card.status).toBe(200);
    const etag = card.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]{32}"$/);
    expect(new Date(card.headers['last-modified'] as string).getTime()).toBeLessThanOrEqual(Date.now());
    for (const held of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await handle(request('', { 'if-none-match': held }, '/.well-known/agent-card.json', 'GET'));
      expect(again.status, held).toBe(304);
      expect('body' in again ? again.body : 'stream').toBe('');
      expect(again.headers.etag).toBe(etag);
    }
    expect((await handle(request('', { 'if-none-match': '"stale"' }, '/.well-known/agent-card.json', 'GET'))).status).toBe(200);
    const later = new Date(Date.now() + 60_000).toUTCString();
    expect((await handle(request('', { 'if-modified-since': later }, '/.well-known/agent-card.json', 'GET'))).status).toBe(304);
    expect((await handle(request('', { 'if-modified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' }, '/.well-known/agent-card.json', 'GET'))).status).toBe(200);
    // If-None-Match wins over If-Modified-Since.
    expect((await handle(request('', { 'if-none-match': '"stale"', 'if-modified-since': later }, '/.well-known/agent-card.json', 'GET'))).status).toBe(200);
  });
});

describe('the card for each version', () => {
  const cardFor = async (headers: Record<string, string>, path = '/.well-known/agent-card.json', handler = handle, query = '') => {
    const response = await handler({ ...request('', headers, path, 'GET'), query: new URLSearchParams(query) });
    return { response, card: JSON.parse('body' in response ? response.body : '{}') as Record<string, unknown> };
  };
  const V03_FIELDS = ['url', 'preferredTransport', 'protocolVersion', 'security', 'supportsAuthenticatedExtendedCard'];
  const compat = createA2AHandler({ agent, baseUrl: 'http://127.0.0.1:7331', cardCompat: '0.3' });

  it('gives the 1.0 card to a 1.0 client and to one that says nothing, and the hybrid to a 0.3 client', async () => {
    const { response, card } = await cardFor({ 'a2a-version': '1.0' });
    for (const field of V03_FIELDS) expect(card, field).not.toHaveProperty(field);
    expect(card.supportedInterfaces).toEqual(expect.arrayContaining([expect.objectContaining({ protocolBinding: 'JSONRPC', protocolVersion: '1.0' })]));
    expect(response.headers.vary).toBe('A2A-Version');
    expect((await cardFor({})).card).toEqual(card);
    const hybrid = await cardFor({ 'a2a-version': '0.3' });
    expect(hybrid.card).toMatchObject({ url: 'http://127.0.0.1:7331/jsonrpc', preferredTransport: 'JSONRPC', protocolVersion: '0.3.0' });
    expect(hybrid.card.supportedInterfaces).toEqual(card.supportedInterfaces);
    // Each version has its own ETag.
    expect(hybrid.response.headers.etag).not.toBe(response.headers.etag);
  });

  // [who asks, headers, path, query, the shape by default, the shape with cardCompat 0.3]
  const cases: [string, Record<string, string>, string, string, 'v1' | 'hybrid', 'v1' | 'hybrid'][] = [
    ['no version at the 1.0 path', {}, '/.well-known/agent-card.json', '', 'v1', 'hybrid'],
    ['no version at the older path', {}, '/.well-known/agent.json', '', 'hybrid', 'hybrid'],
    ['A2A-Version 1.0 at the older path', { 'a2a-version': '1.0' }, '/.well-known/agent.json', '', 'v1', 'v1'],
    ['A2A-Version 1.0.1', { 'a2a-version': '1.0.1' }, '/.well-known/agent-card.json', '', 'v1', 'v1'],
    ['A2A-Version 0.3', { 'a2a-version': '0.3' }, '/.well-known/agent-card.json', '', 'hybrid', 'hybrid'],
    ['A2A-Version 0.3.0', { 'a2a-version': '0.3.0' }, '/.well-known/agent-card.json', '', 'hybrid', 'hybrid'],
    ['A2A-Version 0.2.5', { 'a2a-version': '0.2.5' }, '/.well-known/agent-card.json', '', 'hybrid', 'hybrid'],
    ['the version as a query parameter, 0.3', {}, '/.well-known/agent-card.json', 'A2A-Version=0.3', 'hybrid', 'hybrid'],
    ['the version as a query parameter, 1.0', {}, '/.well-known/agent-card.json', 'a2a-version=1.0', 'v1', 'v1'],
    ['a version not served (2.0)', { 'a2a-version': '2.0' }, '/.well-known/agent-card.json', '', 'v1', 'hybrid'],
    ['an empty header', { 'a2a-version': ' ' }, '/.well-known/agent-card.json', '', 'v1', 'hybrid'],
  ];
  it.each(cases)('%s', async (_name, headers, path, query, byDefault, withCompat) => {
    const shapeOf = (card: Record<string, unknown>) => ('url' in card ? 'hybrid' : 'v1');
    expect(shapeOf((await cardFor(headers, path, handle, query)).card)).toBe(byDefault);
    expect(shapeOf((await cardFor(headers, path, compat, query)).card)).toBe(withCompat);
  });

  it('refuses a card compatibility it does not know', () => {
    expect(() => createA2AHandler({ agent, baseUrl: 'http://127.0.0.1:7331', cardCompat: '0.2' as '0.3' })).toThrow('the card compatibility is 1.0 or 0.3, not "0.2"');
  });
});

describe('an extension the card marks required (§3.3.4, §4.6.3)', () => {
  const SIGNED = 'https://example.com/extensions/signed-messages/v1';
  const strictAgent = createAgent({ card: jiajiaCard(), onTask: (task) => `echo: ${task.text}` });
  const strict = createA2AHandler({ agent: strictAgent, baseUrl: 'http://127.0.0.1:7331', extensions: [{ uri: SIGNED, description: 'Every message is signed', required: true }] });
  const reply = (response: HttpResponse) => JSON.parse('body' in response ? response.body : '{}') as { result?: Record<string, unknown>; error?: Record<string, unknown> };
  const rpc = async (body: string, headers: Record<string, string>) => reply(await strict(request(body, { 'content-type': 'application/json', ...headers })));
  const refusal = { code: -32008, message: `this agent requires the extension ${SIGNED}; name it in the A2A-Extensions header (X-A2A-Extensions in 0.3)` };
  const errorInfo = [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'EXTENSION_SUPPORT_REQUIRED', domain: 'a2a-protocol.org' }];

  it.each(Object.keys(METHODS_V1))('refuses %s without it, with ErrorInfo EXTENSION_SUPPORT_REQUIRED', async (method) => {
    expect((await rpc(call(method, { id: 'x', taskId: 'x', message: goodMessage }), { 'a2a-version': '1.0', 'a2a-extensions': RESUME_EXTENSION })).error).toEqual({ ...refusal, data: errorInfo });
  });

  it.each(Object.keys(METHODS_V03))('refuses 0.3 %s without it, with no data', async (method) => {
    expect((await rpc(call(method, { id: 'x', taskId: 'x' }), { 'a2a-version': '0.3' })).error).toEqual(refusal);
  });

  it('serves a request that names it among others, even unknown ones, and refuses one that names another version of it', async () => {
    const names = `${RESUME_EXTENSION}, https://example.com/extensions/unknown/v1, ${SIGNED}`;
    const sent = await rpc(call('SendMessage', { message: goodMessage }), { 'a2a-version': '1.0', 'a2a-extensions': names });
    expect(sent.result?.task).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' } });
    const v03 = await rpc(call('message/send', { message: { kind: 'message', messageId: 'm03', role: 'user', parts: [{ kind: 'text', text: 'hi' }] } }), { 'a2a-version': '0.3', 'x-a2a-extensions': SIGNED });
    expect(v03.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect((await rpc(call('GetTask', { id: 'x' }), { 'a2a-version': '1.0', 'a2a-extensions': SIGNED.replace('/v1', '/v2') })).error).toMatchObject(refusal);
  });

  it('stores nothing for a refused send', async () => {
    const before = (await rpc(call('ListTasks', {}), { 'a2a-version': '1.0', 'a2a-extensions': SIGNED })).result?.totalSize as number;
    await rpc(call('SendMessage', { message: { ...goodMessage, messageId: 'refused' } }), { 'a2a-version': '1.0' });
    expect((await rpc(call('ListTasks', {}), { 'a2a-version': '1.0', 'a2a-extensions': SIGNED })).result?.totalSize).toBe(before);
  });

  it('answers a version it does not speak, an unknown method and a malformed request first', async () => {
    expect((await rpc(call('GetTask', { id: 'x' }), { 'a2a-version': '2.0' })).error).toMatchObject({ code: -32009 });
    expect((await rpc(call('FlyToTheMoon', {}), { 'a2a-version': '1.0' })).error).toMatchObject({ code: -32601 });
    expect((await rpc('{"jsonrpc": "2.0",', { 'a2a-version': '1.0' })).error).toMatchObject({ code: -32700 });
  });

  it('keeps the card public, declaring the extension required', async () => {
    const response = await strict(request('', {}, '/.well-known/agent-card.json', 'GET'));
    expect(response.status).toBe(200);
    expect((reply(response) as { capabilities?: { extensions?: unknown[] } }).capabilities?.extensions).toContainEqual({ uri: SIGNED, description: 'Every message is signed', required: true });
  });
});

describe('A2A-Version as a query parameter (§3.6.1)', () => {
  const rpcAt = async (query: string, body: string, headers: Record<string, string> = {}) => {
    const response = await handle({ ...request(body, { 'content-type': 'application/json', ...headers }), query: new URLSearchParams(query) });
    return JSON.parse('body' in response ? response.body : '{}') as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
  };

  it('refuses a version it does not speak, in 1.0 terms', async () => {
    expect((await rpcAt('A2A-Version=2.0', call('GetTask', { id: 'x' }))).error).toMatchObject({ code: -32009, message: 'A2A-Version "2.0" is not supported; this agent speaks 1.0 and 0.3', data: [{ reason: 'VERSION_NOT_SUPPORTED' }] });
  });

  it('picks the dialect: 1.0 has no tasks/get, 0.3 no SendMessage, and a 0.3 error carries no data', async () => {
    expect((await rpcAt('', call('tasks/get', { id: 'nope' }))).error).toMatchObject({ code: -32001 });
    expect((await rpcAt('A2A-Version=1.0', call('tasks/get', { id: 'nope' }))).error).toEqual({ code: -32601, message: 'no method "tasks/get" in A2A 1.0' });
    expect((await rpcAt('a2a-version=0.3', call('SendMessage', { message: goodMessage }))).error).toEqual({ code: -32601, message: 'no method "SendMessage" in A2A 0.3' });
  });

  it('takes the header over the query', async () => {
    expect((await rpcAt('A2A-Version=2.0', call('GetTask', { id: 'nope' }), { 'a2a-version': '1.0' })).error).toMatchObject({ code: -32001 });
    expect((await rpcAt('A2A-Version=1.0', call('tasks/get', { id: 'nope' }), { 'a2a-version': '0.3' })).error).toEqual({ code: -32001, message: 'no task "nope"' });
  });

  it('gives the 1.0 card to a client that asks for 1.0 in the query', async () => {
    const response = await handle({ ...request('', {}, '/.well-known/agent-card.json', 'GET'), query: new URLSearchParams('A2A-Version=1.0') });
    const card = JSON.parse('body' in response ? response.body : '{}') as Record<string, unknown>;
    expect(card).toHaveProperty('supportedInterfaces');
    expect(card).not.toHaveProperty('url');
  });
});

describe('failures that are the server’s own (§3.3.2)', () => {
  /** A store whose listing fails as a broken disk would. */
  class BrokenListing extends MemoryTaskStore {
    override async list(): Promise<never> {
      throw new Error('the disk is on fire');
    }
  }
  const told: [unknown, string][] = [];
  const broken = createAgent({
    card: jiajiaCard(),
    store: new BrokenListing(),
    onMessage: (message) => {
      if (message.text === 'crash') throw new TypeError('onMessage broke');
      return undefined;
    },
    onTask: (task) => `echo: ${task.text}`,
  });
  let base = (): string => 'http://127.0.0.1:7331';
  const handler = createA2AHandler({ agent: broken, baseUrl: () => base(), onError: (error, what) => told.push([error, what]) });
  const bodyOf = (response: HttpResponse) => JSON.parse('body' in response ? response.body : '{}') as Record<string, unknown>;
  const crash = { kind: 'message', messageId: 'c03', role: 'user', parts: [{ kind: 'text', text: 'crash' }] };

  it('answers -32603 or 500 with the words internal error, and tells onError which operation failed', async () => {
    told.length = 0;
    expect(bodyOf(await handler(request(call('ListTasks', {})))).error).toEqual({ code: -32603, message: 'internal error' });
    expect(bodyOf(await handler(request(call('message/send', { message: crash }), { 'a2a-version': '0.3' }))).error).toEqual({ code: -32603, message: 'internal error' });
    const rest = await handler({ ...request('', { 'a2a-version': '1.0' }, '/tasks', 'GET') });
    expect(rest.status).toBe(500);
    expect(bodyOf(rest)).toEqual({ error: { code: 500, status: 'INTERNAL', message: 'internal error', details: [] } });
    expect(told.map(([error, what]) => [(error as Error).message, what])).toEqual([
      ['the disk is on fire', 'JSON-RPC ListTasks'],
      ['onMessage broke', 'JSON-RPC message/send'],
      ['the disk is on fire', 'HTTP+JSON ListTasks'],
    ]);
  });

  it('tells onError of a failure in the middle of a stream, which ends with an error event', async () => {
    told.length = 0;
    const stream = broken.stream;
    // Answered, then failing at its first event: the headers are out when the failure comes.
    broken.stream = async (): Promise<AsyncIterable<TaskEvent>> => ({
      [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new TypeError('lost the event log')) }),
    });
    try {
      for (const [req, what] of [
        [request(call('SendStreamingMessage', { message: goodMessage })), 'the stream of JSON-RPC SendStreamingMessage'],
        [{ ...request(JSON.stringify({ message: goodMessage }), { 'a2a-version': '1.0' }, '/message:stream') }, 'the stream of HTTP+JSON SendStreamingMessage'],
      ] as const) {
        const response = await handler(req);
        let text = '';
        if ('events' in response) for await (const chunk of response.events) text += chunk;
        expect(text).toMatch(/^event: error\ndata: .*"internal error"/);
        expect(told.at(-1)?.[1]).toBe(what);
      }
      expect(told).toHaveLength(2);
    } finally {
      broken.stream = stream;
    }
  });

  it('tells onError of a failure outside the bindings, and answers 500 as a google.rpc.Status', async () => {
    told.length = 0;
    base = () => {
      throw new RangeError('no base URL yet');
    };
    try {
      const response = await handler(request('', {}, '/.well-known/agent-card.json/', 'GET'));
      expect(response.status).toBe(500);
      expect(response.headers['content-type']).toBe('application/a2a+json');
      expect(bodyOf(response)).toEqual({ error: { code: 500, status: 'INTERNAL', message: 'internal error' } });
      expect(told.map(([error, what]) => [(error as Error).message, what])).toEqual([['no base URL yet', 'GET /.well-known/agent-card.json']]);
    } finally {
      base = () => 'http://127.0.0.1:7331';
    }
  });

  it('tells onError nothing of the client’s own mistakes', async () => {
    told.length = 0;
    await handler(request(call('GetTask', { id: 'nope' })));
    await handler(request('{"jsonrpc":'));
    await handler(request(call('GetTask', { id: 'x' }), { 'a2a-version': '2.0' }));
    await handler(request('', { 'a2a-version': '1.0' }, '/tasks/nope', 'GET'));
    expect(told).toEqual([]);
  });
});
