// The plan in the README runs as written: its agent program and its plan are read from the
// README itself, the agent is served on 127.0.0.1 (on a free port, put in place of 7331), and
// the README's command line is run against it.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cli, cliAsync } from '../cli/run-cli.js';
import { tempHome } from '../fixtures/home.js';
import { inOrder } from '../../src/orchestrate/plan-check.js';
import { parsePlan } from '../../src/orchestrate/plan-file.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
let server: ChildProcess | undefined;

afterAll(() => {
  server?.kill('SIGTERM');
});

/** The text between `start` and the first `end` after it, in the README. */
function between(start: string, end: string): string {
  const from = readme.indexOf(start);
  expect(from, start).toBeGreaterThan(-1);
  const to = readme.indexOf(end, from + start.length);
  return readme.slice(from + start.length, to);
}

describe('the plan in docs/orchestration.md', () => {
  it('is read and checked as written, each step waiting for what it reads', async () => {
    const doc = readFileSync(new URL('../../docs/orchestration.md', import.meta.url), 'utf8');
    const yaml = /```yaml\n([\s\S]*?)```/.exec(doc)?.[1] as string;
    const plan = await parsePlan(yaml, 'plan.yaml');
    expect(plan.inputs).toEqual({ topic: { default: 'AI agent frameworks' }, audience: {} });
    expect(inOrder(plan.steps).map((s) => `${s.id} after ${s.needs.join(',') || '-'}`)).toEqual([
      'draft after -',
      'review after draft',
      'publish after draft,review',
      'revise after review',
      'translate after publish,revise,draft',
    ]);
    expect(plan.steps[0]).toMatchObject({ target: { skill: 'writing' }, timeoutMs: 300_000, retries: 2, backoffMs: 5_000, fallback: { agent: 'http://127.0.0.1:7440' } });
    expect(plan.steps[4]?.each).toEqual({ kind: 'list', items: ['fr', 'de', 'zh'] });
  });
});

describe('the README plan', () => {
  it('runs as written against the README agent', async () => {
    const project = tempHome('readme');
    const program = between('$ cat agent.sh\n', '\n\n$ ');
    writeFileSync(join(project, 'agent.sh'), `${program}\n`);
    chmodSync(join(project, 'agent.sh'), 0o755);
    const serverHome = join(project, 'server');
    expect(cli(['card', 'init', '--id', 'jiajia', '--name', '佳佳', '--skill', 'research:Research:finds things out'], { home: serverHome }).code).toBe(0);
    server = spawn(process.execPath, [BIN, 'serve', '--home', serverHome, '--host', '127.0.0.1', '--port', '0', '--store', 'memory', '--json', '--exec', './agent.sh'], { cwd: project, stdio: ['ignore', 'pipe', 'inherit'] });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      server?.stdout?.on('data', (chunk) => {
        out += chunk;
        if (out.includes('\n')) resolve((JSON.parse(out.split('\n')[0] as string) as { url: string }).url);
      });
      server?.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
    });
    const plan = between('```yaml\n# plan.yaml\n', '```');
    writeFileSync(join(project, 'plan.yaml'), plan.replaceAll('http://127.0.0.1:7331', url));

    const command = between('$ a2a-lite run ', '\n');
    const args = [...command.matchAll(/(\S+?)="([^"]*)"|(\S+)/g)].map((m) => (m[3] ?? `${m[1]}=${m[2]}`));
    expect(args).toEqual(['plan.yaml', '--input', 'topic=A2A agents']);
    const { code, stdout, stderr } = await cliAsync(['run', ...args], { home: join(project, 'client'), cwd: project });
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^plan two-angles · run \S+ \(started\)$/m);
    for (const line of ['market: sending at jiajia', 'tech: sending at jiajia']) expect(stdout).toContain(line);
    expect(stdout).toMatch(/^summary: completed at jiajia task=\S+ · 调研报告已完成，见附件。$/m);
    expect(stdout).toMatch(/^run \S+ completed\n\n调研报告已完成，见附件。\n\[附件: .+report\.md\]$/m);
    const report = /\[附件: (.+)\]/.exec(stdout)?.[1] as string;
    expect(readFileSync(report, 'utf8')).toContain('Summarise for A2A agents: 调研报告已完成，见附件。 调研报告已完成，见附件。');
  });
});
