// The WebSocket library loads only where a relay link is made: the hub, and `serve --hub`.
// `serve` on its own port, and every chat command, leave it unloaded. Each process runs with a
// preload that says, as it exits, how many files under node_modules/ws/ its module cache holds.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { agentHome } from '../hub/hub-processes.js';
import { BIN } from './run-cli.js';

const ENTRY = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
const REPORT = `import { createRequire } from 'node:module';
const cache = createRequire(${JSON.stringify(ENTRY)}).cache;
process.on('exit', () => process.stderr.write('ws files loaded: ' + Object.keys(cache).filter((p) => p.replaceAll('\\\\', '/').includes('/node_modules/ws/')).length + '\\n'));
process.on('SIGTERM', () => process.exit(0));`;
const PRELOAD = `data:text/javascript,${encodeURIComponent(REPORT)}`;

/** Runs `a2a-lite ARGS`; a server is stopped with SIGTERM once it printed its first line. The count of ws files it loaded. */
function wsFilesLoaded(args: string[], server: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', PRELOAD, BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.once('data', () => server && child.kill('SIGTERM'));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      const count = /ws files loaded: (\d+)/.exec(stderr)?.[1];
      if (count === undefined) reject(new Error(`no count reported: ${stderr}`));
      else resolve(Number(count));
    });
  });
}

describe('the ws package', () => {
  it('is not loaded by serve on its own port, nor by a chat command', async () => {
    expect(await wsFilesLoaded(['serve', '--home', agentHome('lazy-ws'), '--store', 'memory', '--port', '0', '--exec', 'cat', '--json'], true)).toBe(0);
    expect(await wsFilesLoaded(['parse', '[A2A:task id=t-1 skill=echo]\nhello'], false)).toBe(0);
  }, 60_000);

  it('is loaded by the hub, which takes agents over WebSockets', async () => {
    expect(await wsFilesLoaded(['hub', '--store', 'memory', '--port', '0', '--json'], true)).toBeGreaterThan(0);
  }, 60_000);
});
