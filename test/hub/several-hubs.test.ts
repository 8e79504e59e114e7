// An agent given several hubs (`serve --hub A,B`): it takes the first that answers, and when
// that hub dies it dials the next at once, not after the pause it keeps for a hub that fails
// again and again. Real hubs on 127.0.0.1 in this process, a real agent dialled out to them.
import { afterEach, describe, expect, it } from 'vitest';
import { createA2AHandler } from '../../src/a2a/server/handler.js';
import { jiajiaCard } from '../../src/card/examples.js';
import { connectToHub, type HubConnection } from '../../src/hub/connector.js';
import { createHubHandler, hubUpgrades } from '../../src/hub/hub-handler.js';
import { MemoryHubStore } from '../../src/hub/hub-store.js';
import { Hub } from '../../src/hub/hub.js';
import { listen, type Listening } from '../../src/net/node-http.js';
import { createAgent } from '../../src/runtime/agent.js';
import { MemoryTaskStore } from '../../src/store/task-store.js';
import { freePort, healthOf, startAgent, startHub as startHubProcess, until } from './hub-processes.js';

const open: { close(): unknown }[] = [];
afterEach(async () => {
  // Some were closed by the test already: a hub that died.
  for (const thing of open.splice(0).reverse()) await (async () => thing.close())().catch(() => undefined);
});

const limits = { maxBodyBytes: 1 << 20, maxStreamBacklogBytes: 1 << 22, requestTimeout: 5_000 };

async function startHub(): Promise<{ url: string; hub: Hub; server: Listening }> {
  let url = '';
  const hub = new Hub({ store: new MemoryHubStore(), baseUrl: () => url, allowPrivate: true, checkMs: 0, graceMs: 0 });
  const handler = createHubHandler(hub);
  const server = await listen(handler, { port: 0, ...limits, upgrades: hubUpgrades(handler, limits) });
  url = server.url;
  open.push(server, hub);
  return { url, hub, server };
}

/** An echo agent dialled out to `hubs`, whose pause between failed rounds is far longer than any test. */
function echoAgent(hubs: string[], lines: string[]): HubConnection {
  const agent = createAgent({ card: jiajiaCard(), store: new MemoryTaskStore(), onTask: (task) => `echo: ${task.text}` });
  let base = '';
  const connection = connectToHub({ hubUrl: hubs, agentId: 'echo', handler: createA2AHandler({ agent, baseUrl: () => base }), onBaseUrl: (url) => (base = url), minBackoffMs: 600_000, maxBackoffMs: 600_000, log: (line) => lines.push(line) });
  open.push(connection);
  return connection;
}

async function send(url: string, text: string): Promise<string> {
  const response = await fetch(`${url}/agents/echo/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] } } }),
  });
  const body = (await response.json()) as { result?: { task?: { artifacts?: { parts: { text: string }[] }[] } } };
  return body.result?.task?.artifacts?.[0]?.parts[0]?.text ?? JSON.stringify(body);
}

/** Waits until the hub at `url` has the agent registered and up: its hello comes a little before that. */
const upAt = (url: string): Promise<true> => until(async () => ((await healthOf(url, 'echo'))?.up === true ? true : undefined), 10_000, `the agent to be up at ${url}`);

/** A URL where nothing listens: a hub that was closed. */
async function deadHub(): Promise<string> {
  const { url, hub, server } = await startHub();
  hub.close();
  await server.close();
  return url;
}

describe('an agent given several hubs', () => {
  it('passes over a hub that does not answer to the next, without a pause', async () => {
    const dead = await deadHub();
    const alive = await startHub();
    const lines: string[] = [];
    const connection = echoAgent([dead, alive.url], lines);
    await connection.ready();
    expect(connection.hubUrl).toBe(alive.url);
    expect(lines[0]).toContain(`cannot reach the hub ${dead}`);
    expect(lines[0]).toContain(`trying ${alive.url}`);
    await upAt(alive.url);
    expect(await send(alive.url, 'one')).toBe('echo: one');
  });

  it('dials the next hub at once when the one it is connected to dies, and is reached there', async () => {
    const first = await startHub();
    const second = await startHub();
    const lines: string[] = [];
    const connection = echoAgent([first.url, second.url], lines);
    await connection.ready();
    expect(connection.hubUrl).toBe(first.url);
    await upAt(first.url);
    expect(await send(first.url, 'before')).toBe('echo: before');
    first.hub.close();
    await first.server.close();
    // Up again at the second hub long before the 10-minute pause a failed round would cost.
    await until(() => (connection.connected && connection.hubUrl === second.url ? true : undefined), 10_000, 'the agent to dial the second hub');
    await upAt(second.url);
    expect(await send(second.url, 'after')).toBe('echo: after');
    expect(lines.some((line) => line.startsWith(`lost the hub ${first.url}: `) && line.endsWith(`; dialling ${second.url}`))).toBe(true);
  });

  it('still pauses between rounds when every hub fails', async () => {
    const lines: string[] = [];
    const hubs = [await deadHub(), await deadHub()];
    const connection = echoAgent(hubs, lines);
    await until(() => (lines.length >= 2 ? true : undefined), 10_000, 'both hubs to be tried');
    // One round: each hub once, then the long pause; no third attempt meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(lines).toHaveLength(2);
    expect(connection.connected).toBe(false);
  });
});

describe('serve --hub A,B', () => {
  it('connects to the first hub that answers and says which', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const hub = await startHubProcess();
    const agent = await startAgent(`${dead},${hub.url}`, 'echo');
    try {
      expect(agent.info.hub).toBe(hub.url);
      expect(agent.stderr()).toContain(`cannot reach the hub ${dead}`);
      await upAt(hub.url);
      expect(await send(hub.url, 'echo second')).toBe('echo: second');
    } finally {
      agent.child.kill('SIGKILL');
      hub.child.kill('SIGKILL');
    }
  }, 60_000);
});
