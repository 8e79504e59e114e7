// The hub's security with real processes: tokens from the environment, an agent id bound to the
// principal that registered it first, private card URLs refused unless allowed, and no token
// ever written to the registry, a log or a card.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../fixtures/home.js';
import { agentHome, BEHAVE, start, startAgent, startHub, until } from './hub-processes.js';

const ALICE = 'alice-token-5f1c9e2b7d';
const BOB = 'bob-token-8a3d6c0e4f';
const TOKENS = { HUB_ALICE: ALICE, HUB_BOB: BOB };
const as = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

describe('the hub with tokens', () => {
  it('binds an agent id to the principal that registered it first, and lets callers see only what they may', async () => {
    const db = join(tempHome('hub-db'), 'hub.db');
    const hub = await startHub(['--store', 'sqlite', '--db', db, '--token-env', 'HUB_ALICE', '--token-env', 'HUB_BOB'], TOKENS);
    // Without a token: only the catalog and the cards.
    expect((await fetch(`${hub.url}/hub/v1/agents`)).status).toBe(401);
    expect((await fetch(`${hub.url}/.well-known/ai-catalog.json`)).status).toBe(200);

    const agent = await startAgent(hub.url, 'shared', { extra: ['--port', 'none', '--hub-token-env', 'HUB_ALICE'], env: TOKENS });
    await until(async () => ((await (await fetch(`${hub.url}/hub/v1/agents`, { headers: as(ALICE) })).json()) as { agents: unknown[] }).agents.length || undefined, 10_000, 'registered');
    const seen = async (token: string): Promise<{ id: string; mine: boolean }[]> => ((await (await fetch(`${hub.url}/hub/v1/agents`, { headers: as(token) })).json()) as { agents: { id: string; mine: boolean }[] }).agents;
    expect(await seen(ALICE)).toMatchObject([{ id: 'shared', mine: true }]);
    expect(await seen(BOB)).toMatchObject([{ id: 'shared', mine: false }]);
    expect((await fetch(`${hub.url}/agents/shared/.well-known/agent-card.json`)).status).toBe(200);

    // Bob cannot take the id: not by connecting, not by URL, and he cannot delete it.
    await expect(startAgent(hub.url, 'shared', { extra: ['--port', 'none', '--hub-token-env', 'HUB_BOB'], env: TOKENS })).rejects.toThrow('{"error":{"code":"FORBIDDEN","message":"the hub refused agent shared: the agent id \\"shared\\" is registered by another principal"}}');
    const direct = await start(['serve', '--home', agentHome('other'), '--store', 'memory', '--port', '0', '--exec', BEHAVE]);
    const taken = await fetch(`${hub.url}/hub/v1/agents`, { method: 'POST', headers: as(BOB), body: JSON.stringify({ url: direct.info.url, id: 'shared' }) });
    expect(taken.status).toBe(403);
    expect(((await taken.json()) as { error: { message: string } }).error.message).toBe('the agent id "shared" is registered by another principal');
    const removed = await fetch(`${hub.url}/hub/v1/agents/shared`, { method: 'DELETE', headers: as(BOB) });
    expect(removed.status).toBe(403);
    // Alice's agent still answers through the hub, for a caller with a token.
    const call = await fetch(`${hub.url}/agents/shared/message:send`, { method: 'POST', headers: { ...as(BOB), 'a2a-version': '1.0' }, body: JSON.stringify({ message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'echo ok' }] } }) });
    expect(((await call.json()) as { task: { status: { state: string } } }).task.status.state).toBe('TASK_STATE_COMPLETED');
    expect((await fetch(`${hub.url}/agents/shared/message:send`, { method: 'POST', body: '{}' })).status).toBe(401);
    // A task is its maker's: Bob made that one, Alice does not find it.
    const bobs = ((await (await fetch(`${hub.url}/agents/shared/message:send`, { method: 'POST', headers: { ...as(BOB), 'a2a-version': '1.0' }, body: JSON.stringify({ message: { messageId: 'm2', role: 'ROLE_USER', parts: [{ text: 'echo mine' }] } }) })).json()) as { task: { id: string } }).task.id;
    expect((await fetch(`${hub.url}/agents/shared/tasks/${bobs}`, { headers: { ...as(BOB), 'a2a-version': '1.0' } })).status).toBe(200);
    expect((await fetch(`${hub.url}/agents/shared/tasks/${bobs}`, { headers: { ...as(ALICE), 'a2a-version': '1.0' } })).status).toBe(404);
    const listed = async (token: string): Promise<string[]> => ((await (await fetch(`${hub.url}/hub/v1/tasks`, { headers: as(token) })).json()) as { tasks: { taskId: string }[] }).tasks.map((t) => t.taskId);
    expect(await listed(BOB)).toContain(bobs);
    expect(await listed(ALICE)).not.toContain(bobs);

    // No token in the registry, in a log or in a card.
    // The registry as written: the database and its write-ahead log.
    const stored = [db, `${db}-wal`].map((file) => (existsSync(file) ? readFileSync(file, 'latin1') : '')).join('');
    const written = [stored, hub.stderr(), agent.stderr(), JSON.stringify(agent.info), await (await fetch(`${hub.url}/agents/shared/.well-known/agent-card.json`)).text()].join('\n');
    for (const token of [ALICE, BOB]) expect(written).not.toContain(token);
    expect(stored).toContain('HUB_ALICE');
  }, 60_000);

  it('keeps callers\' tasks apart at an agent registered by URL, which sees only the hub', async () => {
    const hub = await startHub(['--store', 'memory', '--token-env', 'HUB_ALICE', '--token-env', 'HUB_BOB'], TOKENS);
    const direct = await start(['serve', '--home', agentHome('open'), '--store', 'memory', '--port', '0', '--exec', BEHAVE]);
    expect((await fetch(`${hub.url}/hub/v1/agents`, { method: 'POST', headers: as(ALICE), body: JSON.stringify({ url: direct.info.url, id: 'open' }) })).status).toBe(201);
    const rpc = async (token: string, method: string, params: unknown): Promise<Record<string, unknown>> =>
      (await (await fetch(`${hub.url}/agents/open/jsonrpc`, { method: 'POST', headers: { ...as(token), 'a2a-version': '1.0' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })).json()) as Record<string, unknown>;
    const sent = await rpc(ALICE, 'SendMessage', { message: { messageId: 'a1', role: 'ROLE_USER', parts: [{ text: 'echo alice' }] } });
    const task = (sent.result as { task: { id: string } }).task.id;
    // Alice reads her task by every binding; Bob, who knows its id, is told there is no such task.
    expect(await rpc(ALICE, 'GetTask', { id: task })).toHaveProperty('result.id', task);
    expect(await rpc(BOB, 'GetTask', { id: task })).toMatchObject({ error: { code: -32001 } });
    expect(await rpc(BOB, 'CancelTask', { id: task })).toMatchObject({ error: { code: -32001 } });
    expect(await rpc(BOB, 'SendMessage', { message: { messageId: 'b1', role: 'ROLE_USER', taskId: task, parts: [{ text: 'echo bob' }] } })).toMatchObject({ error: { code: -32001 } });
    const rest = (token: string): Promise<Response> => fetch(`${hub.url}/agents/open/tasks/${task}`, { headers: { ...as(token), 'a2a-version': '1.0' } });
    expect((await rest(ALICE)).status).toBe(200);
    expect((await rest(BOB)).status).toBe(404);
    // A list shows each caller their own tasks only.
    const bobs = ((await rpc(BOB, 'SendMessage', { message: { messageId: 'b2', role: 'ROLE_USER', parts: [{ text: 'echo bob' }] } })).result as { task: { id: string } }).task.id;
    const listed = async (token: string): Promise<string[]> => ((await rpc(token, 'ListTasks', {})).result as { tasks: { id: string }[] }).tasks.map((t) => t.id);
    expect(await listed(ALICE)).toEqual([task]);
    expect(await listed(BOB)).toEqual([bobs]);
  }, 60_000);

  it('refuses to fetch a card from a private address unless started with --allow-private', async () => {
    const hub = await startHub(['--store', 'memory'], {}, false);
    const direct = await start(['serve', '--home', agentHome('private'), '--store', 'memory', '--port', '0', '--exec', BEHAVE]);
    const refused = await fetch(`${hub.url}/hub/v1/agents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: direct.info.url }) });
    expect(refused.status).toBe(403);
    const port = new URL(direct.info.url as string).port;
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(`the hub does not call 127.0.0.1:${port} (127.0.0.1): it is a loopback address; start the hub with --allow-private to allow private addresses`);
    const allowed = await startHub(['--store', 'memory']);
    const registered = await fetch(`${allowed.url}/hub/v1/agents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: direct.info.url }) });
    expect(registered.status).toBe(201);
    expect(((await registered.json()) as { agent: { id: string; kind: string } }).agent).toMatchObject({ id: 'private', kind: 'url' });
  }, 60_000);
});
