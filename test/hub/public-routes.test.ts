// What the hub serves without a credential is decided once: a request gets the same answer
// over a socket (where the check before the body answers from the head) and from the handler
// called in process. A route is public only for GET and HEAD; any other method needs a token.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHubHandler, hubUpgrades } from '../../src/hub/hub-handler.js';
import { MemoryHubStore } from '../../src/hub/hub-store.js';
import { Hub } from '../../src/hub/hub.js';
import { listen } from '../../src/net/node-http.js';
import type { HttpHandler } from '../../src/net/http-types.js';

const TOKEN = 'public-routes-token-5e1a';
let url = '';
let hub: Hub;
let handler: HttpHandler;
let server: Awaited<ReturnType<typeof listen>>;

beforeAll(async () => {
  hub = new Hub({ store: new MemoryHubStore(), baseUrl: () => url, allowPrivate: true, checkMs: 0, graceMs: 0 });
  handler = createHubHandler(hub, { console: true, auth: { bearerTokens: [{ principal: 'ana', secret: TOKEN }] } });
  const limits = { maxBodyBytes: 1 << 20, maxStreamBacklogBytes: 1 << 20, requestTimeout: 5_000 };
  server = await listen(handler, { port: 0, ...limits, upgrades: hubUpgrades(handler, limits) });
  url = server.url;
});

afterAll(async () => {
  hub.close();
  await server.close();
});

/** The status of `method path` sent over a socket. */
function overSocket(method: string, path: string, headers: Record<string, string>): Promise<number> {
  const target = new URL(path, url);
  return new Promise((resolve, reject) => {
    const sent = request(target, { method, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    sent.on('error', reject);
    sent.end(method === 'GET' || method === 'HEAD' ? undefined : '{}');
  });
}

/** The status of `method path` given to the handler in process. */
async function inProcess(method: string, path: string, headers: Record<string, string>): Promise<number> {
  const response = await handler({ method, path, query: new URLSearchParams(), headers: { 'content-type': 'application/json', ...headers }, body: method === 'GET' || method === 'HEAD' ? '' : '{}', remoteAddress: '127.0.0.1' });
  return response.status;
}

const bearer = { authorization: `Bearer ${TOKEN}` };
const CASES: [method: string, path: string, headers: Record<string, string>, status: number][] = [
  ['GET', '/console/', {}, 200],
  ['HEAD', '/console/', {}, 200],
  ['POST', '/console/', {}, 401],
  ['PUT', '/console', {}, 401],
  ['DELETE', '/console/app.js', {}, 401],
  ['POST', '/console/', bearer, 405],
  ['GET', '/.well-known/ai-catalog.json', {}, 200],
  ['POST', '/.well-known/ai-catalog.json', {}, 401],
  ['POST', '/agents/nobody/.well-known/agent-card.json', {}, 401],
  ['GET', '/agents/nobody/.well-known/agent-card.json', {}, 404],
  ['GET', '/hub/v1/agents', {}, 401],
  ['GET', '/hub/v1/agents', bearer, 200],
];

describe('the hub’s public routes', () => {
  it.each(CASES)('%s %s (%o) is answered %i, over a socket and in process alike', async (method, path, headers, status) => {
    expect(await overSocket(method, path, headers)).toBe(status);
    expect(await inProcess(method, path, headers)).toBe(status);
  });
});
