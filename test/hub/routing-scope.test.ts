// Whom the hub routes a principal's sends to, with real processes: `send --hub --skill` by one
// principal never reaches another principal's agent unless its owner shared it
// (`serve --hub-shared`), goes to the caller's own agent before a shared one, and spreads over
// equally good agents instead of always taking the first id. Each agent counts, in a file of its
// own, the tasks its program was given.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliAsync, type CliResult } from '../cli/run-cli.js';
import { tempHome } from '../fixtures/home.js';
import { BEHAVIOURS, NODE, script, startAgent, startHub, until } from './hub-processes.js';

const ALICE = 'alice-token-6a1f3c9e2d';
const BOB = 'bob-token-2d7e5b1a94';
const TOKENS = { HUB_ALICE: ALICE, HUB_BOB: BOB };
const WORK = ['work:Work:Does the work'];
/** The behaviours program, counting each task it is given in $COUNT_FILE (in a test's own folder: they are removed after each). */
const counting = (): string => script('counting.sh', `#!/bin/sh\necho "$A2A_TASK_ID" >> "$COUNT_FILE"\nexec ${NODE} ${JSON.stringify(BEHAVIOURS)}\n`);

interface Counted {
  tasks(): number;
}

async function countingAgent(hubUrl: string, id: string, tokenEnv: string, extra: string[] = []): Promise<Counted> {
  const file = join(tempHome(`count-${id}`), 'tasks.txt');
  await startAgent(hubUrl, id, { exec: counting(), skills: WORK, extra: ['--port', 'none', '--hub-token-env', tokenEnv, ...extra], env: { ...TOKENS, COUNT_FILE: file } });
  return { tasks: () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0) };
}

async function routed(hubUrl: string, token: string): Promise<string[]> {
  const response = await fetch(`${hubUrl}/hub/v1/route?skill=work`, { headers: { authorization: `Bearer ${token}` } });
  return ((await response.json()) as { candidates: { agent: { id: string } }[] }).candidates.map((c) => c.agent.id);
}

async function sendRouted(hubUrl: string, tokenEnv: string, text: string): Promise<CliResult> {
  return cliAsync(['send', '--hub', hubUrl, '--skill', 'work', '--token-env', tokenEnv, text], { home: tempHome('sender'), env: TOKENS });
}

const registered = (hubUrl: string, ids: string[], token: string) =>
  until(async () => {
    const response = await fetch(`${hubUrl}/hub/v1/agents?healthy=true`, { headers: { authorization: `Bearer ${token}` } });
    const seen = ((await response.json()) as { agents: { id: string }[] }).agents.map((a) => a.id);
    return ids.every((id) => seen.includes(id)) ? true : undefined;
  }, 10_000, `${ids.join(', ')} to be up`);

describe('routing for each principal', () => {
  it("never gives one principal's routed send to another's agent unless its owner shared it, and prefers the caller's own", async () => {
    const hub = await startHub(['--store', 'memory', '--token-env', 'HUB_ALICE', '--token-env', 'HUB_BOB'], TOKENS);
    const bobPrivate = await countingAgent(hub.url, 'bob-private', 'HUB_BOB');
    await registered(hub.url, ['bob-private'], BOB);

    // Alice has no agent of her own for the skill, and Bob shares none: nothing is routed for her.
    expect(await routed(hub.url, ALICE)).toEqual([]);
    const none = await sendRouted(hub.url, 'HUB_ALICE', 'echo for alice');
    expect(none.code).toBe(4);
    expect(none.stderr).toContain(`no agent that is up at the hub ${hub.url} offers "work"`);
    expect(bobPrivate.tasks()).toBe(0);
    // Bob's own routed send reaches it.
    expect((await sendRouted(hub.url, 'HUB_BOB', 'echo for bob')).stdout).toContain('echo: for bob');
    expect(bobPrivate.tasks()).toBe(1);

    // Bob shares another agent: Alice's routed sends go there, never to his private one.
    const bobShared = await countingAgent(hub.url, 'bob-shared', 'HUB_BOB', ['--hub-shared']);
    await registered(hub.url, ['bob-shared'], BOB);
    expect(await routed(hub.url, ALICE)).toEqual(['bob-shared']);
    for (let i = 0; i < 3; i += 1) expect((await sendRouted(hub.url, 'HUB_ALICE', `echo shared ${i}`)).stdout).toContain(`echo: shared ${i}`);
    expect([bobShared.tasks(), bobPrivate.tasks()]).toEqual([3, 1]);

    // With an agent of her own, Alice's routed sends stay with her; Bob's never reach hers.
    const aliceOwn = await countingAgent(hub.url, 'alice-own', 'HUB_ALICE');
    await registered(hub.url, ['alice-own'], ALICE);
    expect(await routed(hub.url, ALICE)).toEqual(['alice-own', 'bob-shared']);
    for (let i = 0; i < 3; i += 1) expect((await sendRouted(hub.url, 'HUB_ALICE', `echo own ${i}`)).stdout).toContain(`echo: own ${i}`);
    for (let i = 0; i < 4; i += 1) expect((await sendRouted(hub.url, 'HUB_BOB', `echo bob ${i}`)).code).toBe(0);
    expect(aliceOwn.tasks()).toBe(3);
    expect(bobShared.tasks() + bobPrivate.tasks()).toBe(3 + 1 + 4);
    // Anyone may still call an agent by its id: sharing is about routing alone.
    const direct = await cliAsync(['send', '--hub', hub.url, 'bob-private', 'echo direct', '--token-env', 'HUB_ALICE'], { home: tempHome('direct'), env: TOKENS });
    expect(direct.stdout).toContain('echo: direct');
  }, 120_000);

  it('spreads routed sends over equally good agents', async () => {
    const hub = await startHub(['--store', 'memory', '--token-env', 'HUB_ALICE'], TOKENS);
    const first = await countingAgent(hub.url, 'worker-a', 'HUB_ALICE');
    const second = await countingAgent(hub.url, 'worker-b', 'HUB_ALICE');
    await registered(hub.url, ['worker-a', 'worker-b'], ALICE);
    for (let i = 0; i < 20; i += 1) {
      const sent = await sendRouted(hub.url, 'HUB_ALICE', `echo ${i}`);
      expect(sent.code, `${sent.stdout}\n${sent.stderr}`).toBe(0);
    }
    const [a, b] = [first.tasks(), second.tasks()];
    expect(a + b).toBe(20);
    // Taking turns gives 10 each; at least a quarter each leaves room for a send that saw one busy.
    expect(Math.min(a, b)).toBeGreaterThanOrEqual(5);
  }, 120_000);
});
