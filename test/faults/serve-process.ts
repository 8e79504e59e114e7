// `a2a-lite serve` as a child process for the fault tests: started on 127.0.0.1 with a free
// port, its address read from the --json line, and killed or stopped on demand.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach } from 'vitest';
import { BIN } from '../cli/run-cli.js';

export interface ServeInfo {
  url: string;
  jsonrpc: string;
  store: string;
  push: string;
}

export interface ServeProcess {
  child: ChildProcess;
  info: ServeInfo;
  /** Everything it wrote to stderr so far (push logs, errors). */
  stderr(): string;
  /** Resolves with the exit code (or the signal's name) once the process has gone. */
  exited: Promise<number | string>;
}

const running = new Set<ChildProcess>();
afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
});

/** Spawns serve without waiting for it: for kills that land while it starts. */
export function spawnServe(home: string, exec: string, extra: readonly string[] = []): { child: ChildProcess; exited: Promise<number | string>; ready: Promise<ServeInfo>; stderr(): string } {
  const child = spawn(process.execPath, [BIN, 'serve', '--home', home, '--host', '127.0.0.1', '--port', '0', '--json', '--exec', exec, ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve(code ?? signal ?? 'unknown');
    });
  });
  const ready = new Promise<ServeInfo>((resolve, reject) => {
    child.stdout?.on('data', (chunk: string) => {
      stdout += chunk;
      const end = stdout.indexOf('\n');
      if (end !== -1) resolve(JSON.parse(stdout.slice(0, end)) as ServeInfo);
    });
    void exited.then((how) => reject(new Error(`serve exited (${how}) before it was ready: ${stderr.trim()}`)));
  });
  ready.catch(() => undefined);
  return { child, exited, ready, stderr: () => stderr };
}

/** Starts serve and waits until it listens. */
export async function startServe(home: string, exec: string, extra: readonly string[] = []): Promise<ServeProcess> {
  const started = spawnServe(home, exec, extra);
  const info = await withTimeout(started.ready, 15_000, 'serve did not start within 15 s');
  return { child: started.child, info, stderr: started.stderr, exited: started.exited };
}

/** Kills with SIGKILL and waits until the process is gone. */
export async function killHard(server: { child: ChildProcess; exited: Promise<number | string> }): Promise<void> {
  server.child.kill('SIGKILL');
  await server.exited;
}

export function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
