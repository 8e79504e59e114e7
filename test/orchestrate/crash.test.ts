// A run killed with SIGKILL mid-plan and resumed with --resume, and a run interrupted with
// Ctrl-C: against real `serve --exec` agents on 127.0.0.1, checked at the agents that no step
// was given twice and that every running subtask was cancelled there.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliAsync } from '../cli/run-cli.js';
import { tempHome } from '../fixtures/home.js';
import { AgentSet, unique, type TestAgent } from './agents.js';

const set = new AgentSet();
let alpha: TestAgent;

beforeAll(async () => {
  alpha = await set.start('alpha');
}, 30_000);

afterAll(() => set.close());


/**
 * Starts `a2a-lite run PLAN --json ...extra`, sends `signal` once `ready` holds for the events
 * so far (checked as each line arrives), and resolves when it has gone.
 */
function runUntil(dir: string, plan: string, ready: (events: Array<Record<string, unknown>>) => boolean, signal: NodeJS.Signals, extra: string[] = []): Promise<{ code: number | null; signal: string | null; events: Array<Record<string, unknown>>; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'run', plan, '--json', ...extra], { cwd: dir, env: { ...process.env, A2A_LITE_HOME: join(dir, 'home') }, stdio: ['ignore', 'pipe', 'pipe'] });
    const events: Array<Record<string, unknown>> = [];
    let buffer = '';
    let stderr = '';
    let sent = false;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n')) !== -1) {
        events.push(JSON.parse(buffer.slice(0, end)) as Record<string, unknown>);
        buffer = buffer.slice(end + 1);
      }
      if (!sent && ready(events)) {
        sent = true;
        child.kill(signal);
      }
    });
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, how) => resolve({ code, signal: how, events, stderr }));
  });
}

function planIn(yaml: string): { dir: string; plan: string } {
  const dir = tempHome('crash');
  const plan = join(dir, 'plan.yaml');
  writeFileSync(plan, yaml.replaceAll('ALPHA', alpha.url));
  return { dir, plan };
}

const running = (key: string) => (events: Array<Record<string, unknown>>) => events.some((e) => e.key === key && e.state === 'running' && typeof e.task === 'string');

describe('a2a-lite run after SIGKILL', () => {
  it.each([
    ['following the running step by its task id', false],
    ['sending a step whose send may not have arrived again under the same Idempotency-Key', true],
  ])('--resume continues the run %s; no step reaches an agent twice', async (_how, beforeTaskId) => {
    const tag = unique('resume');
    const { dir, plan } = planIn(`
steps:
  - id: first
    agent: ALPHA
    text: echo first ${tag}
  - id: slow
    agent: ALPHA
    text: sleep 1500 slow ${tag}
    needs: first
  - id: last
    agent: ALPHA
    text: echo last {{steps.slow.text}}
`);
    const killed = await runUntil(dir, plan, running('slow'), 'SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    const runId = killed.events[0]?.run as string;
    const stepFile = join(dir, 'home', 'runs', runId, 'steps', 'slow.json');
    const saved = JSON.parse(readFileSync(stepFile, 'utf8'));
    expect(saved).toMatchObject({ state: 'running', taskId: expect.any(String), messageId: expect.any(String) });
    if (beforeTaskId) {
      // As if the kill came after the send went out but before the task id was saved.
      writeFileSync(stepFile, JSON.stringify({ ...saved, state: 'sending', taskId: undefined, tasks: [] }));
    }
    const listed = await cliAsync(['runs', 'list', '--json'], { home: join(dir, 'home') });
    expect(JSON.parse(listed.stdout)).toMatchObject([{ id: runId, state: 'stopped' }]);

    const resumed = await cliAsync(['run', '--resume', runId, '--json'], { home: join(dir, 'home'), cwd: dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(set.started(`echo first ${tag}`)).toBe(1);
    expect(set.started(`sleep 1500 slow ${tag}`)).toBe(1);
    expect(set.started(`echo last slow ${tag}`)).toBe(1);
    const after = JSON.parse(readFileSync(stepFile, 'utf8'));
    expect(after).toMatchObject({ state: 'completed', taskId: saved.taskId, tasks: [saved.taskId], attempt: 1 });
    const shown = JSON.parse((await cliAsync(['runs', 'show', runId, '--json'], { home: join(dir, 'home') })).stdout);
    expect(shown.run.state).toBe('completed');
    // A run that ended is given back as it is: nothing is sent again.
    const again = await cliAsync(['run', '--resume', runId, '--json'], { home: join(dir, 'home'), cwd: dir });
    expect(again.code).toBe(0);
    expect(set.started(`echo last slow ${tag}`)).toBe(1);
  });

  it('--resume continues a fan-out killed midway: items that ended are kept, running ones followed, the rest sent once', async () => {
    const tag = unique('fanresume');
    const { dir, plan } = planIn(`
steps:
  - id: many
    agent: ALPHA
    each: [a, b, c, d, e, f]
    text: sleep 700 {{item}} ${tag}
`);
    // Killed once one item has ended and others run, with two at most at once.
    const killed = await runUntil(
      dir,
      plan,
      (events) => {
        const ended = events.filter((e) => e.step === 'many' && e.index !== undefined && e.state === 'completed').length;
        return ended >= 1 && events.some((e) => e.index !== undefined && e.state === 'running' && typeof e.task === 'string' && !events.some((f) => f.key === e.key && f.state === 'completed'));
      },
      'SIGKILL',
      ['--max-parallel', '2'],
    );
    const runId = killed.events[0]?.run as string;
    const before = set.lines().filter((l) => l.event === 'start' && l.text.endsWith(tag)).length;
    expect(before).toBeGreaterThanOrEqual(2);
    expect(before).toBeLessThan(6);
    const resumed = await cliAsync(['run', '--resume', runId, '--json', '--max-parallel', '2'], { home: join(dir, 'home'), cwd: dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    for (const item of ['a', 'b', 'c', 'd', 'e', 'f']) expect(set.started(`sleep 700 ${item} ${tag}`), item).toBe(1);
    expect(set.peak(tag)).toBeLessThanOrEqual(2);
    const end = resumed.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).at(-1);
    expect((end?.output as { text: string }).text.split('\n\n')).toHaveLength(6);
  });

  it('refuses --resume of a run id that does not exist', async () => {
    const dir = tempHome('crash');
    const { code, stderr } = await cliAsync(['run', '--resume', '20260101-000000-abcdef'], { home: join(dir, 'home'), cwd: dir });
    expect(code).toBe(4);
    expect(stderr).toContain('RUN_NOT_FOUND');
  });
});

describe('a2a-lite run and Ctrl-C', () => {
  it('cancels every running subtask at its agent and exits 130', async () => {
    const tag = unique('sigint');
    const { dir, plan } = planIn(`
steps:
  - id: wait
    agent: ALPHA
    each: [a, b, c]
    text: sleep 30000 {{item}} ${tag}
  - id: never
    agent: ALPHA
    needs: wait
    text: echo never ${tag}
`);
    // Each worker says "halfway" once it has started (and can hear a cancel).
    const all = (events: Array<Record<string, unknown>>) => ['wait.0', 'wait.1', 'wait.2'].every((key) => events.some((e) => e.key === key && e.progress === 50));
    const { code, events } = await runUntil(dir, plan, all, 'SIGINT');
    expect(code).toBe(130);
    const cancels = set.lines().filter((l) => l.event === 'cancel' && l.text.endsWith(tag));
    expect(cancels.map((l) => l.text.split(' ')[2]).sort()).toEqual(['a', 'b', 'c']);
    expect(set.started(`echo never ${tag}`)).toBe(0);
    expect(events.at(-1)).toMatchObject({ type: 'run', state: 'cancelled' });
    const runId = readdirSync(join(dir, 'home', 'runs'))[0] as string;
    const shown = JSON.parse((await cliAsync(['runs', 'show', runId, '--json'], { home: join(dir, 'home') })).stdout);
    expect(shown.steps.filter((s: { key: string }) => s.key.startsWith('wait.')).map((s: { state: string }) => s.state)).toEqual(['cancelled', 'cancelled', 'cancelled']);
  });

  it('--resume after Ctrl-C starts the cancelled steps again and finishes the run', async () => {
    const tag = unique('again');
    const { dir, plan } = planIn(`
steps:
  - id: first
    agent: ALPHA
    text: echo first ${tag}
  - id: wait
    agent: ALPHA
    needs: first
    text: sleep 1200 wait ${tag}
  - id: last
    agent: ALPHA
    text: echo last {{steps.wait.text}}
`);
    const stopped = await runUntil(dir, plan, (events) => events.some((e) => e.key === 'wait' && e.progress === 50), 'SIGINT');
    expect(stopped.code).toBe(130);
    const runId = stopped.events[0]?.run as string;
    const resumed = await cliAsync(['run', '--resume', runId], { home: join(dir, 'home'), cwd: dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(set.started(`echo first ${tag}`)).toBe(1);
    expect(set.started(`sleep 1200 wait ${tag}`)).toBe(2);
    expect(set.lines().filter((l) => l.event === 'cancel' && l.text === `sleep 1200 wait ${tag}`)).toHaveLength(1);
    expect(set.started(`echo last wait ${tag}`)).toBe(1);
    const shown = JSON.parse((await cliAsync(['runs', 'show', runId, '--json'], { home: join(dir, 'home') })).stdout);
    expect(shown.steps.find((s: { key: string }) => s.key === 'wait')).toMatchObject({ state: 'completed', tasks: [expect.any(String), expect.any(String)] });
  });
});
