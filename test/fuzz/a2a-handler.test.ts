// Fuzzing the A2A entry points in-process: hostile HttpRequests against createA2AHandler, built
// near-valid (each method with plausible params, each REST route with plausible bodies and
// queries, real task ids) and then bent (any member replaced, deleted, nested deep; the body
// text cut or spliced; random methods, paths, versions, content types, credentials). Every
// answer is well formed: a JSON-RPC 2.0 response with a result or an error of the spec's codes,
// a REST status with a google.rpc.Status body, or a stream of such events. Never an exception
// out of the handler, never an internal error for a client's mistake.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createA2AHandler } from '../../src/a2a/server/handler.js';
import type { A2AHandler } from '../../src/a2a/server/http.js';
import type { HttpRequest, HttpResponse } from '../../src/net/http-types.js';
import type { PushConfig, PushConfigService } from '../../src/model/push-config.js';
import { jiajiaCard } from '../../src/card/examples.js';
import { ERROR_TABLE } from '../../src/errors.js';
import { createAgent } from '../../src/runtime/agent.js';
import { textOf } from '../../src/model/task.js';
import { check } from './expect-fast.js';
import { piece, words } from './hostile-text.js';
import { applyEdits, edits, hostileValue } from './json-mutations.js';
import { fuzzOptions, fuzzTarget, fuzzTimeout } from './runs.js';

type Json = Record<string, unknown>;

/** Every JSON-RPC code the error table gives but the internal ones (-32603). */
const CLIENT_CODES = new Set(Object.values(ERROR_TABLE).map((row) => row.rpc).filter((code) => code !== -32603));
const INTERNAL_RPC = -32603;
/** A fresh agent every so many cases, so that the tasks valid requests make do not pile up. */
const CASES_PER_AGENT = 500;
const TOKEN = 'fuzz-token-0123456789';
const HANG = 'hang-until-cancelled-7f3a9c';

/**
 * Task ids are known only once an agent exists: requests name them by placeholder, replaced in
 * the body and path text just before sending.
 */
const IDS = ['$done', '$asking', '$running', '$context'] as const;

interface World {
  handlers: A2AHandler[];
  ids: Record<(typeof IDS)[number], string>;
  cases: number;
}

/** Push configs kept in a map: the push methods' own checks run, and nothing is ever sent. */
function memoryPush(): PushConfigService {
  const configs = new Map<string, PushConfig[]>();
  let next = 0;
  return {
    async save(input) {
      const config: PushConfig = { ...input, id: input.id ?? `c${(next += 1)}` };
      configs.set(config.taskId, [...(configs.get(config.taskId) ?? []).filter((c) => c.id !== config.id), config]);
      return config;
    },
    async get(taskId, id) {
      return configs.get(taskId)?.find((c) => c.id === id);
    },
    async list(taskId) {
      return configs.get(taskId) ?? [];
    },
    async delete(taskId, id) {
      const before = configs.get(taskId) ?? [];
      configs.set(taskId, before.filter((c) => c.id !== id));
      return before.some((c) => c.id === id);
    },
  };
}

async function newWorld(): Promise<World> {
  const agent = createAgent({
    card: jiajiaCard(),
    onTask: async (task, ctx) => {
      if (task.text === 'ask') return `answered: ${textOf(await ctx.ask('which one?'))}`;
      if (task.text === HANG) await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      return `echo: ${task.text}`;
    },
    onError: () => {},
  });
  const message = (text: string) => ({ messageId: `m-${text}`, role: 'user' as const, parts: [{ kind: 'text' as const, text }] });
  const done = await agent.send(message('hello'));
  const asking = await agent.send(message('ask'));
  const running = await agent.send(message(HANG), { returnImmediately: true });
  const baseUrl = 'http://127.0.0.1:7331';
  return {
    handlers: [
      createA2AHandler({ agent, baseUrl, push: memoryPush() }),
      createA2AHandler({ agent, baseUrl, auth: { bearerTokens: [TOKEN], apiKeys: [{ principal: 'other', secret: `${TOKEN}-other` }] } }),
    ],
    ids: { $done: done.id, $asking: asking.id, $running: running.id, $context: done.contextId },
    cases: 0,
  };
}

let world: World | undefined;
async function currentWorld(): Promise<World> {
  if (world === undefined || world.cases >= CASES_PER_AGENT) world = await newWorld();
  world.cases += 1;
  return world;
}

// ---- near-valid requests ----

/** Mostly `usual`, now and then `odd`: enough valid requests to reach the methods' own code. */
const mostly = <T, U = T>(usual: fc.Arbitrary<T>, odd: fc.Arbitrary<U>): fc.Arbitrary<T | U> => fc.oneof({ arbitrary: usual, weight: 7 }, { arbitrary: odd, weight: 1 });
/** Almost always `usual`: for what only one code path reads (credentials, the endpoint). */
const rarely = <T, U = T>(usual: fc.Arbitrary<T>, odd: fc.Arbitrary<U>): fc.Arbitrary<T | U> => fc.oneof({ arbitrary: usual, weight: 20 }, { arbitrary: odd, weight: 1 });
/** Mostly absent (left out of the JSON), now and then `value`. */
const seldom = <T>(value: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => mostly(fc.constant(undefined), value);

const taskId = mostly(fc.constantFrom(...IDS), fc.oneof(fc.constantFrom('nope', '', ' ', '../..', 'x'.repeat(300)), words(2)));
const text = mostly(fc.constantFrom('hi', 'ask', 'yes', '[A2A:task id=x]'), fc.oneof(fc.constant(''), words(3)));
const partV1 = mostly(
  fc.oneof(text.map((t) => ({ text: t })), fc.constantFrom({ raw: 'aGVsbG8=', filename: 'a.txt', mediaType: 'text/plain' }, { url: 'https://x.test/a.pdf' }, { data: { k: 1 } }, { data: [1, 2] })),
  fc.constantFrom({ raw: 'not base64!' }, { text: 'a', data: 1 }, {}, { url: '' }),
);
const partV03 = mostly(
  fc.oneof(
    text.map((t) => ({ kind: 'text', text: t })),
    fc.constantFrom({ kind: 'file', file: { bytes: 'aGVsbG8=', name: 'a.txt' } }, { kind: 'file', file: { uri: 'https://x.test/a.pdf' } }, { kind: 'data', data: { k: 1 } }, { kind: 'data', data: { value: 3 }, metadata: { data_part_compat: true } }),
  ),
  fc.constantFrom({ kind: 'file', file: { bytes: 'x', uri: 'y' } }, { kind: 'data', data: 3 }, { kind: 'image' }, { text: 'no kind' }),
);
const messageV1 = fc.record({
  messageId: mostly(fc.constantFrom('m1', 'm2'), fc.constant('')),
  role: mostly(fc.constantFrom('ROLE_USER', 1), fc.constantFrom('ROLE_AGENT', 2, 'user')),
  parts: fc.array(partV1, { minLength: 1, maxLength: 3 }),
  taskId: seldom(taskId),
  contextId: seldom(taskId),
  metadata: seldom(fc.constantFrom({ skill: 'research' }, {}, [])),
});
const messageV03 = fc.record({
  kind: mostly(fc.constant('message'), fc.constantFrom(undefined, 'task')),
  messageId: fc.constantFrom('m1', 'm2'),
  role: mostly(fc.constant('user'), fc.constantFrom('agent', 'ROLE_USER')),
  parts: fc.array(partV03, { minLength: 1, maxLength: 3 }),
  taskId: seldom(taskId),
  contextId: seldom(taskId),
});
const pushConfig = fc.record({
  url: mostly(fc.constant('https://hooks.example.com/a'), fc.constantFrom('http://127.0.0.1/', 'ftp://x', 'https://u:p@h.example/', '')),
  token: seldom(fc.constantFrom('t', '')),
  id: seldom(fc.constantFrom('c1', '')),
  authentication: seldom(fc.constantFrom({ scheme: 'Bearer', credentials: 'c' }, { scheme: 'bad scheme' }, { schemes: ['Bearer'] })),
});
const configurationV1 = fc.record({
  returnImmediately: seldom(fc.boolean()),
  historyLength: seldom(mostly(fc.constantFrom(0, 1, 5), fc.constantFrom(-1, 1.5))),
  pushNotificationConfig: seldom(pushConfig),
});
const listQuery = fc.record({
  status: seldom(mostly(fc.constantFrom('TASK_STATE_COMPLETED', 'TASK_STATE_UNSPECIFIED', 'TASK_STATE_WORKING', 0, 3), fc.constantFrom('TASK_STATE_DANCING', 9, 'completed'))),
  pageSize: seldom(mostly(fc.constantFrom(1, 50, 100), fc.constantFrom(101, 0, -1))),
  pageToken: seldom(fc.constantFrom('', 'forged')),
  contextId: seldom(taskId),
  historyLength: seldom(fc.constantFrom(0, 2)),
  statusTimestampAfter: seldom(fc.constantFrom('2026-01-01T00:00:00Z', 'yesterday', '')),
  includeArtifacts: seldom(fc.boolean()),
});

type Version = '1.0' | '0.3' | 'any';

/** Each method of both versions, with params that are valid or nearly so, and its version. */
const rpcCall: fc.Arbitrary<[string, unknown, Version]> = fc.oneof(
  fc.tuple(fc.constantFrom('SendMessage', 'SendStreamingMessage'), fc.record({ message: messageV1, configuration: seldom(configurationV1) }), fc.constant<Version>('1.0')),
  fc.tuple(fc.constantFrom('GetTask', 'CancelTask', 'SubscribeToTask'), fc.record({ id: taskId, historyLength: seldom(fc.constantFrom(0, 3)) }), fc.constant<Version>('1.0')),
  fc.tuple(fc.constant('ListTasks'), listQuery, fc.constant<Version>('1.0')),
  fc.tuple(
    fc.constantFrom('CreateTaskPushNotificationConfig', 'GetTaskPushNotificationConfig', 'ListTaskPushNotificationConfigs', 'DeleteTaskPushNotificationConfig'),
    fc.tuple(fc.record({ taskId, id: fc.constantFrom('c1', 'nope') }), pushConfig).map(([ids, config]) => ({ ...config, ...ids })),
    fc.constant<Version>('1.0'),
  ),
  fc.tuple(fc.constant('GetExtendedAgentCard'), fc.constant({}), fc.constant<Version>('1.0')),
  fc.tuple(fc.constant('agent/getAuthenticatedExtendedCard'), fc.constant({}), fc.constant<Version>('0.3')),
  fc.tuple(fc.constantFrom('message/send', 'message/stream'), fc.record({ message: messageV03, configuration: seldom(fc.record({ blocking: seldom(mostly(fc.boolean(), fc.constant('yes'))), historyLength: seldom(fc.constantFrom(0, 2)) })) }), fc.constant<Version>('0.3')),
  fc.tuple(fc.constantFrom('tasks/get', 'tasks/cancel', 'tasks/resubscribe'), fc.record({ id: taskId }), fc.constant<Version>('0.3')),
  fc.tuple(
    fc.constantFrom('tasks/pushNotificationConfig/set', 'tasks/pushNotificationConfig/get', 'tasks/pushNotificationConfig/list', 'tasks/pushNotificationConfig/delete'),
    fc.record({ id: taskId, taskId, pushNotificationConfigId: seldom(fc.constant('c1')), pushNotificationConfig: pushConfig }),
    fc.constant<Version>('0.3'),
  ),
  fc.tuple(fc.oneof(fc.constantFrom('constructor', '__proto__', 'toString', 'tasks/list', 'sendMessage', 'GETTASK', ''), piece), hostileValue, fc.constant<Version>('any')),
);

/** Any value somewhere in a request: the usual hostile ones, and the words the methods look for. */
const requestValue = fc.oneof(
  { arbitrary: hostileValue, weight: 3 },
  { arbitrary: fc.constantFrom(...IDS, 'ROLE_USER', 'user', 'text', 'data', 'file', 'task', 'message', 'TASK_STATE_WORKING', 'canceled', 2 ** 53, 1e-7, -0), weight: 1 },
);

/** The A2A-Version header of a request in `version`: mostly one that names it (or none), now and then any. */
const versionFor = (family: Version): fc.Arbitrary<string | undefined> => {
  const odd = fc.constantFrom('', '2.0', '1', 'x', '1.0.x', '0.2', '1.0', '0.3');
  if (family === '1.0') return mostly(fc.constantFrom(undefined, '1.0', '1.0.3', ' 1.0 '), odd);
  if (family === '0.3') return mostly(fc.constantFrom(undefined, '0.3', '0.3.0'), odd);
  return mostly(fc.constantFrom(undefined, '1.0', '0.3'), odd);
};
const contentType = mostly(
  fc.constantFrom(undefined, 'application/json', 'application/a2a+json', 'application/json; charset=utf-8', 'APPLICATION/JSON'),
  fc.constantFrom('', 'text/plain', 'text/json', 'multipart/form-data'),
);
const credential = rarely(
  fc.constantFrom<Json>({}, {}, { authorization: `Bearer ${TOKEN}` }, { 'x-api-key': `${TOKEN}-other` }, { authorization: `bearer  ${TOKEN} ` }),
  fc.constantFrom<Json>({ authorization: 'Bearer wrong' }, { authorization: TOKEN }, { 'x-api-key': '' }),
);
const anyMethod = fc.constantFrom('POST', 'GET', 'DELETE', 'PUT', 'HEAD', 'OPTIONS', 'post', '');

/** Text edits on a serialized body: cut it short, splice a fragment in, or (mostly) leave it. */
const textEdit = fc.oneof({ arbitrary: fc.constant<[number, number, string] | undefined>(undefined), weight: 12 }, { arbitrary: fc.tuple(fc.nat(), fc.nat({ max: 1 }), piece), weight: 1 });
function editText(body: string, edit: [number, number, string] | undefined): string {
  if (edit === undefined) return body;
  const [at, kind, insert] = edit;
  const i = at % (body.length + 1);
  return kind === 0 ? body.slice(0, i) : body.slice(0, i) + insert + body.slice(i);
}

/**
 * A value nested deep, as text (JSON.parse takes any depth; recursive code would overflow), in
 * the places the methods read: a task id, message metadata, the request id, a state to list by.
 */
const deepBody = fc
  .oneof(
    fc.tuple(fc.integer({ min: 60, max: 20_000 }), fc.constantFrom('GetTask:id', 'SendMessage:metadata', 'tasks/get:id', 'GetTask:envelope', 'ListTasks:status')),
  )
  .map(([n, where]) => {
    const deep = `${'['.repeat(n)}${']'.repeat(n)}`;
    const [method, member] = where.split(':') as [string, string];
    if (member === 'envelope') return `{"jsonrpc":"2.0","id":${deep},"method":"${method}","params":{"id":"x"}}`;
    const params = member === 'metadata' ? `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}],"metadata":{"a":${deep}}}}` : `{"${member}":${deep}}`;
    return `{"jsonrpc":"2.0","id":1,"method":"${method}","params":${params}}`;
  });

const rpcRequest = fc.oneof(
  {
    arbitrary: fc
      .tuple(rpcCall, rarely(fc.constant(false), fc.constant(true)))
      .chain(([[method, params, family], whole]) =>
        fc.record({
          body: fc
            .record({
              id: rarely(fc.constantFrom<unknown>(1, 'abc', 0, -7, '', null), fc.constantFrom<unknown>(undefined, 1.5, 2 ** 60, { a: 1 }, [1], true)),
              jsonrpc: rarely(fc.constant<unknown>('2.0'), fc.constantFrom<unknown>('1.0', 2, undefined)),
              list: edits(2000, 64, requestValue),
              edit: textEdit,
            })
            // Edits go to the params, or now and then to the whole envelope.
            .map(({ id, jsonrpc, list, edit }) => {
              const envelope = whole ? applyEdits({ jsonrpc, id, method, params }, list.slice(0, 1)) : { jsonrpc, id, method, params: applyEdits(params, list) };
              return editText(JSON.stringify(envelope) ?? '', edit);
            }),
          path: rarely(fc.constantFrom('/jsonrpc', '/'), fc.constantFrom('/JSONRPC', '/jsonrpc/')),
          method: rarely(fc.constant('POST'), anyMethod),
          version: versionFor(family),
          contentType,
          credential,
        }),
      ),
    weight: 12,
  },
  {
    arbitrary: fc.record({ body: fc.oneof(deepBody, fc.constantFrom('', '[]', '[{}]', '"x"', '1', 'null', '{}', '{"jsonrpc":"2.0"}'), words(6)), path: fc.constant('/jsonrpc'), method: fc.constant('POST'), version: versionFor('any'), contentType, credential }),
    weight: 1,
  },
);

/** `text` %-encoded as a client would; a lone surrogate, which cannot be, stays as it is. */
function percentEncoded(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A REST route, the method it takes and the body it reads, with a task id where it has one. */
const restCall: fc.Arbitrary<[string, string, unknown]> = fc.oneof(
  fc.tuple(fc.constantFrom('/message:send', '/message:stream'), fc.constant('POST'), fc.record({ message: messageV1, configuration: seldom(configurationV1) })),
  fc.tuple(fc.constantFrom('/tasks', '/extendedAgentCard', '/.well-known/agent-card.json', '/.well-known/agent.json'), fc.constant('GET'), fc.constant({})),
  fc.tuple(
    taskId,
    fc.constantFrom<[string, string]>(['', 'GET'], [':cancel', 'POST'], [':subscribe', 'POST'], [':subscribe', 'GET'], ['/pushNotificationConfigs', 'POST'], ['/pushNotificationConfigs', 'GET'], ['/pushNotificationConfigs/c1', 'GET'], ['/pushNotificationConfigs/c1', 'DELETE']),
    fc.boolean(),
    fc.oneof(pushConfig, fc.constant({})),
  ).map(([id, [tail, method], encode, body]): [string, string, unknown] => [`/tasks/${encode ? percentEncoded(id) : id}${tail}`, method, body]),
);
const oddPath = fc.oneof(
  fc.constantFrom('/v1/message:send', '/admin', '//tasks', '/tasks/', '/TASKS', '/message:send/', '/tasks/%zz', '/tasks/..%2F..', '/tasks/%3A:cancel', '/tasks/a:b:cancel', '/tasks/$done:pause', '/tasks/$done/x', '/tasks/$done/pushNotificationConfigs/c1/x'),
  words(3).map((w) => `/${w}`),
);
const queryPairs = fc.array(
  fc.tuple(
    fc.constantFrom('pageSize', 'pageToken', 'status', 'contextId', 'historyLength', 'includeArtifacts', 'statusTimestampAfter', 'A2A-Version', 'x'),
    mostly(fc.constantFrom('1', '50', 'true', 'false', 'TASK_STATE_COMPLETED', '2026-01-01T00:00:00Z', '1.0', '$done', '$context'), fc.constantFrom('101', '-1', '1.5', 'abc', '', 'TRUE', '0.3')),
  ),
  { maxLength: 3 },
);

const restRequest = fc
  .record({
    call: restCall,
    path: seldom(oddPath),
    method: seldom(anyMethod),
    list: edits(2000, 64, requestValue),
    edit: textEdit,
    query: seldom(queryPairs),
    version: versionFor('1.0'),
    contentType,
    credential,
    empty: fc.boolean(),
  })
  .map(({ call: [route, usual, body], path, method, list, edit, empty, ...rest }) => ({
    ...rest,
    path: path ?? route,
    method: method ?? usual,
    body: empty && usual !== 'POST' ? '' : editText(JSON.stringify(applyEdits(body, list)) ?? '', edit),
  }));

interface Generated {
  path: string;
  method: string;
  body: string;
  query?: [string, string][] | undefined;
  version: string | undefined;
  contentType: string | undefined;
  credential: Json;
}

function toRequest(generated: Generated, ids: World['ids'], signal: AbortSignal): HttpRequest {
  const fill = (text: string): string =>
    text.includes('$') || text.includes('%24') ? text.replace(/(?:\$|%24)(done|asking|running|context)/g, (_, name: string) => ids[`$${name}` as keyof World['ids']]) : text;
  const headers: Record<string, string | undefined> = { ...(generated.credential as Record<string, string>) };
  if (generated.version !== undefined) headers['a2a-version'] = generated.version;
  if (generated.contentType !== undefined) headers['content-type'] = generated.contentType;
  const query = new URLSearchParams((generated.query ?? []).map(([k, v]): [string, string] => [k, fill(v)]));
  // Each client its own address, as on a network: the failed-auth limit is per address.
  return { method: generated.method, path: fill(generated.path), query, headers, body: fill(generated.body), signal, remoteAddress: `10.0.${generated.body.length % 250}.${generated.path.length % 250}` };
}

// ---- what every answer must be ----

/**
 * The id a JSON-RPC answer must echo: the request's, when its body is an object with a string
 * or a whole-number id; undefined when the answer's id may be null.
 */
function requestId(body: string): string | number | undefined {
  let envelope: unknown;
  try {
    envelope = JSON.parse(body);
  } catch {
    return undefined;
  }
  const id = typeof envelope === 'object' && envelope !== null ? (envelope as Json).id : undefined;
  return typeof id === 'string' || Number.isSafeInteger(id) ? (id as string | number) : undefined;
}

function expectRpcMessage(value: unknown, where: string, id: string | number | undefined): void {
  const message = value as Json;
  check(typeof message === 'object' && message !== null && message.jsonrpc === '2.0', `${where}: a JSON-RPC 2.0 response`, value);
  check(typeof message.id === 'string' || typeof message.id === 'number' || message.id === null, `${where}: an id`, value);
  // A body refused for its content type is not read, so its id is not known.
  const unread = (message.error as Json | undefined)?.code === ERROR_TABLE.CONTENT_TYPE_NOT_SUPPORTED.rpc;
  if (id !== undefined && !unread) check(message.id === id, `${where}: the request's id`, { id, value });
  if (message.error !== undefined) {
    const error = message.error as Json;
    check(typeof error.message === 'string', `${where}: an error with a message`, value);
    check(error.code !== INTERNAL_RPC, `${where}: no internal error for a client's request`, value);
    check(CLIENT_CODES.has(error.code as never), `${where}: a code of the spec`, value);
  } else {
    check('result' in message, `${where}: a result or an error`, value);
  }
}

function expectRestBody(status: number, value: unknown, where: string): void {
  if (status < 400) return;
  const error = (value as { error?: Json }).error;
  check(error !== undefined && error.code === status && typeof error.status === 'string' && typeof error.message === 'string', `${where}: a google.rpc.Status body`, value);
  if (error?.details !== undefined) check(Array.isArray(error.details), `${where}: details is a list`, value);
}

/** Resolves after `turns` turns of the event loop: long enough for an echo task to move on. */
function quiet(turns: number): Promise<'quiet'> {
  return new Promise((resolve) => {
    const hop = (left: number): void => void (left === 0 ? resolve('quiet') : setImmediate(() => hop(left - 1)));
    hop(turns);
  });
}

/**
 * Reads a stream's events until it ends or goes quiet (a stream of a running task stays open
 * until the task changes), then hangs up as a client would.
 */
async function readEvents(events: AsyncIterable<string>, hangUp: () => void): Promise<string[]> {
  const out: string[] = [];
  const iterator = events[Symbol.asyncIterator]();
  for (let i = 0; i < 50; i += 1) {
    const next = await Promise.race([iterator.next(), quiet(20)]);
    if (next === 'quiet' || next.done === true) break;
    out.push(next.value);
  }
  hangUp();
  await iterator.return?.();
  return out;
}

async function expectAnswer(response: HttpResponse, rpc: boolean, id: string | number | undefined, hangUp: () => void): Promise<void> {
  check(response.status !== 500 && response.status !== 503, 'no 500 for a client request', response);
  if ('events' in response) {
    check(response.status === 200 && response.headers['content-type'] === 'text/event-stream', 'a stream is 200 text/event-stream', response.headers);
    for (const event of await readEvents(response.events, hangUp)) {
      // An error event, or an event numbered in its task's log (the resume extension's id).
      const data = /^(?:event: error\n|id: \d+\n)?data: (.*)\n\n$/s.exec(event);
      check(data !== null, 'an event is one data line, after its id or error type', event);
      const value = JSON.parse(data![1]!) as unknown;
      if (rpc) expectRpcMessage(value, 'stream event', id);
      else if (event.startsWith('event: error')) expectRestBody((value as { error: { code: number } }).error.code, value, 'stream error');
    }
    return;
  }
  let value: unknown;
  if (response.body !== '') {
    try {
      value = JSON.parse(response.body);
    } catch {
      expect.fail(`the body is not JSON: ${response.body.slice(0, 200)}`);
    }
  } else {
    check(response.status === 204, 'only 204 has no body', response);
  }
  if (rpc && response.status === 200) expectRpcMessage(value, 'answer', id);
  else expectRestBody(response.status, value, 'answer');
}

async function send(generated: Generated): Promise<void> {
  const { handlers, ids } = await currentWorld();
  const authed = Object.keys(generated.credential).length > 0;
  const handle = handlers[authed ? 1 : 0]!;
  const abort = new AbortController();
  const request = toRequest(generated, ids, abort.signal);
  const rpc = (request.path === '/jsonrpc' || request.path === '/') && request.method === 'POST';
  await expectAnswer(await handle(request), rpc, rpc ? requestId(request.body) : undefined, () => abort.abort());
}

describe('fuzz: the A2A handler', () => {
  it(
    'answers any JSON-RPC request with a JSON-RPC response of the spec',
    () =>
      fuzzTarget('A2A handler: JSON-RPC', async () => {
        world = undefined;
        await fc.assert(fc.asyncProperty(rpcRequest, send), fuzzOptions());
      }),
    fuzzTimeout(2000),
  );

  it(
    'answers any REST request with a status and a google.rpc.Status body',
    () =>
      fuzzTarget('A2A handler: REST', async () => {
        world = undefined;
        await fc.assert(fc.asyncProperty(restRequest, send), fuzzOptions());
      }),
    fuzzTimeout(2000),
  );
});
