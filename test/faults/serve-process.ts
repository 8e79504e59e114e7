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
afterEach(async () => {
  const gone = [...running].map((child) => new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once('exit', resolve))));
  for (const child of running) child.kill('SIGKILL');
  running.clear();
  await Promise.all(gone);
});

/** A long-running `a2a-lite` command started with `--json`, not yet known to be ready. */
export interface SpawnedCli<T> {
  child: ChildProcess;
  exited: Promise<number | string>;
  /** The first line it prints, as JSON: what it says once it is ready. */
  ready: Promise<T>;
  stderr(): string;
}

/**
 * Spawns `a2a-lite ARGS` (which should include `--json`) without waiting for it; it is killed
 * after the test if still running.
 */
export function spawnCli<T>(args: readonly string[], env: Record<string, string> = {}): SpawnedCli<T> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
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
  const ready = new Promise<T>((resolve, reject) => {
    child.stdout?.on('data', (chunk: string) => {
      stdout += chunk;
      const end = stdout.indexOf('\n');
      if (end !== -1) resolve(JSON.parse(stdout.slice(0, end)) as T);
    });
    void exited.then((how) => reject(new Error(`a2a-lite ${args[0]} exited (${how}) before it was ready: ${stderr.trim()}`)));
  });
  ready.catch(() => undefined);
  return { child, exited, ready, stderr: () => stderr };
}

/** Spawns serve without waiting for it: for kills that land while it starts. */
export function spawnServe(home: string, exec: string, extra: readonly string[] = []): SpawnedCli<ServeInfo> {
  return spawnCli(['serve', '--home', home, '--host', '127.0.0.1', '--port', '0', '--json', '--exec', exec, ...extra]);
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
