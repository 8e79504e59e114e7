// The official SDK clients against an a2a-lite server with an extended card and a bearer token,
// over real HTTP: @a2a-js/sdk 1.3 (JSON-RPC 1.0, HTTP+JSON, and its 0.3 transport) and 0.3.14
// (`a2a-js-sdk-v03`). Then which card each 0.3.14 client finds, with and without cardCompat 0.3.
import { Client, ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { ClientFactory as ClientFactory03, DefaultAgentCardResolver as DefaultAgentCardResolver03, JsonRpcTransportFactory as JsonRpcTransportFactory03 } from 'a2a-js-sdk-v03/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2AHandler, type A2AHandlerOptions } from '../../src/a2a/server/handler.js';
import { jiajiaCard } from '../../src/card/examples.js';
import { createAgent } from '../../src/runtime/agent.js';
import { listen, type Listening } from '../../src/net/node-http.js';

const TOKEN = ['sdk', '-extended-', 'Qw83Lp20'].join('');
const EXTRA = { skills: [{ id: 'audit', name: 'Audit', description: 'Audits a ledger', tags: ['finance'] }] };
const servers: Listening[] = [];

async function serve(options: Partial<A2AHandlerOptions> = {}): Promise<string> {
  let url = '';
  const agent = createAgent({ card: jiajiaCard(), onTask: (task) => `echo: ${task.text}` });
  const server = await listen(createA2AHandler({ agent, baseUrl: () => url, auth: { bearerTokens: [TOKEN] }, extendedCard: EXTRA, ...options }), { host: '127.0.0.1', port: 0 });
  servers.push(server);
  url = server.url;
  return url;
}

/** fetch with the bearer token on every request, the way a caller configures the SDK. */
const authed = (token = TOKEN): typeof fetch => (input, init) => fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), authorization: `Bearer ${token}` } });
const skillIds = (card: { skills?: { id: string }[] }) => (card.skills ?? []).map((skill) => skill.id);

let url: string;
beforeAll(async () => {
  url = await serve();
});
afterAll(async () => {
  for (const server of servers) await server.close();
});

describe('@a2a-js/sdk 1.3 reads the extended card with getAgentCard()', () => {
  it.each([
    ['JSON-RPC 1.0', () => new JsonRpcTransportFactory({ fetchImpl: authed() })],
    ['HTTP+JSON', () => new RestTransportFactory({ fetchImpl: authed() })],
  ])('over %s', async (_name, transport) => {
    const client = await new ClientFactory({ transports: [transport()] }).createFromUrl(url);
    expect(skillIds(await client.getAgentCard())).toEqual(['research', 'podcast-script', 'audit']);
  });

  it('over its 0.3 transport (agent/getAuthenticatedExtendedCard)', async () => {
    const card = await new DefaultAgentCardResolver().resolve(url);
    const client = new Client(new LegacyJsonRpcTransport({ endpoint: `${url}/jsonrpc`, fetchImpl: authed() }), card);
    expect(skillIds(await client.getAgentCard())).toContain('audit');
  });

  it('is refused it without the token', async () => {
    const client = await new ClientFactory({ transports: [new JsonRpcTransportFactory()] }).createFromUrl(url);
    await expect(client.getAgentCard()).rejects.toThrow(/401/);
  });
});

describe('@a2a-js/sdk 0.3.14', () => {
  const factory03 = (fetchForCard?: typeof fetch) =>
    new ClientFactory03({ transports: [new JsonRpcTransportFactory03({ fetchImpl: authed() })], ...(fetchForCard === undefined ? {} : { cardResolver: new DefaultAgentCardResolver03({ fetchImpl: fetchForCard }) }) });
  const saying03: typeof fetch = (input, init) => fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), 'A2A-Version': '0.3' } });

  it('finds no 0.3 interface in the card it gets by default, which is the strict 1.0 card', async () => {
    await expect(factory03().createFromUrl(url)).rejects.toThrow('No compatible transport found');
  });

  it.each([
    ['asking at the older /.well-known/agent.json', (base: string) => factory03().createFromUrl(base, '/.well-known/agent.json')],
    ['saying A2A-Version 0.3 when it fetches the card', (base: string) => factory03(saying03).createFromUrl(base)],
  ])('works %s, and reads the extended card', async (_name, make) => {
    const client = await make(url);
    const task = await client.sendMessage({ message: { kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hi' }] } });
    expect(task).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(skillIds(await client.getAgentCard())).toEqual(['research', 'podcast-script', 'audit']);
  });

  it('works by default against a server with cardCompat 0.3, and reads the extended card', async () => {
    const compat = await serve({ cardCompat: '0.3' });
    const client = await factory03().createFromUrl(compat);
    expect(skillIds(await client.getAgentCard())).toContain('audit');
  });
});
