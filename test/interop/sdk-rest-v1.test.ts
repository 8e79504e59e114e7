// The official @a2a-js/sdk 1.0 client over HTTP+JSON (REST) against our server, over real HTTP.
import { ClientFactory, ClientFactoryOptions, RestTransportFactory } from '@a2a-js/sdk/client';
import { describe, expect, it } from 'vitest';
import { pause, sdkClientSuite, sdkSession } from './sdk-client-suite.js';
import { asTask, describeStream, listRequest, send, sendRequest, start, textOf, userMessage } from './sdk-requests.js';

/** Every request the client made: method, path and the headers that matter here. */
const wire: { method: string; path: string; version: string | null; contentType: string | null }[] = [];

const watch: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  const url = new URL(input instanceof Request ? input.url : String(input));
  wire.push({ method: init?.method ?? 'GET', path: url.pathname, version: headers.get('a2a-version'), contentType: headers.get('content-type') });
  return fetch(input, init);
};

// Only the REST factory: createFrom would merge in the default JSON-RPC one, which the card prefers.
const session = sdkSession((server) => new ClientFactory({ transports: [new RestTransportFactory({ fetchImpl: watch })] }).createFromUrl(server.url));

describe('the @a2a-js/sdk 1.0 client over REST against a2a-lite', () => {
  it('finds the HTTP+JSON interface in our card, at the base URL', async () => {
    expect(session.client.transport.protocolName).toBe('HTTP+JSON');
    expect(session.client.protocolVersion).toBe('1.0');
    await send(session.client, 'where');
    expect(wire.at(-1)).toEqual({ method: 'POST', path: '/message:send', version: '1.0', contentType: 'application/json' });
  });

  it('keeps to JSON-RPC when the client may use both, and takes REST when told to prefer it', async () => {
    const both = await new ClientFactory().createFromUrl(session.server.url);
    expect(both.transport.protocolName).toBe('JSONRPC');
    const preferring = await new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ['HTTP+JSON'] })).createFromUrl(session.server.url);
    expect(preferring.transport.protocolName).toBe('HTTP+JSON');
    const task = asTask(await preferring.sendMessage(sendRequest(userMessage('preferred'))));
    expect(textOf(task)).toEqual({ $case: 'text', value: 'echo: preferred' });
  });

  sdkClientSuite(session, { lists: true, subscribesThroughInput: true });

  it('sends each call to the path the HTTP+JSON binding names', async () => {
    const { client, server } = session;
    await describeStream(client.sendMessageStream(sendRequest(userMessage('stream me'))));
    expect(wire.at(-1)).toMatchObject({ method: 'POST', path: '/message:stream' });
    const task = asTask(await send(client, 'for get'));
    await client.getTask({ tenant: '', id: task.id, historyLength: 1 });
    expect(wire.at(-1)).toMatchObject({ method: 'GET', path: `/tasks/${task.id}` });
    await client.listTasks(listRequest({ contextId: task.contextId }));
    expect(wire.at(-1)).toMatchObject({ method: 'GET', path: '/tasks' });
    const cancelled = await start(client, 'wait for me');
    await client.cancelTask({ tenant: '', id: cancelled.id, metadata: undefined });
    expect(wire.at(-1)).toMatchObject({ method: 'POST', path: `/tasks/${cancelled.id}:cancel` });
    const running = await start(client, 'wait a bit');
    await pause(20);
    const follow = describeStream(client.resubscribeTask({ tenant: '', id: running.id }));
    await pause(50);
    server.release();
    await follow;
    expect(wire.at(-1)).toMatchObject({ method: 'POST', path: `/tasks/${running.id}:subscribe` });
  });

  it('reports errors with the HTTP status the binding names', async () => {
    const { client } = session;
    const ended = asTask(await send(client, 'quick'));
    await expect(client.cancelTask({ tenant: '', id: ended.id, metadata: undefined })).rejects.toMatchObject({ name: 'TaskNotCancelableError', statusCode: 400 });
    await expect(client.getTask({ tenant: '', id: 'nope', historyLength: undefined })).rejects.toMatchObject({ name: 'TaskNotFoundError', statusCode: 404 });
    await expect(client.cancelTask({ tenant: '', id: 'nope', metadata: undefined })).rejects.toMatchObject({ name: 'TaskNotFoundError', statusCode: 404 });
    await expect(describeStream(client.resubscribeTask({ tenant: '', id: ended.id }))).rejects.toMatchObject({ name: 'UnsupportedOperationError', statusCode: 400 });
  });

  it('follows a running task over GET :subscribe too, which the proto names', async () => {
    const { server } = session;
    const running = await start(session.client, 'wait over GET');
    await pause(20);
    const response = await fetch(`${server.url}/tasks/${running.id}:subscribe`, { headers: { 'a2a-version': '1.0', accept: 'text/event-stream' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    setTimeout(() => server.release(), 50);
    const events = (await response.text()).split('\n\n').filter((chunk) => chunk !== '');
    const data = (chunk: string): unknown => JSON.parse(chunk.slice(chunk.indexOf('data: ') + 'data: '.length));
    expect(data(events[0]!)).toMatchObject({ task: { id: running.id, status: { state: 'TASK_STATE_WORKING' } } });
    expect(data(events.at(-1)!)).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } } });
  });
});
