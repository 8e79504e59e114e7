// Our client and the cards of an a2a-lite server over real HTTP: it reads the strict 1.0 card and
// the hybrid alike, asks for the extended card over each binding with a token, and `discover
// --extended` caches the extended card.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2AHandler, type A2AHandlerOptions } from '../../src/a2a/server/handler.js';
import { jiajiaCard } from '../../src/card/examples.js';
import { fetchAgentCard } from '../../src/client/discover.js';
import { fetchExtendedCard } from '../../src/client/extended-card.js';
import { readRemoteCard, type RemoteCard } from '../../src/client/remote-card.js';
import { listen, type Listening } from '../../src/net/node-http.js';
import { createAgent } from '../../src/runtime/agent.js';
import { cliAsync } from '../cli/run-cli.js';
import { tempHome } from '../fixtures/home.js';

const TOKEN = 'client-token-for-the-extended-card';
const EXTRA = { skills: [{ id: 'audit', name: 'Audit', description: 'Audits a ledger', tags: ['finance'] }] };
const servers: Listening[] = [];

async function serve(options: Partial<A2AHandlerOptions> = {}): Promise<string> {
  let url = '';
  const agent = createAgent({ card: jiajiaCard(), onTask: (task) => `echo: ${task.text}` });
  const server = await listen(createA2AHandler({ agent, baseUrl: () => url, auth: { bearerTokens: [TOKEN] }, ...options }), { host: '127.0.0.1', port: 0 });
  servers.push(server);
  url = server.url;
  return url;
}

let url: string;
let plain: string;
beforeAll(async () => {
  url = await serve({ extendedCard: EXTRA });
  plain = await serve();
});
afterAll(async () => {
  for (const server of servers) await server.close();
});

describe('reading both shapes of our card', () => {
  it('finds the same interfaces, skills and offer of an extended card in the 1.0 card and the hybrid', async () => {
    const read = async (headers: Record<string, string>, path = '/.well-known/agent-card.json') => readRemoteCard(await (await fetch(`${url}${path}`, { headers })).json(), `${url}${path}`);
    const v1 = await read({});
    for (const other of [await read({ 'A2A-Version': '0.3' }), await read({}, '/.well-known/agent.json')]) {
      expect(other.interfaces).toEqual(v1.interfaces);
      expect(other.skills).toEqual(v1.skills);
      expect(other.extendedCard).toBe(true);
    }
    expect(v1.interfaces.map((i) => `${i.binding} ${i.version}`)).toEqual(['JSONRPC 1.0', 'HTTP+JSON 1.0', 'JSONRPC 0.3']);
    expect(v1.extendedCard).toBe(true);
    expect((await fetchAgentCard(plain)).card.extendedCard).toBeUndefined();
  });
});

describe('fetchExtendedCard', () => {
  const over = async (index: number): Promise<RemoteCard> => {
    const { card } = await fetchAgentCard(url);
    return { ...card, interfaces: [card.interfaces[index]!] };
  };

  it.each([
    ['JSON-RPC 1.0', 0],
    ['HTTP+JSON 1.0', 1],
    ['JSON-RPC 0.3', 2],
  ])('asks over %s and reads the card it gets', async (_name, index) => {
    const extended = await fetchExtendedCard(await over(index), { token: TOKEN });
    expect(extended.skills.map((skill) => skill.id)).toEqual(['research', 'podcast-script', 'audit']);
  });

  it('is refused with a wrong token: AUTH_REQUIRED', async () => {
    await expect(fetchExtendedCard(await over(0), { token: 'wrong-token' })).rejects.toMatchObject({ code: 'AUTH_REQUIRED' });
  });

  it.each([
    ['JSON-RPC 1.0', 0],
    ['HTTP+JSON 1.0', 1],
  ])('reports the agent’s UnsupportedOperation over %s, when it has none, in its words', async (_name, index) => {
    const { card } = await fetchAgentCard(plain);
    await expect(fetchExtendedCard({ ...card, interfaces: [card.interfaces[index]!] }, { token: TOKEN })).rejects.toMatchObject({ code: 'PEER_ERROR', message: expect.stringContaining('this agent has no extended card') });
  });
});

describe('a2a-lite discover --extended', () => {
  it('caches the extended card, with the token from the variable named', async () => {
    const home = tempHome('discover-extended');
    const result = await cliAsync(['discover', url, '--token-env', 'EXT_TOKEN', '--extended', '--json'], { home, env: { EXT_TOKEN: TOKEN } });
    expect(result.code, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout) as { extended: boolean; card: { skills: { id: string }[] } };
    expect(out.extended).toBe(true);
    expect(out.card.skills.map((skill) => skill.id)).toContain('audit');
    expect(result.stdout).not.toContain(TOKEN);
  });

  it('caches the public card, saying so, when the agent offers none', async () => {
    const home = tempHome('discover-extended');
    const result = await cliAsync(['discover', plain, '--token-env', 'EXT_TOKEN', '--extended', '--json'], { home, env: { EXT_TOKEN: TOKEN } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('the agent offers no extended card; caching its public card');
    expect((JSON.parse(result.stdout) as { extended: boolean }).extended).toBe(false);
  });

  it.each([
    ['without --token-env', ['--extended'], {}, 'discover: --extended needs --token-env NAME'],
    ['with the variable unset', ['--token-env', 'EXT_UNSET', '--extended'], {}, 'the environment variable EXT_UNSET (named by --token-env) is not set'],
    ['with a wrong token', ['--token-env', 'EXT_TOKEN', '--extended'], { EXT_TOKEN: 'wrong-token' }, 'refused the credential (HTTP 401)'],
  ])('refuses %s', async (_name, flags, env, message) => {
    const result = await cliAsync(['discover', url, ...flags], { home: tempHome('discover-extended'), env });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(message);
  });
});

describe('fetchExtendedCard against an agent that answers wrongly', () => {
  // [what it answers, the body of its 200 answer, the error code we expect]
  const answers: [string, string, string][] = [
    ['no JSON', 'not json at all', 'PEER_ERROR'],
    ['a result that is no card', JSON.stringify({ jsonrpc: '2.0', id: 1, result: 'a card' }), 'INVALID_CARD'],
    ['a card without interfaces', JSON.stringify({ jsonrpc: '2.0', id: 1, result: { name: 'x', skills: [] } }), 'INVALID_CARD'],
    ['an answer to another request', JSON.stringify({ jsonrpc: '2.0', id: 99, result: {} }), 'PEER_ERROR'],
    ['JSON nested too deep', `${'['.repeat(5000)}${']'.repeat(5000)}`, 'PEER_ERROR'],
    ['a JSON-RPC error without a message', JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32007 } }), 'PEER_ERROR'],
  ];
  it.each(answers)('%s', async (_name, body, code) => {
    const server = await listen(async () => ({ status: 200, headers: { 'content-type': 'application/json' }, body }), { host: '127.0.0.1', port: 0 });
    servers.push(server);
    const target = { url: `${server.url}/jsonrpc`, binding: 'JSONRPC' as const, version: '1.0' as const };
    const card: RemoteCard = { cardUrl: `${server.url}/.well-known/agent-card.json`, name: 'x', description: '', interfaces: [target], streaming: false, pushNotifications: false, security: { bearer: true, other: [] }, skills: [], defaultInputModes: [], defaultOutputModes: [], unsupported: [], extendedCard: true };
    await expect(fetchExtendedCard(card, { token: TOKEN })).rejects.toMatchObject({ code });
  });
});
