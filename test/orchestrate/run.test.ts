// `a2a-lite run` as a user runs it: the built binary against real `serve --exec` agents on
// 127.0.0.1, with what ran checked at the agents (their log of starts, stops and cancels).
import { mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliAsync } from '../cli/run-cli.js';
import { tempHome } from '../fixtures/home.js';
import { AgentSet, unique, type TestAgent } from './agents.js';

const set = new AgentSet();
let alpha: TestAgent;
let beta: TestAgent;
let broken: TestAgent;

beforeAll(async () => {
  [alpha, beta, broken] = await Promise.all([set.start('alpha', ['work', 'review']), set.start('beta', ['review']), set.start('broken', ['work'], { WORKER_FAIL: '1' })]);
}, 30_000);

afterAll(() => set.close());

/** Writes `yaml` as plan.yaml in a fresh folder (which is also the client's home) and returns both. */
function planIn(yaml: string): { dir: string; plan: string } {
  const dir = tempHome('plan');
  const plan = join(dir, 'plan.yaml');
  writeFileSync(plan, yaml.replaceAll('ALPHA', alpha.url).replaceAll('BETA', beta.url).replaceAll('BROKEN', broken.url));
  return { dir, plan };
}

const run = (dir: string, args: string[]) => cliAsync(['run', ...args], { home: join(dir, 'home'), cwd: dir });
const events = (stdout: string): Array<Record<string, unknown>> => stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('a2a-lite run', () => {
  it('runs a serial chain that passes a file along, each step after the one before', async () => {
    const tag = unique('chain');
    const { dir, plan } = planIn(`
name: chain
steps:
  - id: draft
    agent: ALPHA
    text: write ${tag}.md first line
  - id: edit
    agent: BETA
    text: append ${tag}.md second line
    attach: ["{{steps.draft.files}}"]
  - id: polish
    agent: ALPHA
    text: append ${tag}.md third line
    attach: ["{{steps.edit.files}}"]
output:
  text: "{{steps.polish.text}} ({{steps.draft.state}})"
  files: [polish]
`);
    const { code, stdout, stderr } = await run(dir, [plan]);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain(`appended to ${tag}.md (completed)`);
    const saved = /\[附件: (.+)\]/.exec(stdout)?.[1] as string;
    expect(readFileSync(saved, 'utf8')).toBe('first line\nsecond line\nthird line\n');
    const lines = set.lines().filter((l) => l.text.includes(tag));
    expect(lines.map((l) => `${l.event} ${l.agent} ${l.text.split(' ')[0]}`)).toEqual(['start alpha write', 'stop alpha write', 'start beta append', 'stop beta append', 'start alpha append', 'stop alpha append']);
    expect(lines.filter((l) => l.event === 'start').map((l) => l.attachments)).toEqual([[], [`${tag}.md`], [`${tag}.md`]]);
    // One context for the whole run, and the plan's run in the ledger.
    expect(new Set(lines.map((l) => l.context)).size).toBe(1);
    const runId = readdirSync(join(dir, 'home', 'runs'))[0] as string;
    const shown = JSON.parse((await cliAsync(['runs', 'show', runId, '--json'], { home: join(dir, 'home') })).stdout);
    expect(shown.run.contextId).toBe(lines[0]?.context);
    const taskOf = (key: string): string => shown.steps.find((s: { key: string }) => s.key === key).taskId;
    const task = taskOf('edit');
    const record = JSON.parse((await cliAsync(['tasks', 'show', task, '--json'], { home: join(dir, 'home') })).stdout);
    expect(record.history[0].params).toMatchObject({ run: runId, step: 'edit' });
    // At the agent, the message of each step names the task it builds on (A2A 1.0 referenceTaskIds).
    const got = await fetch(`${beta.url}/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: task, historyLength: 10 } }),
    });
    const history = ((await got.json()) as { result: { history: Array<{ role: string; referenceTaskIds?: string[]; contextId?: string }> } }).result.history;
    expect(history.find((m) => m.role === 'ROLE_USER')).toMatchObject({ referenceTaskIds: [taskOf('draft')], contextId: shown.run.contextId });
  });

  it('fans out 20 subtasks with --max-parallel 5: never more than 5 at the agents at once', async () => {
    const tag = unique('fan');
    const items = Array.from({ length: 20 }, (_, i) => `${tag}-${i}`);
    const { dir, plan } = planIn(`
steps:
  - id: many
    agent: ALPHA
    each: [${items.join(', ')}]
    text: sleep 300 {{item}}
`);
    const { code, stdout, stderr } = await run(dir, [plan, '--max-parallel', '5', '--json']);
    expect(code, stderr).toBe(0);
    for (const item of items) expect(set.started(`sleep 300 ${item}`), item).toBe(1);
    const peak = set.peak(tag);
    expect(peak).toBeLessThanOrEqual(5);
    expect(peak).toBeGreaterThanOrEqual(2);
    const end = events(stdout).at(-1);
    expect(end).toMatchObject({ type: 'run', state: 'completed' });
    expect((end?.output as { text: string }).text.split('\n\n')).toHaveLength(20);
  });

  it.each([
    ['approve', 'publish'],
    ['reject', 'revise'],
  ])('takes the branch its condition chooses: verdict %s runs %s only', async (verdict, branch) => {
    const tag = unique('branch');
    const { dir, plan } = planIn(`
inputs: [verdict]
steps:
  - id: review
    agent: BETA
    text: 'json {"verdict": "{{inputs.verdict}}", "tag": "${tag}"}'
  - id: publish
    agent: ALPHA
    when: { step: review, data: verdict, equals: approve }
    text: echo publish ${tag}
  - id: revise
    agent: ALPHA
    when: { step: review, data: verdict, equals: approve, not: true }
    text: echo revise ${tag}
  - id: tell
    agent: ALPHA
    needs: [publish, revise]
    text: echo told {{steps.publish.state}} {{steps.revise.state}} ${tag}
`);
    const { code, stderr } = await run(dir, [plan, '--input', `verdict=${verdict}`]);
    expect(code, stderr).toBe(0);
    const other = branch === 'publish' ? 'revise' : 'publish';
    expect(set.started(`echo ${branch} ${tag}`)).toBe(1);
    expect(set.started(`echo ${other} ${tag}`)).toBe(0);
    expect(set.started(`echo told ${branch === 'publish' ? 'completed skipped' : 'skipped completed'} ${tag}`)).toBe(1);
  });

  it('tries a failing step again after a pause, then gives it to the fallback agent', async () => {
    const tag = unique('fallback');
    const { dir, plan } = planIn(`
steps:
  - id: fragile
    agent: BROKEN
    text: echo ${tag}
    retries: 1
    backoff: 0.05
    fallback: ALPHA
  - id: after
    agent: BETA
    text: echo after {{steps.fragile.agent}} {{steps.fragile.text}}
`);
    const { code, stdout, stderr } = await run(dir, [plan, '--json']);
    expect(code, stderr).toBe(0);
    const starts = set.lines().filter((l) => l.event === 'start' && l.text === `echo ${tag}`);
    expect(starts.map((l) => l.agent)).toEqual(['broken', 'broken', 'alpha']);
    expect(set.started(`echo after alpha ${tag}`)).toBe(1);
    const fragile = events(stdout).filter((e) => e.key === 'fragile' && e.state === 'completed');
    expect(fragile).toMatchObject([{ agent: 'alpha', attempt: 3 }]);
  });

  it('fails the run (exit 10) when the fallback fails too, and skips the steps after it', async () => {
    const tag = unique('nofallback');
    const { dir, plan } = planIn(`
steps:
  - id: fragile
    agent: BROKEN
    text: fail ${tag}
    fallback: ALPHA
  - id: after
    agent: BETA
    text: echo after ${tag}
    needs: fragile
`);
    const { code, stdout } = await run(dir, [plan, '--json']);
    expect(code).toBe(10);
    expect(set.lines().filter((l) => l.event === 'start' && l.text === `fail ${tag}`).map((l) => l.agent)).toEqual(['broken', 'alpha']);
    expect(set.started(`echo after ${tag}`)).toBe(0);
    expect(events(stdout).at(-1)).toMatchObject({ type: 'run', state: 'failed', error: expect.stringContaining('step fragile ended failed') });
  });

  it('cancels an attempt at its agent when it passes its timeout, and fails the step', async () => {
    const tag = unique('timeout');
    const { dir, plan } = planIn(`
steps:
  - id: slow
    agent: ALPHA
    text: sleep 20000 ${tag}
    timeout: 1
`);
    const { code, stdout } = await run(dir, [plan, '--json']);
    expect(code).toBe(10);
    expect(events(stdout).find((e) => e.key === 'slow' && e.state === 'failed')).toMatchObject({ error: expect.stringContaining('timed out after 1 s; cancelled at the agent') });
    expect(set.lines().filter((l) => l.event === 'cancel' && l.text === `sleep 20000 ${tag}`)).toHaveLength(1);
  });

  it('fans out over every known agent with a skill, one subtask each', async () => {
    const tag = unique('agents');
    const { dir, plan } = planIn(`
steps:
  - id: ask
    each: { agents: review }
    text: echo {{item.agent}} ${tag}
`);
    for (const agent of [alpha, beta]) expect((await cliAsync(['discover', agent.url], { home: join(dir, 'home') })).code).toBe(0);
    const { code, stderr } = await run(dir, [plan]);
    expect(code, stderr).toBe(0);
    const starts = set.lines().filter((l) => l.event === 'start' && l.text.endsWith(tag));
    expect(starts.map((l) => `${l.agent}: ${l.text}`).sort()).toEqual([`alpha: echo alpha ${tag}`, `beta: echo beta ${tag}`]);
  });

  it('keeps no credential an agent answered with in the run\'s files', async () => {
    const tag = unique('leak');
    const { dir, plan } = planIn(`
steps:
  - id: leaky
    agent: ALPHA
    text: leak ${tag}
`);
    const { code, stdout } = await run(dir, [plan]);
    expect(code).toBe(0);
    expect(stdout).toContain(`here: ghp_`);
    const runs = join(dir, 'home', 'runs');
    const runId = readdirSync(runs)[0] as string;
    const saved = [readFileSync(join(runs, runId, 'run.json'), 'utf8'), readFileSync(join(runs, runId, 'steps', 'leaky.json'), 'utf8')];
    for (const text of saved) {
      expect(text).not.toContain('ghp_a1B2');
      expect(text).toContain(`here: [redacted: GitHub token] ${tag}`);
    }
  });

  it('checks a plan with --check and prints the order of its steps, sending nothing', async () => {
    const tag = unique('check');
    const { dir, plan } = planIn(`
steps:
  - id: last
    agent: ALPHA
    text: echo {{steps.first.text}} {{steps.second.text}} ${tag}
  - id: second
    agent: ALPHA
    needs: first
    text: echo second ${tag}
  - id: first
    agent: ALPHA
    text: echo first ${tag}
`);
    const { code, stdout } = await run(dir, [plan, '--check']);
    expect(code).toBe(0);
    expect(stdout).toBe('first\nsecond (after first)\nlast (after first, second)\n');
    expect(set.lines().filter((l) => l.text.endsWith(tag))).toEqual([]);
  });

  it('refuses a bad plan before anything is sent, naming the step and field', async () => {
    const tag = unique('bad');
    const { dir, plan } = planIn(`
steps:
  - id: first
    agent: ALPHA
    text: echo ${tag}
  - id: second
    agent: ALPHA
    text: echo {{steps.frist.text}}
`);
    const { code, stderr } = await run(dir, [plan]);
    expect(code).toBe(3);
    expect(stderr).toContain('INVALID_PLAN: plan: steps.second.text: {{steps.frist.text}} names no step of the plan');
    expect(set.started(`echo ${tag}`)).toBe(0);
  });

  it.each([
    ['a file outside the plan\'s folder', '../outside.txt', 6, 'FORBIDDEN: steps.first.attach[0]: "../outside.txt" lies outside the plan\'s folder'],
    ['a file that is not there', 'missing.txt', 4, 'FILE_NOT_FOUND: plan: steps.first.attach[0]: no file "missing.txt"'],
  ])('refuses to attach %s before anything is sent', async (_what, file, exit, message) => {
    const tag = unique('attach');
    const { dir, plan } = planIn(`
steps:
  - id: first
    agent: ALPHA
    text: echo ${tag}
    attach: [${file}]
`);
    // The plan in a folder of its own, with a file beside that folder.
    mkdirSync(join(dir, 'sub'));
    renameSync(plan, join(dir, 'sub', 'plan.yaml'));
    writeFileSync(join(dir, 'outside.txt'), 'secret');
    const { code, stderr } = await run(dir, [join(dir, 'sub', 'plan.yaml')]);
    expect(code).toBe(exit);
    expect(stderr).toContain(message);
    expect(set.started(`echo ${tag}`)).toBe(0);
  });
});

