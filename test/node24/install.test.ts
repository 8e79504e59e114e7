// The package as OpenClaw installs a skill's `node` spec: `npm pack`, then `npm install -g
// --ignore-scripts` into a prefix of its own, run on Node 24. No install script runs, so the
// better-sqlite3 addon is never built: the CLI, `serve` with its default SQLite store (on
// node:sqlite) and a task through it must work all the same.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../fixtures/home.js';
import { needsTool } from '../needs-tool.js';
import { hasNode24, NODE24_BIN, NODE24_MISSING } from './node24.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const noNode24 = needsTool('the install on Node 24 (test/node24)', hasNode24, NODE24_MISSING);

describe.skipIf(noNode24)('a2a-lite installed with npm install -g --ignore-scripts, on Node 24', () => {
  it('runs the CLI and serves tasks from its SQLite store', async () => {
    const work = tempHome('install');
    const packed = spawnSync('npm', ['pack', '--ignore-scripts', '--pack-destination', work, '--silent'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    expect(packed.status, packed.stderr).toBe(0);
    const tarball = join(work, packed.stdout.trim().split('\n').at(-1) as string);
    const prefix = join(work, 'prefix');
    const installed = spawnSync('npm', ['install', '-g', '--ignore-scripts', '--no-audit', '--no-fund', tarball], {
      encoding: 'utf8',
      timeout: 240_000,
      env: { ...process.env, NPM_CONFIG_PREFIX: prefix },
    });
    expect(installed.status, installed.stderr).toBe(0);
    // The addon was not built: what OpenClaw's installer leaves.
    const addon = join(prefix, 'lib', 'node_modules', 'a2a-lite', 'node_modules', 'better-sqlite3', 'build');
    expect(existsSync(addon) && readdirSync(addon).length > 0).toBe(false);

    // The prefix's bin/ on PATH, Node 24 first, as a user who followed the README has it.
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${join(prefix, 'bin')}:${NODE24_BIN}:${process.env.PATH}`, A2A_LITE_HOME: join(work, 'home') };
    delete env.A2A_LITE_SQLITE;
    const version = spawnSync('a2a-lite', ['--version'], { encoding: 'utf8', env });
    expect(version.status, version.stderr).toBe(0);
    const init = spawnSync('a2a-lite', ['card', 'init', '--id', 'lumen', '--name', 'Lumen', '--skill', 'research:Research:finds things'], { encoding: 'utf8', env });
    expect(init.status, init.stderr).toBe(0);

    const server = spawn('a2a-lite', ['serve', '--port', '0', '--exec', 'cat > /dev/null; echo "served on node $(node --version)"', '--json'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let output = '';
      let errors = '';
      server.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      server.stderr.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk));
      for (let waited = 0; !output.includes('\n') && waited < 600 && server.exitCode === null; waited += 1) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(output, errors).toContain('\n');
      const info = JSON.parse(output.split('\n')[0] as string) as { jsonrpc: string };
      const answer = (await (
        await fetch(info.jsonrpc, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } } }),
        })
      ).json()) as { result?: { task: { id: string; status: { state: string }; artifacts: { parts: { text: string }[] }[] } } };
      expect(answer.result?.task.status.state, JSON.stringify(answer)).toBe('TASK_STATE_COMPLETED');
      expect(answer.result?.task.artifacts[0]?.parts[0]?.text).toMatch(/^served on node v24\./);
      expect(existsSync(join(work, 'home', 'a2a-lite.db'))).toBe(true);
      expect(errors).not.toMatch(/better-sqlite3|ExperimentalWarning/);
    } finally {
      server.kill('SIGTERM');
    }
  }, 300_000);
});
