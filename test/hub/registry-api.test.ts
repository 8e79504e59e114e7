// The hub's registry API over real HTTP on 127.0.0.1: two A2A agents registered by URL, found
// by skill, tag, words and version, listed in the AI Catalog and by ARD search, their cards
// published at the hub, a new card version kept in the history, and removal by the owner.
import { afterEach, describe, expect, it } from 'vitest';
import { createA2AHandler } from '../../src/a2a/server/handler.js';
import type { LiteCard } from '../../src/card/types.js';
import { createHubHandler } from '../../src/hub/hub-handler.js';
import { MemoryHubStore } from '../../src/hub/hub-store.js';
import { Hub } from '../../src/hub/hub.js';
import { createAgent } from '../../src/runtime/agent.js';
import { listen, type Listening } from '../../src/net/node-http.js';
import { MemoryTaskStore } from '../../src/store/task-store.js';
import { jiajiaCard, mexicoCard } from '../fixtures/cards.js';

const servers: Listening[] = [];
const hubs: Hub[] = [];
afterEach(async () => {
  for (const hub of hubs.splice(0)) hub.close();
  for (const server of servers.splice(0)) await server.close();
});

async function serveAgent(card: LiteCard): Promise<string> {
  let url = '';
  const agent = createAgent({ card, store: new MemoryTaskStore(), onTask: (task) => `echo: ${task.text}` });
  const server = await listen(createA2AHandler({ agent, baseUrl: () => url }), { port: 0 });
  servers.push(server);
  url = server.url;
  return url;
}

async function startHub(auth?: Parameters<typeof createHubHandler>[1]): Promise<string> {
  let url = '';
  const hub = new Hub({ store: new MemoryHubStore(), baseUrl: () => url, allowPrivate: true, checkMs: 0 });
  hubs.push(hub);
  const server = await listen(createHubHandler(hub, auth), { port: 0 });
  servers.push(server);
  url = server.url;
  return url;
}

const json = async (url: string, init?: RequestInit): Promise<Record<string, unknown>> => (await (await fetch(url, init)).json()) as Record<string, unknown>;
const register = (hub: string, url: string): Promise<Response> => fetch(`${hub}/hub/v1/agents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url }) });
const ids = (body: Record<string, unknown>, key = 'agents'): string[] => (body[key] as { id: string }[]).map((a) => a.id);

describe('the hub registry API', () => {
  it('finds agents by skill, tag, words and version, and lists them in the AI Catalog and ARD search', async () => {
    const hub = await startHub();
    const jiajia = await serveAgent(jiajiaCard({ skills: [{ id: 'research', name: 'Research', description: 'Collects sources on a topic', tags: ['papers'] }] }));
    const mexico = await serveAgent(mexicoCard());
    expect((await register(hub, jiajia)).status).toBe(201);
    expect((await register(hub, `${mexico}/.well-known/agent-card.json`)).status).toBe(201);

    expect(ids(await json(`${hub}/hub/v1/agents`))).toEqual(['jiajia', 'mexico']);
    expect(ids(await json(`${hub}/hub/v1/agents?skill=email`))).toEqual(['mexico']);
    expect(ids(await json(`${hub}/hub/v1/agents?tag=papers`))).toEqual(['jiajia']);
    expect(ids(await json(`${hub}/hub/v1/agents?q=collects%20topic`))).toEqual(['jiajia']);
    expect(ids(await json(`${hub}/hub/v1/agents?version=0.x`))).toEqual(['jiajia']);
    expect(ids(await json(`${hub}/hub/v1/agents?q=nothing-like-this`))).toEqual([]);

    const catalog = await fetch(`${hub}/.well-known/ai-catalog.json`);
    expect(catalog.headers.get('content-type')).toBe('application/ai-catalog+json');
    const host = new URL(hub).host;
    expect(await catalog.json()).toMatchObject({
      specVersion: '1.0',
      host: { displayName: `a2a-lite hub at ${host}` },
      entries: [
        { identifier: `urn:air:${host}:a2a:jiajia`, type: 'application/a2a-agent-card+json', url: `${hub}/agents/jiajia/.well-known/agent-card.json`, tags: ['research', 'papers'] },
        { identifier: `urn:air:${host}:a2a:mexico`, type: 'application/a2a-agent-card+json', url: `${hub}/agents/mexico/.well-known/agent-card.json` },
      ],
    });

    const search = (body: unknown): Promise<Record<string, unknown>> => json(`${hub}/ard/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(await search({ query: { text: 'smtp' } })).toMatchObject({ results: [{ identifier: `urn:air:${host}:a2a:mexico`, displayName: 'Mexico', score: 100, source: host }], referrals: [] });
    expect(((await search({ query: { text: '', filter: { tags: ['papers'] } } })).results as unknown[]).length).toBe(1);
    expect(((await search({ query: { text: '', filter: { type: 'application/mcp-server-card+json' } } })).results as unknown[]).length).toBe(0);
    expect(((await search({ query: { text: '' }, pageSize: 1 })).results as unknown[]).length).toBe(1);
  });

  it('publishes each card at the hub, calls the agent through it, keeps card versions, and removes an agent for its owner', async () => {
    const hub = await startHub();
    const first = await serveAgent(mexicoCard({ agent: { id: 'mexico', name: 'Mexico', framework: 'openclaw', version: '1.0.0' } }));
    await register(hub, first);
    const card = await json(`${hub}/agents/mexico/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } });
    expect((card.supportedInterfaces as { url: string }[]).map((i) => i.url)).toEqual([`${hub}/agents/mexico/jsonrpc`, `${hub}/agents/mexico`, `${hub}/agents/mexico/jsonrpc`]);
    const sent = await json(`${hub}/agents/mexico/message:send`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body: JSON.stringify({ message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }) });
    expect((sent.task as { status: { state: string } }).status.state).toBe('TASK_STATE_COMPLETED');

    // The same agent, a new version, at a new address: registered again, its history grows.
    const second = await serveAgent(mexicoCard({ agent: { id: 'mexico', name: 'Mexico', framework: 'openclaw', version: '1.1.0' } }));
    await register(hub, second);
    const detail = await json(`${hub}/hub/v1/agents/mexico`);
    expect(detail.agent).toMatchObject({ id: 'mexico', kind: 'url', version: '1.1.0', previousVersions: ['1.0.0'], mine: true, health: { up: true } });
    expect((detail.tasks as { state: string }[]).map((t) => t.state)).toEqual(['completed']);

    expect(await json(`${hub}/hub/v1/agents/mexico`, { method: 'DELETE' })).toEqual({ removed: 'mexico' });
    expect((await fetch(`${hub}/hub/v1/agents/mexico`)).status).toBe(404);
    expect((await fetch(`${hub}/agents/mexico/.well-known/agent-card.json`)).status).toBe(404);
  });

  it('routes to an agent registered by URL for its owner only, unless registered as shared', async () => {
    const hub = await startHub({ auth: { bearerTokens: [{ principal: 'alice', secret: 'alice-secret-1' }, { principal: 'bob', secret: 'bob-secret-2' }] } });
    const as = (who: string): Record<string, string> => ({ authorization: `Bearer ${who}-secret-${who === 'alice' ? 1 : 2}`, 'content-type': 'application/json' });
    const route = async (who: string): Promise<string[]> => ((await json(`${hub}/hub/v1/route?skill=email`, { headers: as(who) })).candidates as { agent: { id: string } }[]).map((c) => c.agent.id);
    const url = await serveAgent(mexicoCard());
    expect((await fetch(`${hub}/hub/v1/agents`, { method: 'POST', headers: as('bob'), body: JSON.stringify({ url }) })).status).toBe(201);
    expect(await route('bob')).toEqual(['mexico']);
    expect(await route('alice')).toEqual([]);
    // Registered again by its owner as shared: now routed for everyone, and shown so.
    const again = await json(`${hub}/hub/v1/agents`, { method: 'POST', headers: as('bob'), body: JSON.stringify({ url, shared: true }) });
    expect(again.agent).toMatchObject({ id: 'mexico', shared: true, mine: true });
    expect(await route('alice')).toEqual(['mexico']);
    expect((await json(`${hub}/hub/v1/agents/mexico`, { headers: as('alice') })).agent).toMatchObject({ shared: true, mine: false });
    // And back: registered without it, it is Bob's alone again.
    await fetch(`${hub}/hub/v1/agents`, { method: 'POST', headers: as('bob'), body: JSON.stringify({ url }) });
    expect(await route('alice')).toEqual([]);
  });
});
