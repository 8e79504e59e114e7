// The loop guard's trail is carried by what sends on while handling a task (review finding 8,
// its plugin part): the OpenClaw plugin's tools put this agent's id on the trail, and a plan
// served with `serve --plan` passes on the trail its task came with, so a conversation that a
// hub relayed to them and that comes back to them through the hub is refused as a loop.
// Real hub and agents as child processes; the plugin's real tools in this process.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../src/openclaw/config.js';
import { toolsFor } from '../../src/openclaw/plugin.js';
import { BIN, cliAsync } from '../cli/run-cli.js';
import { tempHome } from '../fixtures/home.js';
import { call } from '../openclaw/host-recorder.js';
import { getJson, NODE, script, start, startAgent, startHub, until } from './hub-processes.js';

type HubTask = { agentId: string; state: string };
const tasksAt = async (hub: string): Promise<HubTask[]> => (await getJson(`${hub}/hub/v1/tasks`)).body.tasks as HubTask[];

describe('the trail through the OpenClaw plugin and a served plan', () => {
  it('the plugin puts its own id on the trail: the hub refuses to bring the conversation back to it', async () => {
    const hub = await startHub();
    // The gateway, as the hub knows it: an agent with the plugin's card id.
    await startAgent(hub.url, 'jiajia');
    // An agent that hands every task it gets back to jiajia through the hub.
    const relay = script('relay.sh', `#!/bin/sh\nout=$(${NODE} ${JSON.stringify(BIN)} send --hub "$HUB" jiajia "pass it on" 2>&1)\ncode=$?\nprintf '%s\\n' "$out" >&2\nexit $code\n`);
    await startAgent(hub.url, 'bounce', { exec: relay, env: { HUB: hub.url } });
    await until(async () => ((await getJson(`${hub.url}/hub/v1/agents`)).body.agents as unknown[]).length === 2 || undefined, 10_000, 'two agents');

    const workspace = tempHome('workspace');
    const tools = toolsFor(readConfig({ allowPrivateNetworks: true }), { workspaceDir: workspace, agentId: 'main' }, { config: {} }, { PATH: process.env.PATH ?? '' });
    expect((await call(tools, 'a2a_lite_card_init', { id: 'jiajia', name: 'Jiajia' })).details.ok).toBe(true);

    const direct = await call(tools, 'a2a_lite_send', { target: `${hub.url}/agents/jiajia`, text: 'echo to myself' });
    expect(direct.text).toContain('loop refused: this conversation already passed through jiajia');
    const round = await call(tools, 'a2a_lite_send', { target: `${hub.url}/agents/bounce`, text: 'start the round' });
    expect(round.details).toMatchObject({ ok: true, state: 'failed' });
    expect(round.text).toContain('loop refused: this conversation already passed through jiajia (jiajia → bounce → jiajia)');
    // Nothing reached jiajia through the hub; bounce saw the one task it failed.
    expect((await tasksAt(hub.url)).map((t) => `${t.agentId}:${t.state}`)).toEqual(['bounce:failed']);
  }, 90_000);

  it('a served plan passes on the trail of its task: a plan whose step leads back to it is refused at the hub', async () => {
    const hub = await startHub();
    const dir = tempHome('plan');
    const plan = join(dir, 'plan.yaml');
    writeFileSync(plan, `name: again\nsteps:\n  - id: again\n    agent: ${hub.url}/agents/again\n    text: once more\n    timeout: 60\n`);
    await start(['serve', '--home', join(dir, 'home'), '--store', 'memory', '--plan', plan, '--allow-private-agents', '--hub', hub.url, '--port', 'none']);
    await until(async () => ((await getJson(`${hub.url}/hub/v1/agents`)).body.agents as unknown[]).length === 1 || undefined, 10_000, 'the plan agent');

    const sent = await cliAsync(['send', `${hub.url}/agents/again`, 'go', '--timeout', '90'], { home: tempHome('client') });
    expect(sent.code, sent.stderr).toBe(10);
    expect(sent.stdout).toContain('loop refused: this conversation already passed through again');
    expect((await tasksAt(hub.url)).map((t) => `${t.agentId}:${t.state}`)).toEqual(['again:failed']);
  }, 120_000);
});
