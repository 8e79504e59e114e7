// The README's three-machine story of the hub, run as written on one machine: every line of its
// block in order, in a fresh folder, with `a2a-lite` the built CLI and the hub on a free port.
// Lines ending in `&` are started and left running; the others must succeed.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../cli/run-cli.js';
import { tempHome } from '../fixtures/home.js';
import { freePort, until } from './hub-processes.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const block = /<!-- hub-story -->\n```sh\n([\s\S]*?)```\n<!-- \/hub-story -->/.exec(readme)?.[1] ?? '';

const started: ChildProcess[] = [];
afterEach(() => {
  // Each in a process group of its own: the shell and what it started go together.
  for (const child of started.splice(0)) if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
});

describe('the README hub story', () => {
  it('works as written on one machine', async () => {
    expect(block).toContain('a2a-lite hub');
    const dir = tempHome('readme-hub');
    const port = String(await freePort());
    const cli = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)}`;
    // `export` lines set the environment of every later line, as in one shell.
    const env: NodeJS.ProcessEnv = { ...process.env, A2A_LITE_HOME: dir };
    const outputs: string[] = [];
    for (const raw of block.split('\n')) {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) continue;
      const command = line.replaceAll('a2a-lite ', `${cli} `).replaceAll('7400', port);
      if (command.startsWith('export ')) {
        for (const [, name, value] of command.matchAll(/(\w+)=(\S+)/g)) env[name as string] = value;
        continue;
      }
      if (command.endsWith('&')) {
        const child = spawn('sh', ['-c', command.slice(0, -1)], { cwd: dir, env, stdio: 'ignore', detached: true });
        started.push(child);
        if (command.includes(' hub ')) await until(async () => (await fetch(`http://127.0.0.1:${port}/.well-known/ai-catalog.json`).catch(() => undefined))?.ok || undefined, 15_000, 'the hub');
        continue;
      }
      if (command.includes('--hub')) {
        // A person types the next line after the agents said they were connected.
        await until(async () => ((await (await fetch(`http://127.0.0.1:${port}/.well-known/ai-catalog.json`)).json()) as { entries: unknown[] }).entries.length === 2 || undefined, 15_000, 'both agents');
      }
      const result = spawnSync('sh', ['-c', command], { cwd: dir, env, encoding: 'utf8', timeout: 30_000 });
      expect(result.status, `${line}\n${result.stderr}`).toBe(0);
      outputs.push(result.stdout + result.stderr);
    }
    const [listed, sent] = outputs.slice(-2) as [string, string];
    expect(listed).toMatch(/^translator\tTranslator\ttranslate\t/m);
    expect(listed).toMatch(/^translator-2\tTranslator 2\ttranslate\t/m);
    expect(sent).toContain('Hello, from translate');
    expect(sent).toMatch(/hub chose translator(-2)? \(Translator( 2)?\) for "translate"/);
  }, 60_000);
});
