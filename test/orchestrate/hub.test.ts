// Plans whose skills are routed by an a2a-lite hub: real `hub` and `serve --hub` processes on
// 127.0.0.1; a `skill:` step goes to the agent the hub ranks first, and `each: {agents: SKILL}`
// fans out to every agent the hub has up for the skill.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliAsync } from '../cli/run-cli.js';
import { tempHome } from '../fixtures/home.js';
import { getJson, startAgent, startHub, until } from '../hub/hub-processes.js';

const WORK = ['work:Work:Does the work'];

describe('a2a-lite run with a hub', () => {
  it('routes skill steps through the hub and fans out to every agent it has up for the skill', async () => {
    const hub = await startHub();
    await startAgent(hub.url, 'h1', { skills: WORK });
    await startAgent(hub.url, 'h2', { skills: WORK });
    await until(async () => (((await getJson(`${hub.url}/hub/v1/route?skill=work`)).body.candidates as unknown[]).length === 2 ? true : undefined), 10_000, 'two candidates');
    const dir = tempHome('hub-plan');
    const plan = join(dir, 'plan.yaml');
    writeFileSync(plan, `steps:\n  - id: one\n    skill: work\n    text: echo routed\n  - id: all\n    each: { agents: work }\n    text: echo {{item.name}} after {{steps.one.text}}\n`);
    // Without a hub, no known agent offers the skill: refused before anything is sent.
    const refused = await cliAsync(['run', plan], { home: join(dir, 'home'), cwd: dir });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('steps.one.agent: no known A2A agent offers the skill "work"');

    const { code, stdout, stderr } = await cliAsync(['run', plan, '--hub', hub.url, '--json'], { home: join(dir, 'home'), cwd: dir });
    expect(code, stderr).toBe(0);
    const events = stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.find((e) => e.key === 'one' && e.state === 'completed')).toMatchObject({ agent: 'h1', text: 'echo: routed' });
    const items = events.filter((e) => e.step === 'all' && e.index !== undefined && e.state === 'completed');
    expect(items.map((e) => `${e.agent}: ${e.text}`).sort()).toEqual(['h1: echo: Agent h1 after echo: routed', 'h2: echo: Agent h2 after echo: routed']);
  }, 60_000);

  it('moves a skill step on to the next agent with the skill when the one the hub ranked first stopped answering', async () => {
    const hub = await startHub();
    const first = await startAgent(hub.url, 'h1', { skills: WORK });
    await startAgent(hub.url, 'h2', { skills: WORK });
    await until(async () => (((await getJson(`${hub.url}/hub/v1/route?skill=work`)).body.candidates as { agent: { id: string } }[]).map((c) => c.agent.id).join() === 'h1,h2' ? true : undefined), 10_000, 'h1 ranked first, then h2');
    const dir = tempHome('hub-failover');
    const plan = join(dir, 'plan.yaml');
    writeFileSync(plan, `steps:\n  - id: one\n    skill: work\n    text: echo moved on\n`);
    // Frozen, as a machine whose network went away: its link stays open and says nothing.
    first.child.kill('SIGSTOP');
    try {
      const { code, stdout, stderr } = await cliAsync(['run', plan, '--hub', hub.url, '--json'], { home: join(dir, 'home'), cwd: dir });
      expect(code, stderr).toBe(0);
      const events = stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(events.find((e) => e.key === 'one' && e.state === 'completed')).toMatchObject({ agent: 'h2', text: 'echo: moved on' });
    } finally {
      first.child.kill('SIGCONT');
    }
  }, 60_000);
});
