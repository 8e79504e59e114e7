// A real OpenClaw 2026.9.6 gateway for the end-to-end tests, run as its users run it: on Node 24,
// in a state folder of its own (HOME and OPENCLAW_STATE_DIR in a temp dir), with a scripted
// model on 127.0.0.1 (mock-model.mjs) in place of a language model. OpenClaw comes from this
// folder's own package.json, apart from the package's dependencies; `npm test` installs it
// (scripts/test-deps.mjs).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installMissing } from '../needs-tool.js';
import { NODE24, NODE24_BIN, NODE24_MISSING, hasNode24 } from '../node24/node24.js';

export const OPENCLAW = fileURLToPath(new URL('./node_modules/openclaw/openclaw.mjs', import.meta.url));
export const MOCK_MODEL = fileURLToPath(new URL('./mock-model.mjs', import.meta.url));
export const hasOpenClaw = existsSync(OPENCLAW) && hasNode24;
/** Why OpenClaw (or the Node 24 it runs on) is not there, for the suite that needs it. */
export const OPENCLAW_MISSING = !existsSync(OPENCLAW) ? installMissing('test/openclaw-e2e', 'OpenClaw') : NODE24_MISSING;

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export class OpenClaw {
  readonly state: string;
  readonly home: string;
  readonly workspace: string;
  /** Where OpenClaw's node installer puts npm packages (its bin/ goes on PATH, as the skill says). */
  readonly prefix: string;
  readonly env: NodeJS.ProcessEnv;
  private readonly children: ChildProcess[] = [];
  gateway: { port: number; url: string; log: () => string } | undefined;

  constructor(
    readonly root: string,
    readonly gatewayToken: string,
  ) {
    this.state = join(root, 'state');
    this.home = join(root, 'home');
    this.workspace = join(this.state, 'workspace');
    this.prefix = join(this.state, 'tools', 'node', 'npm');
    mkdirSync(this.home, { recursive: true });
    mkdirSync(this.workspace, { recursive: true });
    const path = [NODE24_BIN, join(this.prefix, 'bin'), process.env.PATH ?? ''].join(':');
    // The machine's own settings (certificates, proxies) stay; home, state and PATH are the run's,
    // and the test runner's own variables (NODE_ENV=test among them) are not OpenClaw's.
    const machine = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_ENV' && !name.startsWith('VITEST') && !name.startsWith('OPENCLAW')));
    this.env = { ...machine, PATH: path, HOME: this.home, OPENCLAW_STATE_DIR: this.state, OPENCLAW_GATEWAY_TOKEN: gatewayToken, TMPDIR: root, LANG: 'C.UTF-8', NO_COLOR: '1' };
  }

  /** Runs the openclaw CLI to its end. */
  run(args: string[], options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Run {
    const result = spawnSync(NODE24, [OPENCLAW, ...args], { cwd: this.root, env: { ...this.env, ...options.env }, encoding: 'utf8', timeout: options.timeoutMs ?? 180_000 });
    return { code: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
  }

  /** Runs a command with OpenClaw's environment (Node 24 and the install prefix on PATH). */
  exec(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Run {
    const result = spawnSync(command, args, { cwd: options.cwd ?? this.root, env: { ...this.env, ...options.env }, encoding: 'utf8', timeout: options.timeoutMs ?? 180_000 });
    return { code: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
  }

  config(): Record<string, unknown> {
    const path = join(this.state, 'openclaw.json');
    return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : {};
  }

  writeConfig(config: Record<string, unknown>): void {
    writeFileSync(join(this.state, 'openclaw.json'), `${JSON.stringify(config, null, 2)}\n`);
  }

  /** Starts the scripted model; resolves with its port. */
  async startModel(log: string): Promise<number> {
    const child = spawn(NODE24, [MOCK_MODEL], { env: { ...this.env, MOCK_MODEL_LOG: log }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.children.push(child);
    const line = await firstLine(child, 15_000, 'the mock model did not start');
    return (JSON.parse(line) as { port: number }).port;
  }

  /** Starts `openclaw gateway run` and waits (up to three minutes) until it says it is ready. */
  async startGateway(port: number): Promise<void> {
    const child = spawn(NODE24, [OPENCLAW, 'gateway', 'run', '--port', String(port), '--bind', 'loopback'], { cwd: this.root, env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.children.push(child);
    let output = '';
    child.stdout?.setEncoding('utf8');
    child.stderr?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => (output += chunk));
    child.stderr?.on('data', (chunk: string) => (output += chunk));
    this.gateway = { port, url: `http://127.0.0.1:${port}`, log: () => output };
    for (let waited = 0; !/\[gateway\]\s+ready/.test(output) && !(await answers(`http://127.0.0.1:${port}/.well-known/agent-card.json`)); waited += 250) {
      if (child.exitCode !== null) throw new Error(`the gateway exited (${child.exitCode}): ${output.slice(-3000)}`);
      if (waited > 180_000) throw new Error(`the gateway was not ready within three minutes: ${output.slice(-3000)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  stop(): void {
    for (const child of this.children) child.kill('SIGKILL');
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

/** A port nobody listens on now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function firstLine(child: ChildProcess, ms: number, message: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(message)), ms);
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      out += chunk;
      const end = out.indexOf('\n');
      if (end !== -1) {
        clearTimeout(timer);
        resolve(out.slice(0, end));
      }
    });
    child.once('exit', (code) => reject(new Error(`${message} (exit ${code})`)));
  });
}
