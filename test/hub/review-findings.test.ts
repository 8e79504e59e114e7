// The ways an outside review got past the hub, each tried against real processes: one caller
// reaching another's task at an agent registered by URL (a trailing slash, a decoy or snake_case
// field, repeated or escaped keys, a second id on the same URL, a hub restart), the loop guard
// skipped, a URL that leads back to the hub, and an agent's HTML or redirect served on the hub's
// origin. Each must be refused as the review expected; each fails without its fix.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HUB_EXTENSION } from '../../src/a2a/wire/hub-trail.js';
import { tempHome } from '../fixtures/home.js';
import { agentHome, BEHAVE, start, startAgent, startHub, until, type Running } from './hub-processes.js';

const ALICE = 'alice-token-5f1c9e2b7d';
const BOB = 'bob-token-8a3d6c0e4f';
const TOKENS = { HUB_ALICE: ALICE, HUB_BOB: BOB };
const HUB_ARGS = ['--token-env', 'HUB_ALICE', '--token-env', 'HUB_BOB'];
const as = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json', 'a2a-version': '1.0' });
const message = (id: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ messageId: id, role: 'ROLE_USER', parts: [{ text: 'echo hi' }], ...extra });

/** A raw POST through the hub, its body sent byte for byte. */
async function post(url: string, token: string, body: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(url, { method: 'POST', headers: as(token), body });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** A hub with two principals and an agent Alice registered by URL; Alice's task and Bob's. */
async function urlAgent(store: string[] = ['--store', 'memory']): Promise<{ hub: Running & { url: string }; agentUrl: string; rpc: string; alices: string; bobs: string }> {
  const hub = await startHub([...store, ...HUB_ARGS], TOKENS);
  const direct = await start(['serve', '--home', agentHome('open'), '--store', 'memory', '--port', '0', '--exec', BEHAVE]);
  const agentUrl = direct.info.url as string;
  expect((await fetch(`${hub.url}/hub/v1/agents`, { method: 'POST', headers: as(ALICE), body: JSON.stringify({ url: agentUrl, id: 'open' }) })).status).toBe(201);
  const rpc = `${hub.url}/agents/open/jsonrpc`;
  const send = async (token: string, id: string): Promise<string> => ((await post(rpc, token, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: message(id) } }))).json.result as { task: { id: string } }).task.id;
  return { hub, agentUrl, rpc, alices: await send(ALICE, 'a1'), bobs: await send(BOB, 'b1') };
}

const refusedAsMissing = (answer: { json: Record<string, unknown> }): void => expect(answer.json).toMatchObject({ error: { code: -32001 } });

describe("one caller never reaches another's task at an agent registered by URL", () => {
  it('whatever the spelling of the request', async () => {
    const { hub, rpc, alices, bobs } = await urlAgent();
    const call = (path: string, body: string): Promise<{ status: number; json: Record<string, unknown> }> => post(`${hub.url}/agents/open${path}`, BOB, body);
    // A trailing slash the agent serves as its endpoint.
    refusedAsMissing(await call('/jsonrpc/', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: alices } })));
    expect((await call('/message:send/', JSON.stringify({ message: message('b2', { taskId: alices }) }))).status).toBe(404);
    // A decoy field beside the one the agent reads.
    refusedAsMissing(await call('/jsonrpc', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { taskId: bobs, id: alices } })));
    refusedAsMissing(await call('/jsonrpc', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'CancelTask', params: { id: alices, taskId: bobs } })));
    // The snake_case spelling the agent reads too.
    refusedAsMissing(await call('/jsonrpc', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: message('b3', { task_id: alices }) } })));
    // Repeated and escaped keys, which readers may take differently.
    refusedAsMissing(await call('/jsonrpc', `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"${bobs}","id":"${alices}"}}`));
    refusedAsMissing(await call('/jsonrpc', `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"\\u0069d":"${alices}"}}`));
    refusedAsMissing(await call('/jsonrpc', `{"jsonrpc":"2.0","id":1,"\\u006dethod":"GetTask","params":{"id":"${alices}"}}`));
    // A list, however it is asked, shows Bob his own only.
    const listed = await fetch(`${hub.url}/agents/open/tasks/`, { headers: as(BOB) });
    expect(((await listed.json()) as { tasks: { id: string }[] }).tasks.map((task) => task.id)).toEqual([bobs]);
    // Alice still reaches hers.
    expect((await post(rpc, ALICE, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: alices } }))).json).toHaveProperty('result.id', alices);
  }, 60_000);

  it('through a second id registered on the same URL', async () => {
    const { hub, agentUrl, alices } = await urlAgent();
    expect((await fetch(`${hub.url}/hub/v1/agents`, { method: 'POST', headers: as(BOB), body: JSON.stringify({ url: agentUrl, id: 'again' }) })).status).toBe(201);
    expect((await fetch(`${hub.url}/agents/again/tasks/${alices}`, { headers: as(BOB) })).status).toBe(404);
    refusedAsMissing(await post(`${hub.url}/agents/again/jsonrpc`, BOB, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: alices } })));
  }, 60_000);

  it('after the hub restarts: the first caller to touch a task does not become its owner', async () => {
    const db = join(tempHome('hub-owners'), 'hub.db');
    const first = await urlAgent(['--store', 'sqlite', '--db', db]);
    first.hub.child.kill('SIGKILL');
    await new Promise((resolve) => first.hub.child.once('exit', resolve));
    const hub = await startHub(['--store', 'sqlite', '--db', db, ...HUB_ARGS], TOKENS);
    const get = (token: string): Promise<{ status: number; json: Record<string, unknown> }> => post(`${hub.url}/agents/open/jsonrpc`, token, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: first.alices } }));
    refusedAsMissing(await get(BOB));
    expect((await get(ALICE)).json).toHaveProperty('result.id', first.alices);
    refusedAsMissing(await get(BOB));
  }, 60_000);
});

describe('the loop guard reads a send as the agent does', () => {
  it('whatever the path, the key order or the spelling of "method"', async () => {
    const hub = await startHub(['--store', 'memory']);
    await startAgent(hub.url, 'echo');
    await until(async () => ((await fetch(`${hub.url}/agents/echo/.well-known/agent-card.json`)).status === 200 ? true : undefined), 10_000, 'the agent up');
    const looped = message('m', { metadata: { [HUB_EXTENSION]: { hops: 1, trail: ['echo'] } } });
    const params = JSON.stringify({ message: looped });
    const bodies: [string, string][] = [
      ['/jsonrpc/', `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":${params}}`],
      ['/jsonrpc', `{"jsonrpc":"2.0","id":1,"params":{"method":"x","message":${JSON.stringify(looped)}},"method":"SendMessage"}`],
      ['/jsonrpc', `{"jsonrpc":"2.0","id":1,"\\u006dethod":"SendMessage","params":${params}}`],
      ['/message:send/', params],
    ];
    for (const [path, body] of bodies) {
      const response = await fetch(`${hub.url}/agents/echo${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body });
      expect(await response.text(), `${path} ${body}`).toContain('loop refused: this conversation already passed through echo');
    }
  }, 60_000);
});

describe('what the hub calls and passes back', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  /** An agent at a URL whose answers are HTML and redirects. */
  async function rogueAgent(): Promise<string> {
    server = createServer((req, res) => {
      const base = `http://127.0.0.1:${(server?.address() as AddressInfo).port}`;
      if (req.url === '/.well-known/agent-card.json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: 'Rogue', skills: [], supportedInterfaces: [{ url: base, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }] }));
      } else if (req.url === '/tasks') {
        res.writeHead(302, { location: 'https://elsewhere.example/' }).end();
      } else {
        res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'a=b' }).end('<script>alert(document.cookie)</script>');
      }
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => server?.once('listening', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it("never serves an agent's HTML on the hub's origin, nor passes on its redirect", async () => {
    const hub = await startHub(['--store', 'memory']);
    expect((await fetch(`${hub.url}/hub/v1/agents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: await rogueAgent(), id: 'rogue' }) })).status).toBe(201);
    const page = await fetch(`${hub.url}/agents/rogue/message:send`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: message('m') }) });
    expect(page.status).toBe(502);
    expect(page.headers.get('content-type')).not.toContain('html');
    expect(page.headers.get('set-cookie')).toBeNull();
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await page.text()).not.toContain('<script>');
    const redirect = await fetch(`${hub.url}/agents/rogue/tasks`, { redirect: 'manual' });
    expect(redirect.status).toBe(502);
    expect(redirect.headers.get('location')).toBeNull();
  }, 60_000);

  it('refuses an agent URL that leads back to the hub, so that no request goes round without end', async () => {
    const hub = await startHub(['--store', 'memory']);
    const direct = await start(['serve', '--home', agentHome('self'), '--store', 'memory', '--port', '0', '--exec', BEHAVE]);
    const register = (url: string): Promise<Response> => fetch(`${hub.url}/hub/v1/agents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url, id: 'self' }) });
    expect((await register(direct.info.url as string)).status).toBe(201);
    // Registered again under the hub's own address for it: its card read comes back to the hub, which refuses it.
    const again = await register(`${hub.url}/agents/self`);
    expect(again.status).toBeGreaterThanOrEqual(400);
    expect(((await again.json()) as { error: { message: string } }).error.message).toContain('came back to this hub (HTTP 508: a loop)');
    // The agent keeps the URL that works, and its card is read once.
    expect((await fetch(`${hub.url}/agents/self/.well-known/agent-card.json`)).status).toBe(200);
  }, 60_000);
});
