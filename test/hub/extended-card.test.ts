// The extended card and the card for clients that say no version, through a hub: real `hub` and
// `serve --hub` processes. The hub relays GetExtendedAgentCard with the caller it authenticated
// (a caller of a hub without tokens is nobody's, and gets 401), points the card at itself, and
// with --card-compat 0.3 asks agents for their 0.3 card when a client says no version.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../cli/run-cli.js';
import { tempHome } from '../fixtures/home.js';
import { agentHome, startAgent, startHub, until } from './hub-processes.js';

type Json = Record<string, unknown>;

const HUB_TOKEN = 'hub-token-for-the-extended-card';
const AGENT_TOKEN = 'agent-token-for-the-extended-card';
const EXTRA = { description: 'For members', skills: [{ id: 'audit', name: 'Audit', description: 'Audits a ledger' }] };

function extendedFile(value: unknown = EXTRA): string {
  const file = join(tempHome('extended-card'), 'extended.json');
  writeFileSync(file, JSON.stringify(value));
  return file;
}

async function rpc(url: string, method: string, token?: string): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method }),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

const cardAt = async (url: string, headers: Record<string, string> = {}): Promise<Json> => (await (await fetch(`${url}/.well-known/agent-card.json`, { headers })).json()) as Json;

describe('through a hub with tokens', () => {
  it('relays the extended card to a caller the hub authenticated, pointed at the hub, and answers 401 to others', async () => {
    const hub = await startHub(['--store', 'memory', '--token-env', 'HUB_ALICE'], { HUB_ALICE: HUB_TOKEN });
    await startAgent(hub.url, 'ledger', { extra: ['--port', 'none', '--hub-token-env', 'HUB_ALICE', '--base-url', 'http://elsewhere.invalid:9', '--extended-card', extendedFile()], env: { HUB_ALICE: HUB_TOKEN } });
    const agentUrl = `${hub.url}/agents/ledger`;
    const card = await until(async () => {
      const response = await fetch(`${agentUrl}/.well-known/agent-card.json`);
      return response.status === 200 ? ((await response.json()) as Json) : undefined;
    }, 15_000, 'the agent to register');
    expect(card.capabilities).toMatchObject({ extendedAgentCard: true });
    expect(card).not.toHaveProperty('url');
    const { body } = await rpc(`${agentUrl}/jsonrpc`, 'GetExtendedAgentCard', HUB_TOKEN);
    const extended = body.result as Json;
    expect(extended.description).toBe('For members');
    expect(extended.skills).toContainEqual(expect.objectContaining({ id: 'audit', tags: ['audit'] }));
    expect(extended.supportedInterfaces).toContainEqual({ url: `${agentUrl}/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
    expect(JSON.stringify(extended)).not.toContain('elsewhere.invalid');
    const rest = await fetch(`${agentUrl}/extendedAgentCard`, { headers: { authorization: `Bearer ${HUB_TOKEN}`, 'a2a-version': '1.0' } });
    expect(((await rest.json()) as Json).supportedInterfaces).toEqual(extended.supportedInterfaces);
    expect((await rpc(`${agentUrl}/jsonrpc`, 'GetExtendedAgentCard')).status).toBe(401);
  });
});

describe('through a hub without tokens', () => {
  it('answers 401: the hub authenticated no one, though the agent takes its callers’ tasks', async () => {
    const hub = await startHub();
    await startAgent(hub.url, 'open-ledger', { extra: ['--port', 'none', '--auth-bearer-env', 'AGENT_ALICE', '--extended-card', extendedFile()], env: { AGENT_ALICE: AGENT_TOKEN } });
    const agentUrl = `${hub.url}/agents/open-ledger`;
    await until(async () => ((await fetch(`${agentUrl}/.well-known/agent-card.json`)).status === 200 ? true : undefined), 15_000, 'the agent to register');
    const { status, body } = await rpc(`${agentUrl}/jsonrpc`, 'GetExtendedAgentCard');
    expect(status).toBe(401);
    expect(JSON.stringify(body)).not.toContain('audit');
  });

  it('gives the hybrid card to clients that say no version with --card-compat 0.3, and the 1.0 card without', async () => {
    const plain = await startHub();
    const compat = await startHub(['--store', 'memory', '--card-compat', '0.3']);
    for (const [hub, id] of [[plain, 'plain-card'], [compat, 'compat-card']] as const) {
      await startAgent(hub.url, id);
      await until(async () => ((await fetch(`${hub.url}/agents/${id}/.well-known/agent-card.json`)).status === 200 ? true : undefined), 15_000, 'the agent to register');
    }
    expect(await cardAt(`${plain.url}/agents/plain-card`)).not.toHaveProperty('url');
    expect(await cardAt(`${compat.url}/agents/compat-card`)).toMatchObject({ url: `${compat.url}/agents/compat-card/jsonrpc`, protocolVersion: '0.3.0' });
    // A client that says its version gets that version's card either way.
    expect(await cardAt(`${compat.url}/agents/compat-card`, { 'a2a-version': '1.0' })).not.toHaveProperty('url');
    expect(await cardAt(`${plain.url}/agents/plain-card`, { 'a2a-version': '0.3' })).toHaveProperty('url');
  });
});

describe('the flags, refused at the start with a clear error', () => {
  it.each([
    ['--extended-card without auth', ['--extended-card', 'x.json'], 'serve: --extended-card needs --auth-bearer-env or --auth-api-key-env (or --hub with --hub-token-env)'],
    ['--extended-card with a field the server sets', ['--auth-bearer-env', 'AGENT_ALICE', '--extended-card', { capabilities: {} }], 'capabilities is set by the server from what it serves'],
    ['--extended-card with a new skill without a name', ['--auth-bearer-env', 'AGENT_ALICE', '--extended-card', { skills: [{ id: 'new' }] }], 'the extended card\'s skill "new" is not on the public card, so it needs a name'],
    ['--extended-card with no such file', ['--auth-bearer-env', 'AGENT_ALICE', '--extended-card', '/nonexistent/extended.json'], 'serve --extended-card: no file /nonexistent/extended.json'],
    ['--card-compat 0.2', ['--card-compat', '0.2'], 'serve: --card-compat: the card compatibility is 1.0 or 0.3, not "0.2"'],
  ] as [string, (string | Json)[], string][])('serve %s', (_name, given, message) => {
    const home = agentHome('flags-agent');
    // An object stands for a file holding it, written now: the table is made before the temporary homes.
    const flags = given.map((flag) => (typeof flag === 'string' ? flag : extendedFile(flag)));
    const result = cli(['serve', '--home', home, '--store', 'memory', '--port', '0', '--exec', 'true', ...flags], { home, env: { AGENT_ALICE: AGENT_TOKEN } });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(message);
  });

  it('hub --card-compat 2', () => {
    const result = cli(['hub', '--store', 'memory', '--port', '0', '--card-compat', '2'], { home: tempHome('hub-flags') });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('hub: --card-compat: the card compatibility is 1.0 or 0.3, not "2"');
  });
});
