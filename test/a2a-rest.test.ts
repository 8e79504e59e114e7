// The A2A 1.0 REST routes, driven through the handler with no socket: malformed, hostile and
// wrong requests with the exact status and google.rpc.Status body the spec gives, then the
// happy paths' shapes.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createA2AHandler } from '../src/a2a/server/handler.js';
import type { HttpRequest, HttpResponse } from '../src/net/http-types.js';
import { jiajiaCard } from '../src/card/examples.js';
import { createAgent } from '../src/runtime/agent.js';

type Json = Record<string, unknown>;

const agent = createAgent({ card: jiajiaCard(), onTask: (task) => `echo: ${task.text}` });
const handle = createA2AHandler({ agent, baseUrl: 'http://127.0.0.1:7331' });

const V1 = { 'a2a-version': '1.0', 'content-type': 'application/a2a+json' };

/** A request as an adapter hands it over: the raw path, not normalized, and its query. */
const rest = (method: string, target: string, body: unknown = '', headers: Record<string, string> = V1): HttpRequest => {
  const at = target.indexOf('?');
  return {
    method,
    path: at === -1 ? target : target.slice(0, at),
    query: new URLSearchParams(at === -1 ? '' : target.slice(at + 1)),
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
};

const message = (text: string, extra: Json = {}) => ({ message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }], ...extra } });

function bodyOf(response: HttpResponse): Json {
  if (!('body' in response)) throw new Error('expected a JSON response, got a stream');
  return JSON.parse(response.body) as Json;
}

async function collect(response: HttpResponse): Promise<string> {
  if (!('events' in response)) throw new Error(`expected a stream, got ${response.status}: ${'body' in response ? response.body : ''}`);
  let text = '';
  for await (const chunk of response.events) text += chunk;
  return text;
}

const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';
const errorInfo = (reason: string) => [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' }];

let ended: { id: string; contextId: string };

beforeAll(async () => {
  const sent = bodyOf(await handle(rest('POST', '/message:send', message('fixture'))));
  ended = sent.task as typeof ended;
});

describe('the REST routes refuse bad requests with the spec’s status and body', () => {
  // [what, request, HTTP status, google.rpc status, ErrorInfo reason (none: details is empty)]
  const cases: [string, () => HttpRequest, number, string, string | undefined][] = [
    // Bodies
    ['invalid JSON', () => rest('POST', '/message:send', '{"message":'), 400, 'INVALID_ARGUMENT', undefined],
    ['a body that is an array', () => rest('POST', '/message:send', [message('x')]), 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'],
    ['a body that is a string', () => rest('POST', '/message:send', '"hi"'), 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'],
    ['text/plain', () => rest('POST', '/message:send', message('x'), { ...V1, 'content-type': 'text/plain' }), 400, 'INVALID_ARGUMENT', 'CONTENT_TYPE_NOT_SUPPORTED'],
    ['a form body, as curl -d sends', () => rest('POST', '/message:send', message('x'), { ...V1, 'content-type': 'application/x-www-form-urlencoded' }), 400, 'INVALID_ARGUMENT', 'CONTENT_TYPE_NOT_SUPPORTED'],
    ['a JSON look-alike type', () => rest('POST', '/message:send', message('x'), { ...V1, 'content-type': 'application/jsonx' }), 400, 'INVALID_ARGUMENT', 'CONTENT_TYPE_NOT_SUPPORTED'],
    ['no message', () => rest('POST', '/message:send', {}), 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'],
    ['an empty body', () => rest('POST', '/message:send', ''), 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'],
    ['a message without parts', () => rest('POST', '/message:send', message('x', { parts: [] })), 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'],
    ['an agent-role message', () => rest('POST', '/message:stream', message('x', { role: 'ROLE_AGENT' })), 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'],
    ['a 0.3 message (kind, no parts)', () => rest('POST', '/message:send', { message: { kind: 'message', messageId: 'm', role: 'user', content: [{ text: 'x' }] } }), 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'],
    // Tasks that are not there, or have ended
    ['an unknown task', () => rest('GET', '/tasks/nope'), 404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
    ['a cancel of an unknown task', () => rest('POST', '/tasks/nope:cancel'), 404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
    ['a subscription to an unknown task', () => rest('POST', '/tasks/nope:subscribe'), 404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
    ['a follow-up to an unknown task', () => rest('POST', '/message:send', message('x', { taskId: 'nope' })), 404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
    ['a cancel of an ended task', () => rest('POST', `/tasks/${ended.id}:cancel`), 400, 'FAILED_PRECONDITION', 'TASK_NOT_CANCELABLE'],
    ['a subscription to an ended task', () => rest('GET', `/tasks/${ended.id}:subscribe`), 400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION'],
    ['a message to an ended task', () => rest('POST', '/message:send', message('x', { taskId: ended.id })), 400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION'],
    // Query parameters
    ['a forged page token', () => rest('GET', '/tasks?pageToken=forged'), 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'],
    ['pageSize 1000', () => rest('GET', '/tasks?pageSize=1000'), 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'],
    ['a negative pageSize', () => rest('GET', '/tasks?pageSize=-1'), 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'],
    ['a pageSize that is no number', () => rest('GET', '/tasks?pageSize=ten'), 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'],
    ['pageSize given twice', () => rest('GET', '/tasks?pageSize=1&pageSize=100'), 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'],
    ['an unknown state', () => rest('GET', '/tasks?status=TASK_STATE_DANCING'), 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'],
    ['includeArtifacts=yes', () => rest('GET', '/tasks?includeArtifacts=yes'), 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'],
    ['a time that is not ISO-8601', () => rest('GET', '/tasks?statusTimestampAfter=yesterday'), 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'],
    ['a fractional historyLength', () => rest('GET', '/tasks/nope?historyLength=1.5'), 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'],
    // Versions
    ['A2A-Version 0.3', () => rest('GET', '/tasks', '', { 'a2a-version': '0.3' }), 400, 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED'],
    ['A2A-Version 2.0', () => rest('POST', '/message:send', message('x'), { ...V1, 'a2a-version': '2.0' }), 400, 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED'],
    ['?A2A-Version=0.3 without the header', () => rest('GET', '/tasks?A2A-Version=0.3', '', {}), 400, 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED'],
    ['a 0.3 REST path', () => rest('POST', '/v1/message:send', message('x'), {}), 400, 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED'],
    ['a 0.3 REST path with the 1.0 header', () => rest('GET', '/v1/tasks/nope'), 400, 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED'],
    // Not served
    ['creating a push config', () => rest('POST', `/tasks/${ended.id}/pushNotificationConfigs`, { url: 'https://example.com/hook' }), 400, 'FAILED_PRECONDITION', 'PUSH_NOTIFICATION_NOT_SUPPORTED'],
    ['listing push configs', () => rest('GET', `/tasks/${ended.id}/pushNotificationConfigs`), 400, 'FAILED_PRECONDITION', 'PUSH_NOTIFICATION_NOT_SUPPORTED'],
    ['getting a push config', () => rest('GET', `/tasks/${ended.id}/pushNotificationConfigs/c1`), 400, 'FAILED_PRECONDITION', 'PUSH_NOTIFICATION_NOT_SUPPORTED'],
    ['deleting a push config', () => rest('DELETE', `/tasks/${ended.id}/pushNotificationConfigs/c1`), 400, 'FAILED_PRECONDITION', 'PUSH_NOTIFICATION_NOT_SUPPORTED'],
    ['the extended card, which the card does not offer', () => rest('GET', '/extendedAgentCard'), 400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION'],
    // Path tricks and huge ids: an id is one segment, decoded after the split, and only looked up
    ['an id of ../.. spelled %2F', () => rest('GET', '/tasks/..%2F..'), 404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
    ['an id that climbs to the JSON-RPC path', () => rest('GET', '/tasks/..%2F..%2Fjsonrpc'), 404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
    ['a cancel whose id climbs', () => rest('POST', '/tasks/..%2F..%2Ftasks%2Fx:cancel'), 404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
    ['an id of %2e%2e', () => rest('GET', '/tasks/%2e%2e'), 404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
    ['an id with an encoded colon and verb', () => rest('GET', '/tasks/x%3Acancel'), 404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
    ['an id with a NUL byte', () => rest('GET', '/tasks/a%00b'), 404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
    ['an id of 100,000 characters', () => rest('GET', `/tasks/${'x'.repeat(100_000)}`), 404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
    ['a cancel of an id of 100,000 characters', () => rest('POST', `/tasks/${'%41'.repeat(100_000)}:cancel`), 404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
  ];

  it.each(cases)('%s', async (_what, makeRequest, status, rpcStatus, reason) => {
    const response = await handle(makeRequest());
    expect(response.status).toBe(status);
    expect(response.headers['content-type']).toBe('application/a2a+json');
    const { error } = bodyOf(response) as { error: Json };
    const details = error.details as Json[];
    const [infos, others] = [details.filter((d) => d['@type'] !== BAD_REQUEST), details.filter((d) => d['@type'] === BAD_REQUEST)];
    expect({ ...error, details: infos }).toEqual({ code: status, status: rpcStatus, message: expect.any(String), details: reason === undefined ? [] : errorInfo(reason) });
    // A field at fault is also named in a BadRequest, only for invalid parameters.
    if (others.length > 0) expect(reason).toBe('INVALID_PARAMS');
    expect((error.message as string).length).toBeGreaterThan(0);
  });

  it('names the field at fault in a google.rpc.BadRequest beside the ErrorInfo (§11.6)', async () => {
    const { error } = bodyOf(await handle(rest('POST', '/message:send', message('x', { messageId: 5 })))) as { error: Json };
    expect(error.details).toEqual([
      ...errorInfo('INVALID_PARAMS'),
      { '@type': BAD_REQUEST, fieldViolations: [{ field: 'params.message.messageId', description: error.message }] },
    ]);
    // An error about no one field has no BadRequest.
    const pageSize = bodyOf(await handle(rest('GET', '/tasks?pageSize=1&pageSize=100'))) as { error: Json };
    expect(pageSize.error.details).toEqual(errorInfo('INVALID_PARAMS'));
  });

  it('names the field at fault, and the task it could not find', async () => {
    expect(bodyOf(await handle(rest('POST', '/message:send', {})))).toMatchObject({ error: { message: 'params.message is required' } });
    expect(bodyOf(await handle(rest('GET', '/tasks?pageSize=ten')))).toMatchObject({ error: { message: 'query parameter pageSize must be a whole number ≥ 0' } });
    expect(bodyOf(await handle(rest('GET', '/tasks/..%2F..')))).toMatchObject({ error: { message: 'no task "../.."' } });
  });

  // [what, request, the Allow header]
  it.each<[string, HttpRequest, string]>([
    ['GET on message:send', rest('GET', '/message:send'), 'POST'],
    ['GET on message:stream', rest('GET', '/message:stream'), 'POST'],
    ['POST on the task list', rest('POST', '/tasks', message('x')), 'GET'],
    ['DELETE on a task', rest('DELETE', '/tasks/nope'), 'GET'],
    ['GET on cancel', rest('GET', '/tasks/nope:cancel'), 'POST'],
    ['PUT on subscribe', rest('PUT', '/tasks/nope:subscribe'), 'GET, POST'],
    ['PUT on push configs', rest('PUT', '/tasks/nope/pushNotificationConfigs'), 'POST, GET'],
    ['POST on one push config', rest('POST', '/tasks/nope/pushNotificationConfigs/c1'), 'GET, DELETE'],
    ['POST on the extended card', rest('POST', '/extendedAgentCard'), 'GET'],
    ['an HTTP method named like an object key', rest('constructor', '/tasks'), 'GET'],
  ])('%s: 405', async (_what, request, allow) => {
    const response = await handle(request);
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe(allow);
    expect(bodyOf(response)).toMatchObject({ error: { code: 405, status: 'UNIMPLEMENTED' } });
  });

  it.each([
    '/admin',
    '/message',
    '/message:explode',
    '/messages:send',
    '/tasks//',
    '/tasks/x:explode',
    '/tasks/x:cancel:cancel',
    '/tasks/a/b',
    '/tasks/../message:send',
    '/tasks//pushNotificationConfigs',
    '/tasks/x/pushNotificationConfigs/c1/more',
    '/tasks/%zz',
    '/tenant-a/message:send',
    '/constructor',
    '/__proto__',
  ])('%s: 404', async (path) => {
    const response = await handle(rest('GET', path));
    expect(response.status).toBe(404);
    expect(bodyOf(response)).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
  });

  it('answers any path, method and body with a status, never by throwing', async () => {
    const segment = fc.oneof(fc.constantFrom('tasks', 'message:send', 'x:cancel', 'x:subscribe', 'pushNotificationConfigs', '%2F', '..', '%zz', 'v1', ''), fc.string());
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'HEAD'), fc.array(segment, { maxLength: 5 }), fc.string(), async (method, segments, body) => {
        const response = await handle(rest(method, `/${segments.join('/')}`, body));
        expect([200, 400, 404, 405]).toContain(response.status);
      }),
    );
  });

  it('leaves the ended task as it was after every refusal', async () => {
    const after = bodyOf(await handle(rest('GET', `/tasks/${ended.id}`)));
    expect(after).toMatchObject({ id: ended.id, status: { state: 'TASK_STATE_COMPLETED' } });
  });
});

describe('the REST routes serve A2A 1.0', () => {
  it('lists REST in the card after JSON-RPC 1.0 and before 0.3', async () => {
    const card = bodyOf(await handle(rest('GET', '/.well-known/agent-card.json', '', {})));
    expect(card.supportedInterfaces).toEqual([
      { url: 'http://127.0.0.1:7331/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'http://127.0.0.1:7331', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: 'http://127.0.0.1:7331/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
  });

  it.each([
    ['application/a2a+json', V1],
    ['application/json; charset=utf-8', { ...V1, 'content-type': 'application/json; charset=utf-8' }],
    ['no content type', { 'a2a-version': '1.0' }],
    ['no A2A-Version (served as 1.0: no 0.3 path looks like this)', { 'content-type': 'application/json' }],
    ['a patch version', { ...V1, 'a2a-version': '1.0.1' }],
  ])('sends a message with %s, and answers in application/a2a+json', async (_what, headers) => {
    const response = await handle(rest('POST', '/message:send', message('hello'), headers));
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/a2a+json');
    expect(bodyOf(response)).toMatchObject({
      task: { status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [{ parts: [{ text: 'echo: hello' }] }] },
    });
  });

  it('gets a task with historyLength from the query', async () => {
    const task = bodyOf(await handle(rest('GET', `/tasks/${ended.id}?historyLength=1`)));
    expect(task).toMatchObject({ id: ended.id, contextId: ended.contextId });
    expect(task.history).toHaveLength(1);
    expect(bodyOf(await handle(rest('GET', `/tasks/${ended.id}?historyLength=0`))).history).toBeUndefined();
  });

  it('lists tasks with the ListTasks fields as query parameters', async () => {
    const page = bodyOf(await handle(rest('GET', `/tasks?contextId=${ended.contextId}&status=TASK_STATE_COMPLETED&pageSize=5&includeArtifacts=true&historyLength=0&unknown=ignored`)));
    expect(page).toMatchObject({ nextPageToken: '', pageSize: 5, totalSize: 1, tasks: [{ id: ended.id, artifacts: [expect.any(Object)] }] });
    const bare = bodyOf(await handle(rest('GET', `/tasks?contextId=${ended.contextId}`)));
    expect((bare.tasks as Json[])[0]?.artifacts).toBeUndefined();
  });

  it('pages with the token the previous page gave', async () => {
    const first = bodyOf(await handle(rest('GET', '/tasks?pageSize=1')));
    expect(first.nextPageToken).not.toBe('');
    const second = bodyOf(await handle(rest('GET', `/tasks?pageSize=1&pageToken=${encodeURIComponent(first.nextPageToken as string)}`)));
    expect((second.tasks as Json[])[0]?.id).not.toBe((first.tasks as Json[])[0]?.id);
  });

  it('streams bare StreamResponse events, the task first', async () => {
    const response = await handle(rest('POST', '/message:stream', message('stream me')));
    expect(response.headers['content-type']).toBe('text/event-stream');
    const chunks = (await collect(response)).split('\n\n').filter((chunk) => chunk !== '');
    // Each event is numbered in the task's log (its SSE id), the task snapshot as of event 0.
    expect(chunks.map((chunk) => /^id: (\d+)\n/.exec(chunk)?.[1])).toEqual(['0', '1', '2']);
    const events = chunks.map((chunk) => {
      const data = chunk.split('\n').find((line) => line.startsWith('data: ')) as string;
      return JSON.parse(data.slice('data: '.length)) as Json;
    });
    expect(events.map((event) => Object.keys(event))).toEqual([['task'], ['artifactUpdate'], ['statusUpdate']]);
    expect(events[0]).not.toHaveProperty('jsonrpc');
    expect(events.at(-1)).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } } });
  });

  it('lets cancel take a body with metadata, and ignores an id in it', async () => {
    const response = await handle(rest('POST', `/tasks/${ended.id}:cancel`, { id: 'someone-else', metadata: { why: 'test' } }));
    expect(bodyOf(response)).toMatchObject({ error: { details: errorInfo('TASK_NOT_CANCELABLE') } });
  });
});

describe('an extension the card marks required, over REST (§3.3.4)', () => {
  const SIGNED = 'https://example.com/extensions/signed-messages/v1';
  const strict = createA2AHandler({
    agent: createAgent({ card: jiajiaCard(), onTask: (task) => `echo: ${task.text}` }),
    baseUrl: 'http://127.0.0.1:7331',
    extensions: [{ uri: SIGNED, description: 'Every message is signed', required: true }],
  });

  it.each<[string, HttpRequest]>([
    ['POST /message:send', rest('POST', '/message:send', message('x'))],
    ['POST /message:stream', rest('POST', '/message:stream', message('x'))],
    ['GET /tasks', rest('GET', '/tasks')],
    ['GET /tasks/{id}', rest('GET', '/tasks/x')],
    ['POST /tasks/{id}:cancel', rest('POST', '/tasks/x:cancel')],
    ['POST /tasks/{id}:subscribe', rest('POST', '/tasks/x:subscribe')],
    ['GET /tasks/{id}/pushNotificationConfigs', rest('GET', '/tasks/x/pushNotificationConfigs')],
    ['DELETE /tasks/{id}/pushNotificationConfigs/{configId}', rest('DELETE', '/tasks/x/pushNotificationConfigs/c')],
    ['GET /extendedAgentCard', rest('GET', '/extendedAgentCard')],
    ['a body that is not JSON', rest('POST', '/message:send', '{"message":')],
  ])('refuses %s without it: 400 FAILED_PRECONDITION, reason EXTENSION_SUPPORT_REQUIRED', async (_what, request) => {
    const response = await strict(request);
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe('application/a2a+json');
    expect(bodyOf(response)).toEqual({
      error: { code: 400, status: 'FAILED_PRECONDITION', message: expect.stringContaining(SIGNED), details: errorInfo('EXTENSION_SUPPORT_REQUIRED') },
    });
  });

  it('serves a request that names it, after the version and the route are checked', async () => {
    const sent = await strict(rest('POST', '/message:send', message('signed'), { ...V1, 'a2a-extensions': SIGNED }));
    expect(bodyOf(sent)).toMatchObject({ task: { status: { state: 'TASK_STATE_COMPLETED' } } });
    expect(bodyOf(await strict(rest('GET', '/tasks', '', { 'a2a-version': '0.3' })))).toMatchObject({ error: { details: errorInfo('VERSION_NOT_SUPPORTED') } });
    expect((await strict(rest('PUT', '/tasks'))).status).toBe(405);
    expect((await strict(rest('GET', '/admin'))).status).toBe(404);
  });
});
