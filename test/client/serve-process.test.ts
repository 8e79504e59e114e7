// `a2a-lite send` against `a2a-lite serve` itself: both as real processes, the server with its
// SQLite store and a program (fixtures/behaviours.mjs) doing the work, over 127.0.0.1.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cli, cliAsync } from '../cli/run-cli.js';
import { tempHome } from '../fixtures/home.js';

const PROGRAM = fileURLToPath(new URL('./fixtures/behaviours.mjs', import.meta.url));
let server: ChildProcess;
let url = '';
let home = '';
let serverHome = '';
const taskIdIn = (text: string): string => /task=([0-9a-zA-Z-]+)/.exec(text)?.[1] ?? '';

beforeAll(async () => {
  // Homes that outlive one test (tempHome's are removed after each).
  serverHome = mkdtempSync(join(tmpdir(), 'a2a-lite-served-'));
  cli(['card', 'init', '--id', 'worker', '--name', 'Worker', '--skill', 'echo:Echo:Says it back', '--skill', 'email:Email:Sends email'], { home: serverHome });
  server = spawn(process.execPath, [BIN, 'serve', '--home', serverHome, '--port', '0', '--json', '--exec', `${JSON.stringify(process.execPath)} ${JSON.stringify(PROGRAM)}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout?.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve((JSON.parse(out.split('\n')[0] as string) as { url: string }).url);
    });
    server.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
  home = mkdtempSync(join(tmpdir(), 'a2a-lite-client-'));
  const found = await cliAsync(['discover', url], { home });
  expect(found.code, found.stderr).toBe(0);
}, 30_000);

afterAll(async () => {
  if (server?.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
  }
  for (const dir of [home, serverHome]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a2a-lite send against a2a-lite serve', () => {
  it('streams a task, and answers a blocking one', async () => {
    const streamed = await cliAsync(['send', 'worker', 'echo hello'], { home });
    expect(streamed.code, streamed.stderr).toBe(0);
    const id = taskIdIn(streamed.stdout);
    expect(streamed.stdout).toContain(`[A2A:status task=${id} state=working]\nworking on it`);
    expect(streamed.stdout).toContain(`[A2A:result task=${id} state=completed]\necho: hello`);
    const blocking = await cliAsync(['send', 'worker', 'echo once', '--no-stream'], { home });
    expect(blocking.stdout).toContain('state=completed]\necho: once');
  });

  it('shows progress, and asks and continues with --reply', async () => {
    const slow = await cliAsync(['send', 'worker', 'slow 3'], { home });
    expect(slow.stdout).toMatch(/state=working progress=25%\]\nstep 1 of 3/);
    expect(slow.stdout).toContain('state=completed]\ndone after 3 steps');
    const asked = await cliAsync(['send', 'worker', 'ask 发给谁？'], { home });
    expect(asked.code).toBe(13);
    const id = taskIdIn(asked.stdout);
    const answered = await cliAsync(['send', '--reply', '鲁伊科斯塔', '--task', id], { home });
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.stdout).toContain(`[A2A:result task=${id} state=completed]\ngot: 鲁伊科斯塔`);
  });

  it('sends files and receives them', async () => {
    const work = tempHome('work');
    writeFileSync(join(work, 'a.txt'), 'hello');
    const sent = await cliAsync(['send', 'worker', 'files-in', '--attach', 'a.txt'], { home, cwd: work });
    expect(sent.stdout).toContain('received: a.txt (5 bytes)');
    const got = await cliAsync(['send', 'worker', 'file'], { home });
    const id = taskIdIn(got.stdout);
    expect(got.stdout).toContain('here is the report\n[附件: report.md]');
    expect(readFileSync(join(home, 'downloads', id, 'report.md'), 'utf8')).toBe('# Report\n\nAgents talk.\n');
  });

  it('ends with the exit code of each outcome, and cancels at the agent', async () => {
    expect((await cliAsync(['send', 'worker', 'fail out of paper'], { home })).code).toBe(10);
    expect((await cliAsync(['send', 'worker', 'reject'], { home })).code).toBe(11);
    const waited = await cliAsync(['send', 'worker', 'slow 50', '--timeout', '0.5'], { home });
    expect(waited.code).toBe(15);
    const id = taskIdIn(waited.stdout);
    const cancelled = await cliAsync(['tasks', 'cancel', id], { home });
    expect(cancelled.code).toBe(12);
    expect(JSON.parse((await cliAsync(['tasks', 'show', id, '--json'], { home })).stdout).state).toBe('cancelled');
  });
});
