// The loop guard with real processes: three agents behind a hub, each of which hands its task on
// to the next with `a2a-lite send --hub` (a → b → c → a). The trail travels in the message
// metadata and through each program's environment, and the hub refuses the hop back to a.
import { describe, expect, it } from 'vitest';
import { BIN, cliAsync } from '../cli/run-cli.js';
import { tempHome } from '../fixtures/home.js';
import { getJson, NODE, script, startAgent, startHub, until } from './hub-processes.js';

describe('the loop guard', () => {
  it('stops a cycle of three, saying where it went round', async () => {
    const hub = await startHub();
    // What the program's own send says goes to stderr, so that a failure carries it back.
    const relay = script('relay.sh', `#!/bin/sh\nout=$(${NODE} ${JSON.stringify(BIN)} send --hub "$HUB" "$NEXT" "pass it on" 2>&1)\ncode=$?\nprintf '%s\\n' "$out" >&2\nexit $code\n`);
    for (const [id, next] of [
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'a'],
    ] as const) {
      await startAgent(hub.url, id, { exec: relay, env: { HUB: hub.url, NEXT: next } });
    }
    await until(async () => ((await getJson(`${hub.url}/hub/v1/agents`)).body.agents as unknown[]).length === 3 || undefined, 10_000, 'three agents');

    const sent = await cliAsync(['send', '--hub', hub.url, 'a', 'start the round'], { home: tempHome('client') });
    expect(sent.code).toBe(10);
    expect(sent.stdout).toContain('loop refused: this conversation already passed through a (a → b → c → a)');
    // Each agent saw the task it was handed, and each one failed.
    const tasks = (await getJson(`${hub.url}/hub/v1/tasks`)).body.tasks as { agentId: string; state: string }[];
    expect(new Set(tasks.map((t) => `${t.agentId}:${t.state}`))).toEqual(new Set(['a:failed', 'b:failed', 'c:failed']));
  }, 90_000);
});
