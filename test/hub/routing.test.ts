// Routing by the hub, with real processes: `send --hub URL --skill S` goes to the less loaded of
// two agents offering S, says why on stderr, and fails over to the next agent when the first
// is dead before it took the task.
import { describe, expect, it } from 'vitest';
import { cli, cliAsync } from '../cli/run-cli.js';
import { tempHome } from '../fixtures/home.js';
import { agentHome, BEHAVE, freePort, getJson, healthOf, start, startAgent, startHub, until } from './hub-processes.js';

const WORK = ['work:Work:Does the work'];
const V1 = { 'content-type': 'application/json', 'a2a-version': '1.0' };

/** The ids the hub ranks for `skill`, best first. */
async function ranked(hubUrl: string, skill: string): Promise<string[]> {
  const { body } = await getJson(`${hubUrl}/hub/v1/route?skill=${skill}`);
  return (body.candidates as { agent: { id: string } }[]).map((c) => c.agent.id);
}

describe('routing through the hub', () => {
  it('sends to the less loaded agent offering the skill, and explains the choice', async () => {
    const hub = await startHub();
    await startAgent(hub.url, 'busy', { skills: WORK });
    await startAgent(hub.url, 'idle', { skills: WORK });
    await until(async () => ((await ranked(hub.url, 'work')).length === 2 ? true : undefined), 10_000, 'two candidates');
    // Alike in all else, they take turns at the front.
    const firsts = new Set<string>();
    for (let i = 0; i < 4; i += 1) firsts.add((await ranked(hub.url, 'work'))[0] as string);
    expect([...firsts].sort()).toEqual(['busy', 'idle']);

    const load = new AbortController();
    const running = await fetch(`${hub.url}/agents/busy/message:stream`, { method: 'POST', headers: V1, body: JSON.stringify({ message: { messageId: 'm-load', role: 'ROLE_USER', parts: [{ text: 'slow 300' }] } }), signal: load.signal });
    expect(running.status).toBe(200);
    await until(async () => ((await healthOf(hub.url, 'busy'))?.activeTasks === 1 ? true : undefined), 10_000, 'busy to have a task');
    expect(await ranked(hub.url, 'work')).toEqual(['idle', 'busy']);

    const home = tempHome('client');
    const sent = await cliAsync(['send', '--hub', hub.url, '--skill', 'work', 'echo routed'], { home });
    load.abort();
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain('echo: routed');
    expect(sent.stderr).toMatch(/hub chose idle \(Agent idle\) for "work": skill "work", yours, 0 active tasks/);
    // Recorded under the agent it went to.
    expect(JSON.parse(cli(['tasks', 'list', '--json'], { home }).stdout)[0]).toMatchObject({ peer: 'idle' });
  }, 60_000);

  it('fails over to the next agent when the first is dead before it took the task', async () => {
    const hub = await startHub(['--store', 'memory', '--check', '0']);
    // An agent the hub reaches by URL, ranked first for the exact skill id; it dies, and the hub
    // has not checked since. The others offer the skill by its name only.
    const direct = await start(['serve', '--home', agentHome('a-direct', WORK), '--store', 'memory', '--port', '0', '--exec', BEHAVE]);
    const registered = await fetch(`${hub.url}/hub/v1/agents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: direct.info.url }) });
    expect(registered.status).toBe(201);
    await startAgent(hub.url, 'b-connected', { skills: ['labour:work:Does the work'] });
    const second = await startAgent(hub.url, 'c-connected', { skills: ['labour:work:Does the work'] });
    await until(async () => ((await ranked(hub.url, 'work')).length === 3 ? true : undefined), 10_000, 'three candidates');
    expect((await ranked(hub.url, 'work'))[0]).toBe('a-direct');
    direct.child.kill('SIGKILL');
    await direct.exited;

    const home = tempHome('client');
    const sent = await cliAsync(['send', '--hub', hub.url, '--skill', 'work', 'echo failover'], { home });
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain('echo: failover');
    expect(sent.stderr).toContain('hub chose a-direct');
    expect(sent.stderr).toMatch(/a-direct did not take the task \(.+\); trying the next/);
    expect(sent.stderr).toMatch(/hub chose [bc]-connected/);

    // A connected agent killed is down at once: its connection closed.
    second.child.kill('SIGKILL');
    await until(async () => ((await healthOf(hub.url, 'c-connected'))?.up === false ? true : undefined), 10_000, 'c-connected down');
    expect(await ranked(hub.url, 'work')).not.toContain('c-connected');
  }, 60_000);

  it('checks an agent registered by URL: down after three failed checks, up again when it answers', async () => {
    const hub = await startHub(['--store', 'memory', '--check', '1']);
    const port = String(await freePort());
    const home = agentHome('by-url', WORK);
    const first = await start(['serve', '--home', home, '--store', 'memory', '--port', port, '--exec', BEHAVE]);
    const registered = await fetch(`${hub.url}/hub/v1/agents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: first.info.url }) });
    expect(registered.status).toBe(201);
    expect(await healthOf(hub.url, 'by-url')).toMatchObject({ up: true });
    first.child.kill('SIGKILL');
    await first.exited;
    const down = await until(async () => {
      const health = await healthOf(hub.url, 'by-url');
      return health?.up === false ? health : undefined;
    }, 15_000, 'by-url down');
    expect(down).toMatchObject({ up: false, failures: 3 });
    expect(await ranked(hub.url, 'work')).toEqual([]);
    await start(['serve', '--home', home, '--store', 'memory', '--port', port, '--exec', BEHAVE]);
    await until(async () => ((await healthOf(hub.url, 'by-url'))?.up === true ? true : undefined), 15_000, 'by-url up again');
    expect(await ranked(hub.url, 'work')).toEqual(['by-url']);
  }, 60_000);
});
