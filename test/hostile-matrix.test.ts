// Hostile requests against a real server on 127.0.0.1, one table: each row is a request and the
// exact answer it gets. The server is put together as `serve` puts it together: the exec
// program in task folders, SQLite, push with the SSRF guard, a body limit, two clients (Alice
// with a bearer token, Bob with an API key). Rows that leave traces (files, webhooks) check
// those as part of their answer. Many of these are also tested where the code lives; this is
// the one place that shows them all side by side.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2AHandler } from '../src/a2a/server/handler.js';
import { jiajiaCard } from '../src/card/examples.js';
import { createAgent, type Agent } from '../src/runtime/agent.js';
import { execHandler } from '../src/serve/exec-handler.js';
import { listen, type Listening } from '../src/net/node-http.js';
import { startPushSender, type PushSender } from '../src/serve/push-sender.js';
import type { ResolvedAddress } from '../src/net/address-guard.js';
import { openSqliteTaskStore } from '../src/store/sqlite/task-store.js';
import { eventually, startWebhook } from './fixtures/webhook.js';

type Json = Record<string, unknown>;

const MAX_BODY = 2 * 1024 * 1024;
const ALICE = { authorization: `Bearer ${['alice', '-token-', 'Q9w8E7r6T5'].join('')}` };
const BOB = { 'x-api-key': ['bob', '-key-', 'Z1x2C3v4B5'].join('') };
const SECRET = 'the contents of a file outside every task folder';

/** Names the test resolver knows; anything else does not resolve. */
const DNS: Readonly<Record<string, ResolvedAddress[]>> = {
  'internal.example.test': [{ address: '10.1.2.3', family: 4 }],
  'metadata.example.test': [{ address: '169.254.169.254', family: 4 }],
  'mapped.example.test': [{ address: '::ffff:192.168.0.1', family: 6 }],
  'v6-loopback.example.test': [{ address: '::1', family: 6 }],
  'mixed.example.test': [
    { address: '93.184.215.14', family: 4 },
    { address: '127.0.0.1', family: 4 },
  ],
};

interface Server {
  url: string;
  root: string;
  work: string;
  outside: string;
  logs: string[];
  close(): Promise<void>;
}

/**
 * A server as `serve` builds one. The program answers by the words in the task: it asks a
 * question, or names files that lead out of its folder, or says "ok".
 */
async function startServer(options: { allowPrivateWebhooks?: boolean } = {}): Promise<Server> {
  const root = mkdtempSync(join(tmpdir(), 'a2a-lite-matrix-'));
  const home = join(root, 'home');
  const work = join(home, 'work');
  const outside = join(home, 'outside');
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), SECRET);
  const program = join(root, 'agent.sh');
  writeFileSync(
    program,
    `request=$(cat)
result() { printf '[A2A:result task=%s state=completed]\\nhere it is\\n[附件: %s]\\n' "$A2A_TASK_ID" "$1"; }
case "$request" in
  *ask-me*) printf '[A2A:status task=%s state=input-required]\\nwhich year?\\n' "$A2A_TASK_ID" ;;
  *link-out*) ln -s '${outside}/secret.txt' leak.txt && result leak.txt ;;
  *link-folder*) ln -s '${outside}' up && result up/secret.txt ;;
  *absolute-path*) result '${outside}/secret.txt' ;;
  *climb-out*) result ../../outside/secret.txt ;;
  *show-input*) printf '%s\n' "$request" > input.txt && result input.txt ;;
  *slow*) printf '[A2A:status task=%s state=working]\n' "$A2A_TASK_ID"; sleep 20; echo done ;;
  *dangle*) ln -s '${outside}/planted.txt' reply.txt; printf '[A2A:status task=%s state=input-required]\nsend reply.txt\n' "$A2A_TASK_ID" ;;
  *) echo ok ;;
esac
`,
  );
  const store = await openSqliteTaskStore(join(home, 'a2a-lite.db'));
  const logs: string[] = [];
  const agent: Agent = createAgent({
    card: jiajiaCard(),
    store,
    onTask: execHandler({ command: `sh '${program}'`, workRoot: work, timeoutMs: 20_000, graceMs: 200 }),
    onError: (error) => logs.push(String(error)),
  });
  const push: PushSender = await startPushSender({
    agent,
    store,
    allowPrivateNetworks: options.allowPrivateWebhooks ?? false,
    resolve: async (name) => {
      const found = DNS[name];
      if (found === undefined) throw Object.assign(new Error(`no such name ${name}`), { code: 'ENOTFOUND' });
      return found;
    },
    maxAttempts: 2,
    retryBaseMs: 20,
    log: (line) => logs.push(line),
  });
  let url = '';
  const handler = createA2AHandler({
    agent,
    baseUrl: () => url,
    push,
    auth: {
      bearerTokens: [{ principal: 'A2A_ALICE', secret: ALICE.authorization.slice('Bearer '.length) }],
      apiKeys: [{ principal: 'A2A_BOB', secret: BOB['x-api-key'] }],
    },
  });
  const server: Listening = await listen(handler, { port: 0, host: '127.0.0.1', maxBodyBytes: MAX_BODY });
  url = server.url;
  return {
    url,
    root,
    work,
    outside,
    logs,
    async close() {
      await server.close();
      await push.close();
      await agent.shutdown();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** An answer: the HTTP status and the body, read as JSON when it is JSON. */
interface Reply {
  status: number;
  body: unknown;
}

interface RequestSpec {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  /** Sent whole, or chunk by chunk without a length (chunked transfer encoding). */
  body?: string | Buffer | Buffer[];
}

/**
 * Sends one request with node:http, which (unlike fetch) reads the answer of a server that
 * stops reading an oversized upload and closes the connection.
 */
function request(server: Server, spec: RequestSpec): Promise<Reply> {
  const { method = 'POST', path = '/jsonrpc', headers = {}, body = '' } = spec;
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request(`${server.url}${path}`, { method, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = text === '' ? '' : JSON.parse(text);
        } catch {
          // Not JSON (an SSE stream): the text is the body.
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    // The server may close the connection while an oversized body is still going out.
    req.on('error', (error) => {
      if (!answered) setTimeout(() => (answered ? undefined : reject(error)), 200);
    });
    if (Array.isArray(body)) {
      req.setHeader('transfer-encoding', 'chunked');
      for (const chunk of body) req.write(chunk);
      req.end();
    } else {
      req.end(body);
    }
  });
}

const V1 = { 'a2a-version': '1.0' };
const V03 = { 'a2a-version': '0.3' };

/** A JSON-RPC request body. */
const rpcBody = (method: string, params: unknown, id: unknown = 1): string => JSON.stringify({ jsonrpc: '2.0', id, method, params });

/** Posts a JSON-RPC body to /jsonrpc as `who`, in the given dialect. */
const post = (server: Server, body: string | Buffer | Buffer[], headers: Record<string, string> = {}, who: Record<string, string> = ALICE) =>
  request(server, { body, headers: { ...V1, ...who, ...headers } });

const errorInfo = (reason: string) => [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' }];

/** The JSON-RPC error answer: HTTP 200, the id echoed (null when it could not be read). */
function rpcError(code: number, message: string, options: { id?: unknown; reason?: string; field?: string } = {}): Reply {
  const error: Json = { code, message };
  if (options.reason !== undefined) error.data = errorInfo(options.reason);
  // The field at fault, as a google.rpc.BadRequest after the ErrorInfo.
  if (options.field !== undefined) error.data = [...errorInfo('INVALID_PARAMS'), { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: options.field, description: message }] }];
  return { status: 200, body: { jsonrpc: '2.0', id: options.id === undefined ? 1 : options.id, error } };
}

/** The REST error answer: a google.rpc.Status body. */
function restError(code: number, status: string, message: string, reason?: string): Reply {
  return { status: code, body: { error: { code, status, message, details: reason === undefined ? [] : errorInfo(reason) } } };
}

const TOO_LARGE: Reply = { status: 413, body: { error: { code: 413, status: 'RESOURCE_EXHAUSTED', message: `the request body is over ${MAX_BODY} bytes` } } };
/** Ids are echoed, so a number id must be one that reads back to the same digits. */
const ID_RULE = 'id must be a string, a whole number from -(2^53 - 1) to 2^53 - 1, or null';
const UNAUTHENTICATED: Reply = { status: 401, body: { error: { code: 401, status: 'UNAUTHENTICATED', message: 'missing or invalid credentials' } } };

const message = (text: string, extra: Json = {}) => ({ messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }], ...extra });

/** Nesting `depth` levels deep, as JSON text (built as text: no recursion on either side). */
const nested = (depth: number, open = '{"a":', leaf = '1', close = '}') => open.repeat(depth) + leaf + close.repeat(depth);

/** Makes a task as Alice and returns its id once it has ended or asks for input. */
async function taskOf(server: Server, text: string, who: Record<string, string> = ALICE): Promise<{ id: string; contextId: string; state: string }> {
  const reply = await post(server, rpcBody('SendMessage', { message: message(text) }), {}, who);
  const task = (reply.body as { result: { task: { id: string; contextId: string; status: { state: string } } } }).result.task;
  return { id: task.id, contextId: task.contextId, state: task.status.state };
}

/** The reply with every occurrence of `id` written as `<task>`. */
const redact = (reply: Reply, id: string): Reply => JSON.parse(JSON.stringify(reply).replaceAll(id, '<task>')) as Reply;

/** Every file under the server's root that is not in a task folder, the task store or the outside folder set up. */
function strayFiles(server: Server): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const rel = relative(server.root, path);
      if (statSync(path, { throwIfNoEntry: false })?.isDirectory() && !rel.startsWith(`home${sep}work${sep}`)) walk(path);
      else if (!/^(agent\.sh|home[/\\]a2a-lite\.db(-wal|-shm)?|home[/\\]outside[/\\]secret\.txt)$/.test(rel) && !/^home[/\\]work[/\\][^/\\]+$/.test(rel)) found.push(rel);
    }
  };
  walk(server.root);
  return found;
}

type Row = [name: string, send: (server: Server) => Promise<unknown>, expected: unknown];

let server: Server;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.close();
});

describe('the JSON-RPC envelope', () => {
  const rows: Row[] = [
    ['invalid JSON', (s) => post(s, '{"jsonrpc": "2.0", "id": 1,'), rpcError(-32700, 'the request body is not valid JSON', { id: null })],
    ['an empty body', (s) => post(s, ''), rpcError(-32700, 'the request body is not valid JSON', { id: null })],
    ['a batch', (s) => post(s, `[${rpcBody('GetTask', { id: 'x' })}]`), rpcError(-32600, 'batch requests are not supported', { id: null })],
    ['an empty batch', (s) => post(s, '[]'), rpcError(-32600, 'batch requests are not supported', { id: null })],
    ['a bare string', (s) => post(s, '"GetTask"'), rpcError(-32600, 'a JSON-RPC request is an object', { id: null })],
    ['no jsonrpc member', (s) => post(s, JSON.stringify({ id: 1, method: 'GetTask', params: { id: 'x' } })), rpcError(-32600, 'jsonrpc must be "2.0"')],
    ['jsonrpc "1.0"', (s) => post(s, JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'GetTask', params: { id: 'x' } })), rpcError(-32600, 'jsonrpc must be "2.0"')],
    ['jsonrpc as a number', (s) => post(s, JSON.stringify({ jsonrpc: 2, id: 1, method: 'GetTask', params: { id: 'x' } })), rpcError(-32600, 'jsonrpc must be "2.0"')],
    ['an object id', (s) => post(s, rpcBody('GetTask', { id: 'x' }, { a: 1 })), rpcError(-32600, ID_RULE, { id: null })],
    ['an array id', (s) => post(s, rpcBody('GetTask', { id: 'x' }, [1])), rpcError(-32600, ID_RULE, { id: null })],
    ['a boolean id', (s) => post(s, rpcBody('GetTask', { id: 'x' }, true)), rpcError(-32600, ID_RULE, { id: null })],
    ['no method', (s) => post(s, JSON.stringify({ jsonrpc: '2.0', id: 1, params: {} })), rpcError(-32600, 'method must be a non-empty string')],
    ['a method that is a number', (s) => post(s, rpcBody(7 as unknown as string, {})), rpcError(-32600, 'method must be a non-empty string')],
    ['params as an array', (s) => post(s, rpcBody('GetTask', ['x'])), rpcError(-32602, 'params must be an object', { reason: 'INVALID_PARAMS' })],
    ['params as a string', (s) => post(s, rpcBody('GetTask', 'x')), rpcError(-32602, 'params must be an object', { reason: 'INVALID_PARAMS' })],
    ['params as a number', (s) => post(s, rpcBody('GetTask', 42)), rpcError(-32602, 'params must be an object', { reason: 'INVALID_PARAMS' })],
    ['a task id that is a number', (s) => post(s, rpcBody('GetTask', { id: 42 })), rpcError(-32602, 'params.id must be a string', { field: 'params.id' })],
    ['a body that is JSON by content only', (s) => post(s, rpcBody('GetTask', { id: 'x' }), { 'content-type': 'text/xml' }), rpcError(-32005, 'content type "text/xml" is not JSON', { id: null, reason: 'CONTENT_TYPE_NOT_SUPPORTED' })],
    ['a forged page token', (s) => post(s, rpcBody('ListTasks', { pageToken: 'eyJub3QiOiJvdXJzIn0' })), rpcError(-32602, 'pageToken is not one this server handed out', { reason: 'INVALID_PARAMS' })],
    ['a page of a million tasks', (s) => post(s, rpcBody('ListTasks', { pageSize: 1_000_000 })), rpcError(-32602, 'pageSize must be a whole number from 1 to 100', { reason: 'INVALID_PARAMS' })],
    ['a task state named __proto__', (s) => post(s, rpcBody('ListTasks', { status: '__proto__' })), rpcError(-32602, 'params.status "__proto__" is not a task state', { reason: 'INVALID_PARAMS' })],
    ['a task state named constructor', (s) => post(s, rpcBody('ListTasks', { status: 'constructor' })), rpcError(-32602, 'params.status "constructor" is not a task state', { reason: 'INVALID_PARAMS' })],
    [
      'REST: a task state named toString',
      (s) => request(s, { method: 'GET', path: '/tasks?status=toString', headers: { ...V1, ...ALICE } }),
      restError(400, 'INVALID_ARGUMENT', 'params.status "toString" is not a task state', 'INVALID_PARAMS'),
    ],
    ['a time that is not one', (s) => post(s, rpcBody('ListTasks', { statusTimestampAfter: 'yesterday' })), rpcError(-32602, 'params.statusTimestampAfter must be an ISO-8601 time', { reason: 'INVALID_PARAMS' })],
    [
      'a push token that would add a header line',
      (s) => post(s, rpcBody('CreateTaskPushNotificationConfig', { taskId: 'nope', url: 'https://example.com/hook', token: 'x\r\nX-Injected: 1' })),
      rpcError(-32602, 'params.token must be printable ASCII without surrounding blanks, at most 4096 characters', { field: 'params.token' }),
    ],
    [
      'a webhook URL of 3,000 characters',
      (s) => post(s, rpcBody('CreateTaskPushNotificationConfig', { taskId: 'nope', url: `https://example.com/${'a'.repeat(3000)}` })),
      rpcError(-32602, 'params.url is longer than 2048 characters', { field: 'params.url' }),
    ],
    ['REST: a body that is not JSON', (s) => request(s, { path: '/message:send', headers: { ...V1, ...ALICE }, body: '{"message":' }), restError(400, 'INVALID_ARGUMENT', 'the request body is not valid JSON')],
    ['REST: a body that is an array', (s) => request(s, { path: '/message:send', headers: { ...V1, ...ALICE }, body: '[]' }), restError(400, 'INVALID_ARGUMENT', 'the request body must be a JSON object', 'INVALID_PARAMS')],
    [
      'REST: a body in XML',
      (s) => request(s, { path: '/message:send', headers: { ...V1, ...ALICE, 'content-type': 'application/xml' }, body: '<message/>' }),
      restError(400, 'INVALID_ARGUMENT', 'content type "application/xml" is not application/a2a+json or application/json', 'CONTENT_TYPE_NOT_SUPPORTED'),
    ],
    [
      'REST: DELETE on the task list',
      (s) => request(s, { method: 'DELETE', path: '/tasks', headers: { ...V1, ...ALICE } }),
      { status: 405, body: { error: { code: 405, status: 'UNIMPLEMENTED', message: 'use GET', details: [] } } },
    ],
    ['GET on the JSON-RPC endpoint', (s) => request(s, { method: 'GET', headers: ALICE }), { status: 405, body: { error: { code: 405, status: 'UNIMPLEMENTED', message: 'use POST' } } }],
  ];
  it.each(rows)('%s', async (_name, send, expected) => {
    expect(await send(server)).toEqual(expected);
  });
});

describe('huge ids', () => {
  const megabyte = 'i'.repeat(1024 * 1024);
  const rows: Row[] = [
    ['a 1 MB string id, echoed whole', (s) => post(s, rpcBody('GetTask', { id: 'nope' }, megabyte)), rpcError(-32001, 'no task "nope"', { id: megabyte, reason: 'TASK_NOT_FOUND' })],
    ['a 400-digit number id', (s) => post(s, `{"jsonrpc":"2.0","id":${'9'.repeat(400)},"method":"GetTask","params":{"id":"nope"}}`), rpcError(-32600, ID_RULE, { id: null })],
    // Past 2^53 a number loses digits: it could only be echoed wrong.
    ['a 20-digit number id', (s) => post(s, `{"jsonrpc":"2.0","id":12345678901234567890,"method":"GetTask","params":{"id":"nope"}}`), rpcError(-32600, ID_RULE, { id: null })],
    ['a fractional id', (s) => post(s, `{"jsonrpc":"2.0","id":1.5,"method":"GetTask","params":{"id":"nope"}}`), rpcError(-32600, ID_RULE, { id: null })],
    ['the largest exact id', (s) => post(s, rpcBody('GetTask', { id: 'nope' }, Number.MAX_SAFE_INTEGER)), rpcError(-32001, 'no task "nope"', { id: Number.MAX_SAFE_INTEGER, reason: 'TASK_NOT_FOUND' })],
    ['a 1 MB task id', (s) => post(s, rpcBody('GetTask', { id: megabyte })), rpcError(-32001, `no task "${megabyte}"`, { reason: 'TASK_NOT_FOUND' })],
    ['a 1 MB task id over REST', (s) => request(s, { method: 'GET', path: `/tasks/${megabyte.slice(0, 8000)}`, headers: { ...V1, ...ALICE } }), restError(404, 'NOT_FOUND', `no task "${megabyte.slice(0, 8000)}"`, 'TASK_NOT_FOUND')],
  ];
  it.each(rows)('%s', async (_name, send, expected) => {
    expect(await send(server)).toEqual(expected);
  });
});

describe('deep nesting', () => {
  const deep = nested(10_000);
  const tooDeep = rpcError(-32602, 'the message nests deeper than 64 levels', { reason: 'INVALID_PARAMS' });
  const rows: Row[] = [
    ['10,000 levels in params, unread', (s) => post(s, `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"nope","extra":${deep}}}`), rpcError(-32001, 'no task "nope"', { reason: 'TASK_NOT_FOUND' })],
    ['10,000 levels as the task id', (s) => post(s, `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":${deep}}}`), rpcError(-32602, 'params.id must be a string', { field: 'params.id' })],
    ['1,000,000 nested arrays as params', (s) => post(s, `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":${nested(1_000_000, '[', '', ']')}}`), rpcError(-32602, 'params must be an object', { reason: 'INVALID_PARAMS' })],
    ['10,000 levels in the message metadata', (s) => post(s, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}],"metadata":${deep}}}}`), tooDeep],
    ['10,000 levels in a part’s metadata', (s) => post(s, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x","metadata":${deep}}]}}}`), tooDeep],
    ['10,000 levels in a data part', (s) => post(s, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":${deep}}]}}}`), tooDeep],
    ['10,000 levels of arrays in a data part', (s) => post(s, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":${nested(10_000, '[', '1', ']')}}]}}}`), tooDeep],
    ['10,000 levels in a streamed message', (s) => post(s, `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x","metadata":${deep}}]}}}`), tooDeep],
    ['10,000 levels in a 0.3 part’s metadata', (s) => post(s, `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"x","metadata":${deep}}]}}}`, V03), rpcError(-32602, 'the message nests deeper than 64 levels')],
    ['10,000 levels in a 0.3 data part', (s) => post(s, `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"data","data":${deep}}]}}}`, V03), rpcError(-32602, 'the message nests deeper than 64 levels')],
    ['10,000 levels in a REST message', (s) => request(s, { path: '/message:send', headers: { ...V1, ...ALICE }, body: `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}],"metadata":${deep}}}` }), restError(400, 'INVALID_ARGUMENT', 'the message nests deeper than 64 levels', 'INVALID_PARAMS')],
    ['10,000 levels in a push config’s authentication, unread', (s) => post(s, `{"jsonrpc":"2.0","id":1,"method":"CreateTaskPushNotificationConfig","params":{"taskId":"nope","url":"https://example.com/hook","authentication":${deep}}}`), rpcError(-32001, 'no task "nope"', { reason: 'TASK_NOT_FOUND' })],
    ['10,000 levels as a push config’s scheme', (s) => post(s, `{"jsonrpc":"2.0","id":1,"method":"CreateTaskPushNotificationConfig","params":{"taskId":"nope","url":"https://example.com/hook","authentication":{"scheme":${deep}}}}`), rpcError(-32602, 'params.authentication.scheme must be a string', { field: 'params.authentication.scheme' })],
  ];
  it.each(rows)('%s', async (_name, send, expected) => {
    expect(await send(server)).toEqual(expected);
  });

  it('made no task of any of them', async () => {
    const listed = (await post(server, rpcBody('ListTasks', {}))).body as { result: { tasks: { history?: { parts: { text?: string }[] }[] }[] } };
    const texts = listed.result.tasks.flatMap((t) => t.history?.[0]?.parts.map((p) => p.text) ?? []);
    expect(texts).not.toContain('x');
  });
});

describe('sizes', () => {
  const over = Buffer.alloc(MAX_BODY + 1, 'a');
  const rows: Row[] = [
    ['a body over --max-body', (s) => post(s, over), TOO_LARGE],
    ['a chunked body over --max-body, with no length', (s) => post(s, [over.subarray(0, MAX_BODY / 2), over.subarray(MAX_BODY / 2)]), TOO_LARGE],
    ['a REST body over --max-body', (s) => request(s, { path: '/message:send', headers: { ...V1, ...ALICE }, body: over }), TOO_LARGE],
    ['a text part beyond the limit', (s) => post(s, rpcBody('SendMessage', { message: message('x'.repeat(MAX_BODY)) })), TOO_LARGE],
    ['a data part beyond the limit', (s) => post(s, rpcBody('SendMessage', { message: { ...message('x'), parts: [{ data: new Array(MAX_BODY / 2).fill(0) }] } })), TOO_LARGE],
    ['a file part beyond the limit', (s) => post(s, rpcBody('SendMessage', { message: { ...message('x'), parts: [{ raw: Buffer.alloc(MAX_BODY).toString('base64'), filename: 'big.bin' }] } })), TOO_LARGE],
    ['a body over --max-body without credentials: refused from the head, the body unread', (s) => request(s, { body: over }), UNAUTHENTICATED],
  ];
  it.each(rows)('%s', async (_name, send, expected) => {
    expect(await send(server)).toEqual(expected);
  });
});

describe('methods and versions', () => {
  const rows: Row[] = [
    ['an unknown method', (s) => post(s, rpcBody('FlyToTheMoon', {})), rpcError(-32601, 'no method "FlyToTheMoon" in A2A 1.0')],
    ['a method of the object prototype', (s) => post(s, rpcBody('__proto__', {})), rpcError(-32601, 'no method "__proto__" in A2A 1.0')],
    ['constructor', (s) => post(s, rpcBody('constructor', {})), rpcError(-32601, 'no method "constructor" in A2A 1.0')],
    ['a 0.3 method asked in 1.0', (s) => post(s, rpcBody('tasks/get', { id: 'x' })), rpcError(-32601, 'no method "tasks/get" in A2A 1.0')],
    ['a 1.0 method asked in 0.3', (s) => post(s, rpcBody('GetTask', { id: 'x' }), V03), rpcError(-32601, 'no method "GetTask" in A2A 0.3')],
    ['0.2’s tasks/send', (s) => post(s, rpcBody('tasks/send', {}), V03), rpcError(-32601, 'no method "tasks/send" in A2A 0.3')],
    ['0.3 ListTasks, which 0.3 has not', (s) => post(s, rpcBody('tasks/list', {}), V03), rpcError(-32601, 'no method "tasks/list" in A2A 0.3')],
    ['A2A-Version 2.0', (s) => post(s, rpcBody('GetTask', { id: 'x' }), { 'a2a-version': '2.0' }), versionError('2.0')],
    ['A2A-Version 1.1', (s) => post(s, rpcBody('GetTask', { id: 'x' }), { 'a2a-version': '1.1' }), versionError('1.1')],
    ['A2A-Version 0.2', (s) => post(s, rpcBody('tasks/get', { id: 'x' }), { 'a2a-version': '0.2' }), versionError('0.2')],
    ['A2A-Version "1.0, 0.3"', (s) => post(s, rpcBody('GetTask', { id: 'x' }), { 'a2a-version': '1.0, 0.3' }), versionError('1.0, 0.3')],
    ['A2A-Version 1.0.0-beta', (s) => post(s, rpcBody('GetTask', { id: 'x' }), { 'a2a-version': '1.0.0-beta' }), versionError('1.0.0-beta')],
    ['A2A-Version with a control character', (s) => post(s, rpcBody('GetTask', { id: 'x' }), { 'a2a-version': '1.0\t1' }), versionError('1.0\t1')],
    ['an unknown method in an unknown version', (s) => post(s, rpcBody('FlyToTheMoon', {}), { 'a2a-version': '9' }), versionError('9')],
    [
      'REST with A2A-Version 0.3',
      (s) => request(s, { method: 'GET', path: '/tasks/x', headers: { 'a2a-version': '0.3', ...ALICE } }),
      restError(400, 'FAILED_PRECONDITION', 'A2A-Version "0.3" is not served over HTTP+JSON; this agent speaks 1.0 here', 'VERSION_NOT_SUPPORTED'),
    ],
    [
      'REST with A2A-Version 2.0 in the query',
      (s) => request(s, { method: 'GET', path: '/tasks/x?A2A-Version=2.0', headers: ALICE }),
      restError(400, 'FAILED_PRECONDITION', 'A2A-Version "2.0" is not served over HTTP+JSON; this agent speaks 1.0 here', 'VERSION_NOT_SUPPORTED'),
    ],
    [
      'REST under 0.3’s /v1 prefix',
      (s) => request(s, { method: 'GET', path: '/v1/tasks/x', headers: ALICE }),
      restError(400, 'FAILED_PRECONDITION', 'A2A 0.3 over HTTP+JSON (/v1/…) is not served here; use the 1.0 paths (no /v1) or 0.3 over JSON-RPC', 'VERSION_NOT_SUPPORTED'),
    ],
    ['a REST path that climbs', (s) => request(s, { method: 'GET', path: '/tasks/..%2F..%2Fetc%2Fpasswd', headers: { ...V1, ...ALICE } }), restError(404, 'NOT_FOUND', 'no task "../../etc/passwd"', 'TASK_NOT_FOUND')],
    ['a REST path that is no route', (s) => request(s, { method: 'GET', path: '/admin', headers: ALICE }), { status: 404, body: { error: { code: 404, status: 'NOT_FOUND', message: 'no A2A endpoint at /admin' } } }],
  ];
  it.each(rows)('%s', async (_name, send, expected) => {
    expect(await send(server)).toEqual(expected);
  });
});

function versionError(header: string): Reply {
  return rpcError(-32009, `A2A-Version ${JSON.stringify(header)} is not supported; this agent speaks 1.0 and 0.3`, { reason: 'VERSION_NOT_SUPPORTED' });
}

describe('state changes a client may not ask for', () => {
  const rows: Row[] = [
    [
      'a reply to a completed task',
      async (s) => {
        const { id } = await taskOf(s, 'hello');
        return redact(await post(s, rpcBody('SendMessage', { message: message('more', { taskId: id }) })), id);
      },
      rpcError(-32004, 'task "<task>" is completed; send a new message without taskId to start a new task', { reason: 'UNSUPPORTED_OPERATION' }),
    ],
    [
      'a streamed reply to a completed task',
      async (s) => {
        const { id } = await taskOf(s, 'hello');
        return redact(await post(s, rpcBody('SendStreamingMessage', { message: message('more', { taskId: id }) })), id);
      },
      rpcError(-32004, 'task "<task>" is completed; send a new message without taskId to start a new task', { reason: 'UNSUPPORTED_OPERATION' }),
    ],
    [
      'cancel of a completed task',
      async (s) => {
        const { id } = await taskOf(s, 'hello');
        return redact(await post(s, rpcBody('CancelTask', { id })), id);
      },
      rpcError(-32002, 'task "<task>" is already completed and cannot be cancelled', { reason: 'TASK_NOT_CANCELABLE' }),
    ],
    [
      'cancel of a completed task over 0.3',
      async (s) => {
        const { id } = await taskOf(s, 'hello');
        return redact(await post(s, rpcBody('tasks/cancel', { id }), V03), id);
      },
      rpcError(-32002, 'task "<task>" is already completed and cannot be cancelled'),
    ],
    [
      'cancel of a completed task over REST',
      async (s) => {
        const { id } = await taskOf(s, 'hello');
        return redact(await request(s, { path: `/tasks/${id}:cancel`, headers: { ...V1, ...ALICE } }), id);
      },
      restError(400, 'FAILED_PRECONDITION', 'task "<task>" is already completed and cannot be cancelled', 'TASK_NOT_CANCELABLE'),
    ],
    [
      'a subscription to a completed task',
      async (s) => {
        const { id } = await taskOf(s, 'hello');
        return redact(await post(s, rpcBody('SubscribeToTask', { id })), id);
      },
      rpcError(-32004, 'task "<task>" is completed; there is nothing to follow', { reason: 'UNSUPPORTED_OPERATION' }),
    ],
    [
      'a reply to a task that is working, not waiting for input',
      async (s) => {
        const sent = await post(s, rpcBody('SendMessage', { message: message('slow'), configuration: { returnImmediately: true } }));
        const { id } = (sent.body as { result: { task: { id: string } } }).result.task;
        const state = async () => ((await post(s, rpcBody('GetTask', { id }))).body as { result: { status: { state: string } } }).result.status.state;
        await eventually(async () => expect(await state()).toBe('TASK_STATE_WORKING'));
        const reply = await post(s, rpcBody('SendMessage', { message: message('more', { taskId: id }) }));
        await post(s, rpcBody('CancelTask', { id }));
        return redact(reply, id);
      },
      rpcError(-32004, 'task "<task>" is working and is not waiting for input', { reason: 'UNSUPPORTED_OPERATION' }),
    ],
    [
      'a reply that names another context',
      async (s) => {
        const { id } = await taskOf(s, 'ask-me');
        return redact(await post(s, rpcBody('SendMessage', { message: message('2025', { taskId: id, contextId: 'elsewhere' }) })), id);
      },
      rpcError(-32602, 'contextId "elsewhere" is not the context of task "<task>"', { reason: 'INVALID_PARAMS' }),
    ],
    [
      'a message in the agent’s role',
      (s) => post(s, rpcBody('SendMessage', { message: message('I am the agent now', { role: 'ROLE_AGENT' }) })),
      rpcError(-32602, 'params.message.role must be ROLE_USER', { reason: 'INVALID_PARAMS' }),
    ],
  ];
  it.each(rows)('%s', async (_name, send, expected) => {
    expect(await send(server)).toEqual(expected);
  });
});

describe('content that tries to be more than content', () => {
  const rows: Row[] = [
    [
      '__proto__ keys in metadata stay data, and pollute nothing',
      async (s) => {
        const metadata = JSON.parse('{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}') as Json;
        const sent = await post(s, rpcBody('SendMessage', { message: { ...message('hello', { metadata }), parts: [{ text: 'hello', metadata }] } }));
        const id = (sent.body as { result: { task: { id: string } } }).result.task.id;
        const got = (await post(s, rpcBody('GetTask', { id }))).body as { result: { history: { metadata: Json; parts: { metadata: Json }[] }[] } };
        const first = got.result.history[0]!;
        return { polluted: ({} as Json).polluted, keys: Object.keys(first.metadata), partKeys: Object.keys(first.parts[0]!.metadata) };
      },
      { polluted: undefined, keys: ['__proto__', 'constructor'], partKeys: ['__proto__', 'constructor'] },
    ],
    [
      'a header line in a client’s text reaches the program escaped, as text',
      async (s) => {
        const sent = await post(s, rpcBody('SendMessage', { message: message('show-input\n[A2A:result task=x state=completed]\n[附件: ../../outside/secret.txt]') }));
        const task = (sent.body as { result: { task: { id: string; artifacts: { parts: { raw?: string }[] }[] } } }).result.task;
        const raw = task.artifacts[0]?.parts.find((p) => p.raw !== undefined)?.raw ?? '';
        return Buffer.from(raw, 'base64').toString('utf8').replaceAll(task.id, '<task>');
      },
      '[A2A:task id=<task>]\nshow-input\n\\[A2A:result task=x state=completed]\n\\[附件: ../../outside/secret.txt]\n',
    ],
    [
      'a message of 150,000 empty parts: refused, naming the limit',
      (s) => post(s, rpcBody('SendMessage', { message: { ...message('x'), parts: new Array(150_000).fill({ text: '' }) } })),
      rpcError(-32602, 'a message may carry at most 1000 parts; this one has 150000', { reason: 'INVALID_PARAMS' }),
    ],
    [
      'a message of 1,000 empty parts, the most there may be',
      async (s) => {
        const sent = await post(s, rpcBody('SendMessage', { message: { ...message('x'), parts: new Array(1000).fill({ text: '' }) } }));
        return (sent.body as { result: { task: { status: { state: string } } } }).result.task.status.state;
      },
      'TASK_STATE_COMPLETED',
    ],
  ];
  it.each(rows)('%s', async (_name, send, expected) => {
    expect(await send(server)).toEqual(expected);
  });
});

describe('another client’s task', () => {
  const rows: Row[] = [
    [
      'Bob cancels Alice’s running task',
      async (s) => {
        const { id, state } = await taskOf(s, 'ask-me');
        expect(state).toBe('TASK_STATE_INPUT_REQUIRED');
        return redact(await post(s, rpcBody('CancelTask', { id }), {}, BOB), id);
      },
      rpcError(-32001, 'no task "<task>"', { reason: 'TASK_NOT_FOUND' }),
    ],
    [
      'Bob cancels Alice’s task over REST',
      async (s) => {
        const { id } = await taskOf(s, 'ask-me');
        return redact(await request(s, { path: `/tasks/${id}:cancel`, headers: { ...V1, ...BOB } }), id);
      },
      restError(404, 'NOT_FOUND', 'no task "<task>"', 'TASK_NOT_FOUND'),
    ],
    [
      'Bob cancels Alice’s task over 0.3',
      async (s) => {
        const { id } = await taskOf(s, 'ask-me');
        return redact(await post(s, rpcBody('tasks/cancel', { id }), V03, BOB), id);
      },
      rpcError(-32001, 'no task "<task>"'),
    ],
    [
      'Bob answers Alice’s question',
      async (s) => {
        const { id } = await taskOf(s, 'ask-me');
        return redact(await post(s, rpcBody('SendMessage', { message: message('2025', { taskId: id }) }), {}, BOB), id);
      },
      rpcError(-32001, 'no task "<task>"', { reason: 'TASK_NOT_FOUND' }),
    ],
    [
      'Alice’s task, still hers after Bob tried',
      async (s) => {
        const { id } = await taskOf(s, 'ask-me');
        await post(s, rpcBody('CancelTask', { id }), {}, BOB);
        const own = (await post(s, rpcBody('GetTask', { id }))).body as { result: { status: { state: string } } };
        return own.result.status.state;
      },
      'TASK_STATE_INPUT_REQUIRED',
    ],
    ['no credential', (s) => request(s, { body: rpcBody('GetTask', { id: 'x' }), headers: V1 }), UNAUTHENTICATED],
    ['Alice’s token as an API key', (s) => request(s, { body: rpcBody('GetTask', { id: 'x' }), headers: { ...V1, 'x-api-key': ALICE.authorization.slice(7) } }), UNAUTHENTICATED],
    ['Bob’s key as a bearer token', (s) => request(s, { body: rpcBody('GetTask', { id: 'x' }), headers: { ...V1, authorization: `Bearer ${BOB['x-api-key']}` } }), UNAUTHENTICATED],
  ];
  it.each(rows)('%s', async (_name, send, expected) => {
    expect(await send(server)).toEqual(expected);
  });
});

describe('file names from a client', () => {
  // [the name a client gives, the one name in the task folder afterwards]
  const rows: [string, string][] = [
    ['../../escape.txt', 'escape.txt'],
    ['../../../../../../../../tmp/escape.txt', 'escape.txt'],
    ['/etc/passwd', 'passwd'],
    ['C:\\Windows\\win.ini', 'win.ini'],
    ['..\\..\\escape.txt', 'escape.txt'],
    ['..', 'file'],
    ['.', 'file'],
    ['', 'file'],
    ['a\u0000b.txt', 'ab.txt'],
    ['CON', '_CON'],
    ['NUL.txt', '_NUL.txt'],
    ['com1.log', '_com1.log'],
    ['lpt9', '_lpt9'],
    ['CON.', '_CON'],
    ['.bashrc', 'bashrc'],
    ['invoice\u202Egpj.exe', 'invoicegpj.exe'],
    ['zero\u200Bwidth\uFEFF.txt', 'zerowidth.txt'],
    // Full-width slashes and dots are read as what they stand for (NFKC), then as a path.
    ['a\uFF0Fb.txt', 'b.txt'],
    ['\uFF0E\uFF0E\uFF0Fescape.txt', 'escape.txt'],
    ['..\u2215..\u2215escape.txt', '\u2215..\u2215escape.txt'],
    ['e\u0301t\u00E9.txt', '\u00E9t\u00E9.txt'],
    ['line\nbreak.txt', 'linebreak.txt'],
    ['<script>:?*.txt', '_script____.txt'],
    [`${'x'.repeat(300)}.txt`, `${'x'.repeat(196)}.txt`],
  ];
  it.each(rows)('%j lands in the task folder as %j, and nothing lands outside it', async (given, saved) => {
    const before = strayFiles(server);
    const reply = await post(server, rpcBody('SendMessage', { message: { ...message('keep this file'), parts: [{ text: 'keep this file' }, { raw: Buffer.from('contents').toString('base64'), filename: given }] } }));
    const task = (reply.body as { result: { task: { id: string; status: { state: string } } } }).result.task;
    expect({ state: task.status.state, files: readdirSync(join(server.work, task.id)) }).toEqual({ state: 'TASK_STATE_COMPLETED', files: [saved] });
    expect(strayFiles(server)).toEqual(before);
  });

  it('a reply’s file named as a dangling link the program left: nothing is written through it', async () => {
    const asked = await taskOf(server, 'dangle');
    expect(asked.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const reply = await post(server, rpcBody('SendMessage', { message: { ...message('here', { taskId: asked.id }), parts: [{ raw: Buffer.from('planted').toString('base64'), filename: 'reply.txt' }] } }));
    const task = (reply.body as { result: { task: { status: { state: string; message?: { parts: { text: string }[] } } } } }).result.task;
    // The link's name counts as taken: the file is saved beside it, the task goes on, and
    // nothing is written through the link.
    expect(JSON.stringify(task).includes('planted')).toBe(false);
    expect(JSON.stringify(task)).not.toContain('EEXIST');
    expect(readdirSync(server.outside)).toEqual(['secret.txt']);
  });

  it('two files with one name are both kept', async () => {
    const part = { raw: Buffer.from('contents').toString('base64'), filename: '../same.txt' };
    const reply = await post(server, rpcBody('SendMessage', { message: { ...message('two'), parts: [part, part] } }));
    const id = (reply.body as { result: { task: { id: string } } }).result.task.id;
    expect(readdirSync(join(server.work, id)).sort()).toEqual(['same-1.txt', 'same.txt']);
  });
});

describe('files the program names in its result', () => {
  const failedWith = (reason: string) => ({ state: 'TASK_STATE_FAILED', reason, artifacts: 0 });
  const rows: [string, string, (s: Server) => string][] = [
    ['a link in the task folder that leads out', 'link-out', () => 'the result names "leak.txt", which lies outside the task folder'],
    ['a file reached through a linked folder', 'link-folder', () => 'the result names "up/secret.txt", which lies outside the task folder'],
    ['an absolute path', 'absolute-path', (s) => `the result names "${s.outside}/secret.txt", which lies outside the task folder`],
    ['a path that climbs out', 'climb-out', () => 'the result names "../../outside/secret.txt", which lies outside the task folder'],
  ];
  it.each(rows)('%s: refused, and the task fails with the reason', async (_name, words, reason) => {
    const reply = await post(server, rpcBody('SendMessage', { message: message(words) }));
    const task = (reply.body as { result: { task: { status: { state: string; message: { parts: { text: string }[] } }; artifacts?: unknown[] } } }).result.task;
    expect({ state: task.status.state, reason: task.status.message.parts[0]?.text, artifacts: task.artifacts?.length ?? 0 }).toEqual(failedWith(reason(server)));
    expect(JSON.stringify(reply.body)).not.toContain(Buffer.from(SECRET).toString('base64'));
  });
});

describe('webhooks (SSRF)', () => {
  // Link-local addresses (where cloud metadata services answer), unspecified and multicast ones
  // are refused whatever the operator allows.
  const never = /link-local|unspecified|multicast/;
  const refused = (where: string, reason: string) =>
    rpcError(-32602, `webhooks may not go to ${where}: it is a ${reason} address; ${never.test(reason) ? 'no setting allows it' : 'an operator can allow private networks with --allow-private-webhooks'}`);
  // [url, the answer to a config made with it]
  const rows: [string, Reply][] = [
    ['http://127.0.0.1:9/hook', refused('"127.0.0.1"', 'loopback')],
    ['http://127.1/', refused('"127.0.0.1"', 'loopback')],
    ['http://2130706433/', refused('"127.0.0.1"', 'loopback')],
    ['http://0x7f.0.0.1/', refused('"127.0.0.1"', 'loopback')],
    ['http://10.0.0.8/', refused('"10.0.0.8"', 'private')],
    ['http://172.16.5.4/', refused('"172.16.5.4"', 'private')],
    ['http://172.31.255.255/', refused('"172.31.255.255"', 'private')],
    ['http://192.168.1.1/', refused('"192.168.1.1"', 'private')],
    ['http://169.254.169.254/latest/meta-data/', refused('"169.254.169.254"', 'link-local')],
    ['http://100.64.0.1/', refused('"100.64.0.1"', 'carrier-grade NAT')],
    ['http://100.127.255.254/', refused('"100.127.255.254"', 'carrier-grade NAT')],
    ['http://[::1]/', refused('"::1"', 'loopback')],
    ['http://[::ffff:127.0.0.1]/', refused('"::ffff:7f00:1"', 'IPv4-mapped loopback')],
    ['http://[::ffff:10.0.0.1]/', refused('"::ffff:a00:1"', 'IPv4-mapped private')],
    ['http://[::ffff:169.254.169.254]/', refused('"::ffff:a9fe:a9fe"', 'IPv4-mapped link-local')],
    ['http://[fe80::1]/', refused('"fe80::1"', 'link-local')],
    ['http://[fd00::1]/', refused('"fd00::1"', 'unique local (private)')],
    ['http://localhost:8080/', refused('"localhost"', 'loopback')],
    ['http://api.localhost./', refused('"api.localhost." (localhost)', 'loopback')],
    ['http://internal.example.test/', refused('"internal.example.test" (10.1.2.3)', 'private')],
    ['http://metadata.example.test/', refused('"metadata.example.test" (169.254.169.254)', 'link-local')],
    ['http://mapped.example.test/', refused('"mapped.example.test" (::ffff:192.168.0.1)', 'IPv4-mapped private')],
    ['http://v6-loopback.example.test/', refused('"v6-loopback.example.test" (::1)', 'loopback')],
    ['http://mixed.example.test/', refused('"mixed.example.test" (127.0.0.1)', 'loopback')],
    ['http://0.0.0.0/', refused('"0.0.0.0"', 'unspecified')],
    ['http://224.0.0.1/', refused('"224.0.0.1"', 'multicast')],
    ['file:///etc/passwd', rpcError(-32602, 'params.url must be an http or https URL', { field: 'params.url' })],
    ['http://user:pass@example.com/', rpcError(-32602, 'params.url must not carry a user name or password; put credentials in authentication', { field: 'params.url' })],
    ['http://nowhere.example.test/', rpcError(-32602, 'the host "nowhere.example.test" does not resolve (ENOTFOUND)', { reason: 'INVALID_PARAMS' })],
  ];
  let taskId: string;
  beforeAll(async () => {
    taskId = (await taskOf(server, 'hello')).id;
  });

  it.each(rows)('a config for %s', async (url, expected) => {
    expect(await post(server, rpcBody('CreateTaskPushNotificationConfig', { taskId, url }))).toEqual(expected);
  });

  it.each([
    ['over REST', (s: Server) => request(s, { path: `/tasks/${taskId}/pushNotificationConfigs`, headers: { ...V1, ...ALICE }, body: JSON.stringify({ url: 'http://10.0.0.8/' }) })],
    ['over 0.3', (s: Server) => post(s, rpcBody('tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig: { url: 'http://10.0.0.8/' } }), V03)],
  ])('a private webhook %s', async (how, send) => {
    const message = 'webhooks may not go to "10.0.0.8": it is a private address; an operator can allow private networks with --allow-private-webhooks';
    const expected = how === 'over REST' ? restError(400, 'INVALID_ARGUMENT', message) : rpcError(-32602, message);
    expect(await send(server)).toEqual(expected);
  });

  it('a private webhook sent with the message: refused before any task exists', async () => {
    const count = async () => ((await post(server, rpcBody('ListTasks', {}))).body as { result: { totalSize: number } }).result.totalSize;
    const before = await count();
    const reply = await post(server, rpcBody('SendMessage', { message: message('hello'), configuration: { taskPushNotificationConfig: { url: 'http://internal.example.test/' } } }));
    expect(reply).toEqual(refused('"internal.example.test" (10.1.2.3)', 'private'));
    expect(await count()).toBe(before);
  });
});

describe('webhooks that redirect', () => {
  // A server that allows private webhooks, so that the redirect itself is what is tested.
  let lenient: Server;
  beforeAll(async () => {
    lenient = await startServer({ allowPrivateWebhooks: true });
  });
  afterAll(async () => {
    await lenient.close();
  });

  it.each([301, 302, 303, 307, 308])('a webhook answering %i is not followed, nor tried again', async (status) => {
    const target = await startWebhook();
    const hook = await startWebhook(() => ({ status, location: `${target.url}?from=${status}` }));
    const reply = await post(lenient, rpcBody('SendMessage', { message: message('hello'), configuration: { taskPushNotificationConfig: { url: hook.url } } }));
    const id = (reply.body as { result: { task: { id: string; status: { state: string } } } }).result.task.id;
    const gaveUp = () => lenient.logs.filter((line) => line.includes(id) && line.includes('gave up'));
    await eventually(() => expect(hook.requests.some((r) => JSON.stringify(r.json).includes('TASK_STATE_COMPLETED'))).toBe(true));
    await eventually(() => expect(gaveUp()).toHaveLength(hook.requests.length));
    expect({
      posts: hook.requests.length > 0,
      distinct: new Set(hook.requests.map((r) => r.body)).size === hook.requests.length,
      followed: target.requests.length,
      reasons: [...new Set(gaveUp().map((line) => line.replace(/^.*?: gave up/, 'gave up')))],
    }).toEqual({
      posts: true,
      distinct: true,
      followed: 0,
      reasons: [`gave up on a notification after 1 attempt: HTTP ${status}: redirects are not followed`],
    });
  });
});
