// `a2a-lite hub` run for real with token files, an audit file and limits: a token rotated with
// SIGHUP drops the relay link of the agent that dialled in with it and ends the client's relayed
// stream, the new token works at once; callers over their limits get 429 and show up in the
// API the console reads; the trail holds who did what, never a token or a message's words.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../cli/run-cli.js';
import { tempHome } from '../fixtures/home.js';
import { withTimeout } from '../faults/serve-process.js';
import { startAgent, startHub, until } from './hub-processes.js';

/** Built in parts, so that no scanner takes this file for a leak. */
const AGENT = ['hub', 'agent', 'Hx73Jq'].join('-');
const AGENT_NEW = ['hub', 'agent', 'Mu05Ty'].join('-');
const CLIENT = ['hub', 'client', 'Ra28Wd'].join('-');
const CLIENT_NEW = ['hub', 'client', 'Ce91Np'].join('-');
const WATCHER = ['hub', 'watcher', 'Ob36Fv'].join('-');
const WORDS = 'the password to the cellar is swordfish';

const as = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json', 'a2a-version': '1.0' });
const message = (text: string) => JSON.stringify({ message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] } });

function tokenFile(dir: string, name: string, token: string): string {
  const path = join(dir, name);
  writeFileSync(path, token);
  chmodSync(path, 0o600);
  return path;
}

describe('the hub with token files, an audit file and limits', () => {
  it('drops the links and streams of a withdrawn token on SIGHUP, limits callers, and audits without secrets', async () => {
    const dir = tempHome('hub-ops');
    const agentFile = tokenFile(dir, 'agent', AGENT);
    const clientFile = tokenFile(dir, 'client', CLIENT);
    const audit = join(dir, 'audit.log');
    const hub = await startHub(['--store', 'memory', '--token-file', `agents=${agentFile}`, '--token-file', `client=${clientFile}`, '--audit', audit, '--max-streams-per-caller', '1']);
    expect(hub.stderr()).not.toMatch(/warning/);
    const agent = await startAgent(hub.url, 'ops-agent', { extra: ['--port', 'none', '--hub-token-env', 'AGENT_TOKEN'], env: { AGENT_TOKEN: AGENT } });
    await until(async () => (await fetch(`${hub.url}/agents/ops-agent/.well-known/agent-card.json`)).status === 200 || undefined, 10_000, 'the agent registered');

    // A relayed send, and a relayed stream the client follows; a second stream is over its cap.
    const sent = await fetch(`${hub.url}/agents/ops-agent/message:send`, { method: 'POST', headers: as(CLIENT), body: message(`echo ${WORDS}`) });
    expect(sent.status).toBe(200);
    const stream = await fetch(`${hub.url}/agents/ops-agent/message:stream`, { method: 'POST', headers: as(CLIENT), body: message('slow 300') });
    expect(stream.status).toBe(200);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    expect((await reader.read()).done).toBe(false);
    const second = await fetch(`${hub.url}/agents/ops-agent/jsonrpc`, { method: 'POST', headers: as(CLIENT), body: JSON.stringify({ jsonrpc: '2.0', id: 'two', method: 'SendStreamingMessage', params: JSON.parse(message('slow 3')) }) });
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('5');
    expect(await second.json()).toMatchObject({ jsonrpc: '2.0', id: 'two', error: { code: -32000 } });
    // The live feed is a stream too.
    const feed = await fetch(`${hub.url}/hub/v1/events`, { headers: as(CLIENT) });
    expect(feed.status).toBe(429);
    expect(feed.headers.get('retry-after')).toBe('5');

    const limits = (await (await fetch(`${hub.url}/hub/v1/limits`, { headers: as(CLIENT) })).json()) as { limits: Record<string, unknown>; limited: unknown[] };
    expect(limits).toMatchObject({ limits: { maxStreams: 1 }, limited: [{ by: 'principal', caller: 'client', kind: 'streams', hits: 2 }] });

    // Rotate both tokens: the client's stream ends, the agent's link is dropped (its old token
    // no longer lets it back in, so it stops), and the new tokens work at once.
    tokenFile(dir, 'agent', AGENT_NEW);
    tokenFile(dir, 'client', CLIENT_NEW);
    hub.child.kill('SIGHUP');
    let events = 0;
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      events += 1;
      expect(events).toBeLessThan(50);
    }
    expect(await withTimeout(agent.exited, 15_000, 'the agent dialled in with the old token to be dropped')).not.toBe(0);
    expect(agent.stderr()).toMatch(/refused|401|withdrawn/i);
    expect((await fetch(`${hub.url}/hub/v1/agents`, { headers: as(CLIENT) })).status).toBe(401);
    expect((await fetch(`${hub.url}/hub/v1/agents`, { headers: as(CLIENT_NEW) })).status).toBe(200);
    expect(hub.stderr()).toMatch(/tokens read again \(SIGHUP\): agents changed, client changed; 2 accepted/);

    hub.child.kill('SIGTERM');
    expect(await hub.exited).toBe(0);
    const text = readFileSync(audit, 'utf8');
    const lines = text.trim().split('\n').map((line) => JSON.parse(line) as Record<string, string>);
    const summary = lines.map((line) => `${line.action} ${line.principal ?? '-'} ${line.agent ?? '-'} ${line.outcome} ${line.detail ?? ''}`.trim());
    expect(summary).toEqual(expect.arrayContaining([
      'register agents ops-agent ok dialled in',
      'send client ops-agent ok',
      'limit-hit client - RATE_LIMITED streams',
      'token-reload agents - ok changed',
      'token-reload client - ok changed',
      'auth-failure - - UNAUTHENTICATED GET /hub/v1/agents',
    ]));
    expect(lines.find((line) => line.action === 'send' && line.outcome === 'ok')?.task).toEqual(expect.any(String));
    for (const secret of [AGENT, AGENT_NEW, CLIENT, CLIENT_NEW, WORDS]) {
      expect(text).not.toContain(secret);
      expect(hub.stderr()).not.toContain(secret);
    }
  });

  it('limits strangers by address, and shows who was limited in the API the console reads', async () => {
    const dir = tempHome('hub-ops-limits');
    const audit = join(dir, 'audit.log');
    const hub = await startHub(['--store', 'memory', '--token-file', `client=${tokenFile(dir, 'client', CLIENT)}`, '--token-file', `watcher=${tokenFile(dir, 'watcher', WATCHER)}`, '--audit', audit, '--address-rate-limit', '1/m', '--address-rate-burst', '2', '--rate-limit', '1/h', '--rate-burst', '3']);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await fetch(`${hub.url}/.well-known/ai-catalog.json`)).status);
    expect(statuses).toEqual([200, 200, 429, 429]);
    const refused = await fetch(`${hub.url}/.well-known/ai-catalog.json`);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(1);
    // A caller with a token has a bucket of its own: three, then 429 for an hour's worth.
    const mine: number[] = [];
    for (let i = 0; i < 5; i += 1) mine.push((await fetch(`${hub.url}/hub/v1/agents`, { headers: as(CLIENT) })).status);
    expect(mine).toEqual([200, 200, 200, 429, 429]);
    const relayed = await fetch(`${hub.url}/agents/nobody/jsonrpc`, { method: 'POST', headers: as(CLIENT), body: '{}' });
    expect(relayed.status).toBe(429);
    expect(await relayed.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    // The limit follows the principal, not its token: a rotated token starts with no new tokens.
    writeFileSync(join(dir, 'client'), CLIENT_NEW);
    hub.child.kill('SIGHUP');
    await until(() => (hub.stderr().includes('tokens read again') ? true : undefined), 10_000, 'the reread');
    expect((await fetch(`${hub.url}/hub/v1/agents`, { headers: as(CLIENT_NEW) })).status).toBe(429);
    // Another principal reads who was limited, as the console does.
    const board = (await (await fetch(`${hub.url}/hub/v1/limits`, { headers: as(WATCHER) })).json()) as { limits: Record<string, unknown>; limited: { by: string; caller: string; kind: string; hits: number }[] };
    expect(board.limits).toEqual({ rate: { perSecond: 1 / 3600, burst: 3 }, addressRate: { perSecond: 1 / 60, burst: 2 } });
    expect(board.limited).toEqual([
      expect.objectContaining({ by: 'address', caller: expect.stringMatching(/127\.0\.0\.1/), kind: 'address-rate', hits: 3 }),
      expect.objectContaining({ by: 'principal', caller: 'client', kind: 'rate', hits: 4 }),
    ]);
    hub.child.kill('SIGTERM');
    expect(await hub.exited).toBe(0);
    const lines = readFileSync(audit, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, string>);
    expect(lines.filter((line) => line.action === 'limit-hit').map((line) => `${line.principal ?? line.address?.replace(/.*127\.0\.0\.1/, 'local')} ${line.detail}`)).toEqual(['local address-rate', 'client rate']);
  });

  it.each([
    [['--token-file', 'agents=missing.token'], /^a2a-lite: USAGE: hub: the token file .*missing\.token \(--token-file agents\) does not exist\n$/],
    [['--token-file', 'agents'], /hub: --token-file takes NAME=PATH/],
    [['--token-env', 'HUB_OPS', '--token-file', 'HUB_OPS=present.token'], /HUB_OPS is named by an environment variable and by --token-file/],
    [['--rate-limit', '10/s'], /--rate-limit limits each principal, and no token is set/],
    [['--token-file', 'agents=present.token', '--rate-limit', 'fast'], /--rate-limit is a number of requests per second, minute or hour/],
    [['--token-file', 'agents=present.token', '--max-tasks-per-caller', '1.5'], /--max-tasks-per-caller is a whole number/],
  ])('refuses %j at start, naming the file or the flag', (flags, message) => {
    const dir = tempHome('hub-ops-flags');
    tokenFile(dir, 'present.token', CLIENT);
    const result = cli(['hub', '--store', 'memory', '--port', '0', ...flags], { cwd: dir, env: { HUB_OPS: AGENT } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toContain(CLIENT);
    expect(result.stderr).not.toContain(AGENT);
  });

  it('warns of a token file others may read, and starts', async () => {
    const dir = tempHome('hub-ops-warn');
    const path = tokenFile(dir, 'open.token', CLIENT);
    chmodSync(path, 0o644);
    const hub = await startHub(['--store', 'memory', '--token-file', `client=${path}`]);
    expect(hub.stderr()).toMatch(/warning: the token file .*open\.token \(client\) is readable by its group or by others \(mode 0644\); chmod 600 it/);
    expect(hub.stderr()).not.toContain(CLIENT);
    expect((await fetch(`${hub.url}/hub/v1`, { headers: as(CLIENT) })).status).toBe(200);
  });
});
