// Runs the built a2a-lite binary as a child process, the way an agent's shell does.
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  home?: string;
  input?: string;
  env?: Record<string, string | undefined>;
  cwd?: string;
}

function environment(options: CliOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  if (options.home !== undefined) env.A2A_LITE_HOME = options.home;
  return env;
}

/** Runs `a2a-lite ARGS` and waits for it; stdin gets `input` (or is closed at once). */
export function cli(args: string[], options: CliOptions = {}): CliResult {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    input: options.input ?? '',
    encoding: 'utf8',
    env: environment(options),
    cwd: options.cwd,
    timeout: 30_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs a shell pipeline, for behaviour that depends on a real shell pipe on stdin. */
export function shell(script: string, options: CliOptions = {}): CliResult {
  const result = spawnSync('sh', ['-c', script], {
    encoding: 'utf8',
    env: { ...environment(options), A2A: `${process.execPath} ${BIN}` },
    cwd: options.cwd,
    timeout: 30_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Starts `a2a-lite ARGS` without waiting, for tests that run many at once. */
export function cliAsync(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: environment(options), cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Starts `a2a-lite ARGS`, sends it SIGINT (Ctrl-C) once its output holds `when`, and waits for
 * it to end. A program that ends before saying `when` is not interrupted.
 */
export function cliInterrupted(args: string[], when: string, options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: environment(options), cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (!sent && stdout.includes(when)) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
