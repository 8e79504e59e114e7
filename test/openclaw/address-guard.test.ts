// The plugin's address check holds wherever a request goes, not only on the URL the model
// gives: with private networks off (the default), a card's redirect, the interface a card
// names, a known peer's cached address, a cancel and a plan's hub are each checked when the
// request connects. 127.0.0.1 is private, so the "public" agent of these tests is a name
// (agent.example) that the injected resolver sends to 127.0.0.1 and that the guard is told to
// allow there, as an operator's one trusted agent would be; every other hop is judged as it is.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createA2AHandler } from '../../src/a2a/server/handler.js';
import { jiajiaCard } from '../../src/card/examples.js';
import type { HttpHandler } from '../../src/net/http-types.js';
import { listen, type Listening } from '../../src/net/node-http.js';
import { readConfig } from '../../src/openclaw/config.js';
import { makeTool } from '../../src/openclaw/tool-kit.js';
import { toolSet } from '../../src/openclaw/tool-set.js';
import { createAgent } from '../../src/runtime/agent.js';
import { tempHome } from '../fixtures/home.js';
import { call } from './host-recorder.js';

const servers: Listening[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()?.close();
});

/** A server that notes the path of every request it gets. */
async function serve(handler: HttpHandler): Promise<Listening & { hits: string[] }> {
  const hits: string[] = [];
  const server = await listen(async (request) => {
    hits.push(`${request.method} ${request.path}`);
    return handler(request);
  });
  servers.push(server);
  return Object.assign(server, { hits });
}

/** A real A2A agent on 127.0.0.1: it answers at once, or works until cancelled when told "slowly". */
async function privateAgent() {
  let base = '';
  const agent = createAgent({
    card: jiajiaCard(),
    onTask: async (task, ctx) => {
      if (!task.text.includes('slowly')) return `done: ${task.text}`;
      await ctx.status('working', { message: 'started' });
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      return 'stopped';
    },
  });
  const server = await serve(createA2AHandler({ agent, baseUrl: () => base }));
  base = server.url;
  return server;
}

/** The test's network: agent.example and other.example are at 127.0.0.1, and allowed there; no other name resolves. */
const network = {
  resolve: async (name: string) => {
    if (name === 'agent.example' || name === 'other.example') return [{ address: '127.0.0.1', family: 4 as const }];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  },
  allowPrivateHosts: ['agent.example', 'other.example'],
};

/** The plugin's tools for one workspace, private networks as given, names resolved by the test. */
function plugin(workspace: string, allowPrivateNetworks: boolean) {
  return toolSet(readConfig({ allowPrivateNetworks }), workspace, process.env, network).map(makeTool);
}

describe('the plugin with private networks off', () => {
  it('follows a card redirect only where the check allows: to another allowed name, never to 127.0.0.1', async () => {
    const agent = await privateAgent();
    const port = Number(new URL(agent.url).port);
    const front = await serve(async (request) => {
      const to = request.path.startsWith('/loopback') ? `http://127.0.0.1:${port}/.well-known/agent-card.json` : `http://other.example:${port}/.well-known/agent-card.json`;
      return { status: 302, headers: { location: to }, body: '' };
    });
    const tools = plugin(tempHome('workspace'), false);
    const fine = await call(tools, 'a2a_lite_discover', { url: `http://agent.example:${new URL(front.url).port}/allowed/card.json` });
    expect(fine.details).toMatchObject({ ok: true, id: 'jiajia' });
    const seen = agent.hits.length;

    const refused = await call(tools, 'a2a_lite_discover', { url: `http://agent.example:${new URL(front.url).port}/loopback/card.json` });
    expect(refused.text).toMatch(/^a2a-lite: FORBIDDEN: the agent URL is refused: http:\/\/127\.0\.0\.1:\d+ leads to "127\.0\.0\.1", a loopback address/);
    expect(agent.hits.length).toBe(seen);
  });

  it('refuses to send to the 127.0.0.1 interface a card at an allowed name lists', async () => {
    const agent = await privateAgent();
    const card = await (await fetch(`${agent.url}/.well-known/agent-card.json`)).text();
    const front = await serve(async () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: card }));
    const tools = plugin(tempHome('workspace'), false);
    const found = await call(tools, 'a2a_lite_discover', { url: `http://agent.example:${new URL(front.url).port}` });
    expect(found.details).toMatchObject({ ok: true, id: 'jiajia' });

    const sent = await call(tools, 'a2a_lite_send', { target: 'jiajia', text: 'hello', timeoutSeconds: 5 });
    expect(sent.text).toMatch(/^a2a-lite: FORBIDDEN: the agent URL is refused: http:\/\/127\.0\.0\.1:\d+ leads to "127\.0\.0\.1", a loopback address; set allowPrivateNetworks/);
    expect(agent.hits).toEqual(['GET /.well-known/agent-card.json']);
  });

  it('refuses a known peer whose cached address is 127.0.0.1, and a cancel sent there', async () => {
    const agent = await privateAgent();
    const workspace = tempHome('workspace');
    const open = plugin(workspace, true);
    const found = await call(open, 'a2a_lite_discover', { url: agent.url });
    const running = await call(open, 'a2a_lite_send', { target: found.details.id as string, text: 'work slowly', timeoutSeconds: 1 });
    expect(running.details).toMatchObject({ ok: true, state: 'working', timedOut: true });
    const seen = agent.hits.length;

    const strict = plugin(workspace, false);
    const sent = await call(strict, 'a2a_lite_send', { target: 'jiajia', text: 'hello' });
    expect(sent.text).toMatch(/^a2a-lite: FORBIDDEN: .*"127\.0\.0\.1", a loopback address/);
    const cancel = await call(strict, 'a2a_lite_cancel', { id: running.details.task as string });
    expect(cancel.text).toMatch(/^a2a-lite: FORBIDDEN: .*"127\.0\.0\.1", a loopback address/);
    expect(agent.hits.length).toBe(seen);

    // The task goes on at the agent: the open plugin can still cancel it.
    expect((await call(open, 'a2a_lite_cancel', { id: running.details.task as string })).details).toMatchObject({ ok: true, state: 'cancelled' });
  });

  it("refuses a plan's hub on a private address", async () => {
    const hub = await serve(async () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ candidates: [] }) }));
    const workspace = tempHome('workspace');
    writeFileSync(join(workspace, 'plan.yaml'), `hub: ${hub.url}\nsteps:\n  - id: look\n    skill: research\n    text: look into it\n`);
    const ran = await call(plugin(workspace, false), 'a2a_lite_run', { plan: 'plan.yaml' });
    expect(ran.details).toMatchObject({ ok: true, state: 'failed' });
    expect(ran.text).toMatch(/FORBIDDEN: the agent URL is refused: http:\/\/127\.0\.0\.1:\d+ leads to "127\.0\.0\.1", a loopback address/);
    expect(hub.hits).toEqual([]);
  });
});
