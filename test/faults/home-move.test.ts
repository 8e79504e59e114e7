// The move of an agent's files out of the skill folder (src/home/legacy-home.ts), made by a real
// `a2a-lite tasks list` in an OpenClaw workspace and SIGKILLed at growing delays until kills have
// landed in the middle of it: after every kill the old files are whole and the new home is either
// absent or complete; the command that finally finishes moves everything.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cli } from '../cli/run-cli.js';
import { filesUnder, tempHome } from '../fixtures/home.js';

const TASKS = 400;

/** A workspace whose skill folder holds a card and a ledger of TASKS tasks, as earlier versions kept them. */
function workspace(): { root: string; skill: string } {
  const root = tempHome('move-workspace');
  const skill = join(root, 'skills', 'a2a-lite');
  mkdirSync(skill, { recursive: true });
  writeFileSync(join(skill, 'SKILL.md'), '---\nname: a2a-lite\n---\n');
  expect(cli(['card', 'init', '--id', 'mine', '--name', 'Mine', '--skill', 'research:Research:finds things'], { home: skill }).code).toBe(0);
  for (let i = 0; i < TASKS; i += 1) {
    const folder = join(skill, 'tasks', 'mexico', `task-${i}`);
    mkdirSync(folder, { recursive: true });
    const at = '2026-11-23T00:00:00.000Z';
    const body = `task ${i} ${'x'.repeat(2000)}`;
    const summary = { id: `task-${i}`, peer: 'mexico', role: 'worker', subject: `task ${i}`, state: 'submitted', createdAt: at, updatedAt: at, messages: 1, last: `m${i}`, skill: 'research' };
    const entry = { at, direction: 'in', type: 'task', params: { id: `task-${i}`, skill: 'research' }, body, attachments: [], state: 'submitted' };
    writeFileSync(join(folder, 'v00000001.json'), JSON.stringify({ summary, entry }));
  }
  return { root, skill };
}

const snapshot = (dir: string, skip = 'SKILL.md'): Record<string, string> =>
  Object.fromEntries(filesUnder(dir).filter((path) => !path.endsWith(skip)).map((path) => [path.slice(dir.length), readFileSync(path, 'utf8')]));

function runKilledAfter(root: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.A2A_LITE_HOME;
    const child = spawn(process.execPath, [BIN, 'tasks', 'list'], { cwd: root, env, stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

describe('moving a home out of the skill folder, killed midway', () => {
  it('loses nothing, whenever the command is killed', async () => {
    const { root, skill } = workspace();
    const before = snapshot(skill);
    const target = join(root, '.a2a-lite');
    let midway = 0;
    let kills = 0;
    // Each kill comes later than the last, until one lets the move finish or ten landed inside it.
    for (let delay = 30; delay < 5_000 && midway < 10 && !existsSync(target); delay += 5) {
      await runKilledAfter(root, delay);
      kills += 1;
      if (readdirSync(root).some((name) => name.startsWith('.a2a-lite.moving-'))) midway += 1;
      expect(snapshot(skill)).toEqual(before);
      if (existsSync(target)) expect(snapshot(target)).toEqual(before);
    }
    expect(midway, `${kills} kills`).toBeGreaterThan(0);
    const done = cli(['tasks', 'list', '--json'], { cwd: root });
    expect(done.code).toBe(0);
    expect(snapshot(target)).toEqual(before);
    expect(readdirSync(root).filter((name) => name.includes('.moving-'))).toEqual([]);
    expect(JSON.parse(done.stdout)).toHaveLength(TASKS);
  }, 120_000);
});
