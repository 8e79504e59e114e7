// The gRPC library loads only where gRPC is served: `serve --grpc-port`. `serve` without it,
// answering a task over HTTP, leaves @grpc/grpc-js unloaded, as does importing
// `a2a-lite/server` (which exports serveGrpc). Each process runs with a preload that says, as it
// exits, how many files under node_modules/@grpc/grpc-js/ its module cache holds (a CommonJS
// package, which the cache records however it is imported).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../fixtures/home.js';
import { BIN, cli } from './run-cli.js';

const ENTRY = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
const SERVER_ENTRY = fileURLToPath(new URL('../../dist/server.js', import.meta.url));
const REPORT = `import { createRequire } from 'node:module';
const cache = createRequire(${JSON.stringify(ENTRY)}).cache;
process.on('exit', () => process.stderr.write('grpc files loaded: ' + Object.keys(cache).filter((p) => p.replaceAll('\\\\', '/').includes('/node_modules/@grpc/grpc-js/')).length + '\\n'));
process.on('SIGTERM', () => process.exit(0));`;
const PRELOAD = `data:text/javascript,${encodeURIComponent(REPORT)}`;

/** The count the preload reported on stderr. */
function countIn(stderr: string): number {
  const count = /grpc files loaded: (\d+)/.exec(stderr)?.[1];
  if (count === undefined) throw new Error(`no count reported: ${stderr}`);
  return Number(count);
}

/**
 * Runs `a2a-lite serve ARGS`, sends it one task over JSON-RPC once it has printed where it
 * listens, stops it with SIGTERM, and gives the count of gRPC files it loaded.
 */
function servedAndCounted(args: string[]): Promise<number> {
  const home = tempHome();
  cli(['card', 'init', '--id', 'lazy', '--name', 'Lazy', '--skill', 'echo:Echo:says it back'], { home });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', PRELOAD, BIN, 'serve', '--home', home, '--store', 'memory', '--port', '0', '--exec', 'cat', '--json', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      const first = stdout === '';
      stdout += chunk.toString();
      if (!first || !stdout.includes('\n')) return;
      const info = JSON.parse(stdout.split('\n')[0]!) as { jsonrpc: string };
      const body = { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm-lazy', role: 'ROLE_USER', parts: [{ text: 'hello' }] } } };
      void fetch(info.jsonrpc, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body: JSON.stringify(body) })
        .then(async (response) => expect(await response.text()).toContain('TASK_STATE_COMPLETED'))
        .finally(() => child.kill('SIGTERM'));
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(countIn(stderr));
      } catch (error) {
        reject(error as Error);
      }
    });
  });
}

describe('@grpc/grpc-js', () => {
  it('is not loaded by serve without --grpc-port, even after answering a task', async () => {
    expect(await servedAndCounted([])).toBe(0);
  }, 60_000);

  it('is loaded by serve --grpc-port (so the count above would see it)', async () => {
    expect(await servedAndCounted(['--grpc-port', '0'])).toBeGreaterThan(0);
  }, 60_000);

  it('is not loaded by importing a2a-lite/server, which exports serveGrpc', async () => {
    const child = spawn(process.execPath, ['--import', PRELOAD, '--input-type=module', '-e', `const server = await import(${JSON.stringify(SERVER_ENTRY)}); if (typeof server.serveGrpc !== 'function') process.exit(3);`], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(countIn(stderr)).toBe(0);
  }, 60_000);
});
