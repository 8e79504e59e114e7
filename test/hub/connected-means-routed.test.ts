// An agent that dials a hub is "connected" (its `ready()` resolves, `serve --hub` says so) only
// once the hub sends its requests to it: after the hub has read and registered its card through
// the new connection, not at the hub's first frame. A caller who sends at once gets the agent,
// never a "no such agent" in between, over a WebSocket and over an event stream alike.
import { afterEach, describe, expect, it } from 'vitest';
import { createA2AHandler } from '../../src/a2a/server/handler.js';
import { jiajiaCard } from '../../src/card/examples.js';
import { connectToHub } from '../../src/hub/connector.js';
import type { HttpHandler } from '../../src/net/http-types.js';
import { createAgent } from '../../src/runtime/agent.js';
import { MemoryTaskStore } from '../../src/store/task-store.js';
import { closeOpened, open, send, startHub, TOKEN } from './link-peers.js';

afterEach(closeOpened);

/** An echo agent whose card takes `cardMs` to come, as a busy agent's might. */
function slowCardAgent(hubUrl: string, id: string, cardMs: number) {
  const agent = createAgent({ card: jiajiaCard(), store: new MemoryTaskStore(), onTask: (task) => `echo: ${task.text}` });
  let base = '';
  const served = createA2AHandler({ agent, baseUrl: () => base });
  const handler: HttpHandler = async (request) => {
    if (request.path.startsWith('/.well-known/')) await new Promise((resolve) => setTimeout(resolve, cardMs));
    return served(request);
  };
  const connection = connectToHub({ hubUrl, agentId: id, token: TOKEN, handler, onBaseUrl: (url) => (base = url), minBackoffMs: 20, maxBackoffMs: 200 });
  open.push(connection);
  return connection;
}

describe('a connected agent', () => {
  it.each([true, false])('is reachable through the hub as soon as it says it is connected (WebSocket: %s)', async (upgrades) => {
    const { url } = await startHub({ upgrades });
    const connection = slowCardAgent(url, 'slow-card', 300);
    await connection.ready();
    expect(connection.connected).toBe(true);
    expect(await send(`${url}/agents/slow-card/jsonrpc`, 'right away')).toBe('echo: right away');
  });

  it('is reachable as soon as it says it is connected again, after it left', async () => {
    const { url } = await startHub();
    const first = slowCardAgent(url, 'back', 50);
    await first.ready();
    first.close();
    const again = slowCardAgent(url, 'back', 300);
    await again.ready();
    expect(await send(`${url}/agents/back/jsonrpc`, 'again')).toBe('echo: again');
  });
});
