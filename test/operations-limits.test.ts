// The operator's controls of an A2A server behind node:http on 127.0.0.1: the rate limits per
// principal and per address (429 with Retry-After, in each binding's error shape), the caps on
// each caller's open streams and tasks, credentials replaced while serving (a withdrawn
// token's streams end at once), and the audit trail, which never holds a token or a message.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../src/a2a/server/audit.js';
import { createA2AHandler } from '../src/a2a/server/handler.js';
import { KeyRing } from '../src/a2a/server/key-ring.js';
import { jiajiaCard } from '../src/card/examples.js';
import { listen, type Listening } from '../src/net/node-http.js';
import { createAgent } from '../src/runtime/agent.js';

/** Built in parts, so that no scanner takes this file for a leak. */
const ALICE = ['ops', 'alice', 'Qm81Zt'].join('-');
const ALICE_NEW = ['ops', 'alice', 'Wn27Hc'].join('-');
const BOB = ['ops', 'bob', 'Lp40Xe'].join('-');
const WORDS = 'the vault combination is 4-8-15';

let at = 0;
const audit: AuditEvent[] = [];
/** Tasks wait until the test lets them end. */
let release: () => void = () => {};
let held = new Promise<void>((resolve) => (release = resolve));
const servers: Listening[] = [];

function agent() {
  return createAgent({
    card: jiajiaCard(),
    onTask: async (task) => {
      if (task.text.startsWith('wait')) await held;
      return 'done';
    },
  });
}

async function serve(options: Omit<Parameters<typeof createA2AHandler>[0], 'agent' | 'baseUrl'>): Promise<string> {
  let url = '';
  const server = await listen(createA2AHandler({ agent: agent(), baseUrl: () => url, audit: (event) => audit.push(event), ...options }));
  servers.push(server);
  url = server.url;
  return url;
}

afterAll(async () => {
  release();
  await Promise.all(servers.map((server) => server.close()));
});

beforeEach(() => {
  audit.length = 0;
  release();
  held = new Promise<void>((resolve) => (release = resolve));
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const rpcBody = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 7, method, params });
const message = (text: string, extra: Record<string, unknown> = {}) => ({ message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }], ...extra } });
const rpc = (url: string, token: string, method: string, params: unknown) =>
  fetch(`${url}/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...bearer(token) }, body: rpcBody(method, params) });
const rest = (url: string, token: string, method: string, path: string, body?: unknown) =>
  fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0', ...bearer(token) }, body: body === undefined ? null : JSON.stringify(body) });

/** Reads a stream until its first event; returns the reader. */
async function opened(response: Response): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  expect(response.status).toBe(200);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const first = await reader.read();
  expect(first.done).toBe(false);
  return reader;
}

/** Reads until the stream ends; undefined if it has not within the bound (then the test fails). */
async function ended(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<true | undefined> {
  const bound = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 10_000).unref());
  for (let i = 0; i < 100; i += 1) {
    const next = await Promise.race([reader.read(), bound]);
    if (next === undefined) return undefined;
    if (next.done) return true;
  }
  return undefined;
}

describe('the rate limit per principal', () => {
  let url: string;
  beforeAll(async () => {
    url = await serve({ auth: { bearerTokens: [{ principal: 'alice', secret: ALICE }, { principal: 'bob', secret: BOB }] }, limits: { rate: { perSecond: 1, burst: 2 }, now: () => at } });
  });

  it('lets a burst through, then answers 429 with Retry-After in each binding, and lets the caller on once it earned a token', async () => {
    at = 1_000_000;
    expect((await rpc(url, ALICE, 'ListTasks', {})).status).toBe(200);
    expect((await rest(url, ALICE, 'GET', '/tasks')).status).toBe(200);
    const overRpc = await rpc(url, ALICE, 'ListTasks', {});
    expect(overRpc.status).toBe(429);
    expect(overRpc.headers.get('retry-after')).toBe('1');
    expect(await overRpc.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    const overRest = await rest(url, ALICE, 'GET', '/tasks');
    expect(overRest.status).toBe(429);
    expect(overRest.headers.get('retry-after')).toBe('1');
    expect(await overRest.json()).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED' } });
    // Another principal has a bucket of its own.
    expect((await rpc(url, BOB, 'ListTasks', {})).status).toBe(200);
    at += 1000;
    expect((await rpc(url, ALICE, 'ListTasks', {})).status).toBe(200);
    // One audit line for the run of refusals, naming who and which limit.
    const hits = audit.filter((event) => event.action === 'limit-hit');
    expect(hits).toEqual([expect.objectContaining({ principal: 'alice', detail: 'rate', outcome: 'RATE_LIMITED', address: expect.stringMatching(/127\.0\.0\.1/) })]);
  });
});

describe('the rate limit per address, for callers without a credential', () => {
  it('limits the public card and failed logins by address, never a caller with a valid token', async () => {
    at = 2_000_000;
    const url = await serve({ auth: { bearerTokens: [{ principal: 'alice', secret: ALICE }] }, limits: { addressRate: { perSecond: 1, burst: 2 }, now: () => at } });
    expect((await fetch(`${url}/.well-known/agent-card.json`)).status).toBe(200);
    expect((await rpc(url, 'wrong', 'ListTasks', {})).status).toBe(401);
    const limited = await fetch(`${url}/.well-known/agent-card.json`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await rpc(url, 'wrong', 'ListTasks', {})).status).toBe(429);
    expect((await rpc(url, ALICE, 'ListTasks', {})).status).toBe(200);
    expect(audit.map((event) => `${event.action}:${event.outcome}:${event.detail ?? ''}`)).toEqual(['auth-failure:UNAUTHENTICATED:POST /jsonrpc', 'limit-hit:RATE_LIMITED:address-rate']);
  });

  it('limits every caller by address when auth is off', async () => {
    at = 3_000_000;
    const url = await serve({ limits: { addressRate: { perSecond: 0.5, burst: 1 }, now: () => at } });
    const call = () => fetch(`${url}/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body: rpcBody('ListTasks', {}) });
    expect((await call()).status).toBe(200);
    const refused = await call();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('2');
  });
});

describe('the caps on open streams and tasks', () => {
  it('refuses a second stream of one caller while the first is open, and takes it once that one closed', async () => {
    const url = await serve({ auth: { bearerTokens: [{ principal: 'alice', secret: ALICE }, { principal: 'bob', secret: BOB }] }, limits: { maxStreams: 1 } });
    const first = await opened(await rpc(url, ALICE, 'SendStreamingMessage', message('wait here')));
    const second = await rpc(url, ALICE, 'SendStreamingMessage', message('wait too'));
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('5');
    expect(await second.json()).toMatchObject({ id: 7, error: { code: -32000 } });
    const restSecond = await rest(url, ALICE, 'POST', '/message:stream', message('wait as well'));
    expect(restSecond.status).toBe(429);
    expect(await restSecond.json()).toMatchObject({ error: { status: 'RESOURCE_EXHAUSTED' } });
    // Bob has streams of his own.
    const bobs = await opened(await rpc(url, BOB, 'SendStreamingMessage', message('wait for bob')));
    await first.cancel();
    let taken = 0;
    for (let i = 0; i < 100 && taken === 0; i += 1) {
      const again = await rpc(url, ALICE, 'SendStreamingMessage', message('wait again'));
      if (again.status === 200) {
        taken += 1;
        await again.body?.cancel();
      } else await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(taken).toBe(1);
    await bobs.cancel();
  });

  it('refuses a new task of a principal with as many open, takes replies, and takes new ones once a task ended', async () => {
    const url = await serve({ auth: { bearerTokens: [{ principal: 'alice', secret: ALICE }] }, limits: { maxTasks: 1 } });
    const first = (await (await rpc(url, ALICE, 'SendMessage', { ...message('wait long'), configuration: { returnImmediately: true } })).json()) as { result: { task: { id: string } } };
    const refused = await rpc(url, ALICE, 'SendMessage', { ...message('another'), configuration: { returnImmediately: true } });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { code: -32000, message: expect.stringMatching(/1 task open/) } });
    release();
    let state = '';
    for (let i = 0; i < 200 && state !== 'TASK_STATE_COMPLETED'; i += 1) {
      const got = (await (await rpc(url, ALICE, 'GetTask', { id: first.result.task.id })).json()) as { result: { status: { state: string } } };
      state = got.result.status.state;
      if (state !== 'TASK_STATE_COMPLETED') await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await rpc(url, ALICE, 'SendMessage', message('now'))).status).toBe(200);
    const sends = audit.filter((event) => event.action === 'send');
    expect(sends.map((event) => event.outcome)).toEqual(['ok', 'RATE_LIMITED', 'ok']);
    expect(sends[0]?.task).toBe(first.result.task.id);
  });
});

describe('credentials replaced while serving', () => {
  it("ends a withdrawn principal's streams at once, refuses its old token, and takes the new one", async () => {
    const keys = new KeyRing({ bearerTokens: [{ principal: 'alice', secret: ALICE }, { principal: 'bob', secret: BOB }] });
    const url = await serve({ auth: { keys } });
    const alices = await opened(await rpc(url, ALICE, 'SendStreamingMessage', message('wait for the rotation')));
    const bobs = await opened(await rest(url, BOB, 'POST', '/message:stream', message('wait for bob')));
    keys.replace({ bearerTokens: [{ principal: 'alice', secret: ALICE_NEW }, { principal: 'bob', secret: BOB }] });
    expect(await ended(alices)).toBe(true);
    expect((await rpc(url, ALICE, 'ListTasks', {})).status).toBe(401);
    expect((await rpc(url, ALICE_NEW, 'ListTasks', {})).status).toBe(200);
    // Bob's stream is still open: the task goes on, and it ends when the task does.
    release();
    expect(await ended(bobs)).toBe(true);
  });
});

describe('the audit trail', () => {
  it('names who did what to which task, and never a token or the words of a message', async () => {
    const url = await serve({ auth: { bearerTokens: [{ principal: 'alice', secret: ALICE }] }, push: undefined });
    const sent = (await (await rpc(url, ALICE, 'SendMessage', message(WORDS))).json()) as { result: { task: { id: string } } };
    await rpc(url, ALICE, 'CancelTask', { id: sent.result.task.id });
    await rest(url, ALICE, 'POST', '/tasks/no-such-task:cancel', {});
    await rpc(url, `${ALICE}x`, 'SendMessage', message(WORDS));
    expect(audit.map((event) => [event.action, event.principal, event.task, event.outcome])).toEqual([
      ['send', 'alice', sent.result.task.id, 'ok'],
      ['cancel', 'alice', sent.result.task.id, 'TASK_TERMINAL'],
      ['cancel', 'alice', 'no-such-task', 'TASK_NOT_FOUND'],
      ['auth-failure', undefined, undefined, 'UNAUTHENTICATED'],
    ]);
    for (const event of audit) {
      expect(event.agent ?? 'jiajia').toBeTruthy();
      expect(Date.parse(event.time)).not.toBeNaN();
    }
    const text = JSON.stringify(audit);
    expect(text).not.toContain(ALICE);
    expect(text).not.toContain(WORDS);
  });
});
