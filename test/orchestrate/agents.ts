// Real `a2a-lite serve --exec` agents for the plan tests, on 127.0.0.1 with free ports, each
// running fixtures/worker.mjs and appending what it starts, ends and is told to cancel to one
// log file that the tests read to check what the agents saw.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, cli } from '../cli/run-cli.js';

export const WORKER = fileURLToPath(new URL('./fixtures/worker.mjs', import.meta.url));

/** A label no other test of the suite uses, for texts the agents' log is searched by. */
export const unique = (label: string): string => `${label}-${Math.random().toString(36).slice(2, 8)}`;

export interface TestAgent {
  id: string;
  url: string;
  child: ChildProcess;
}

export interface LogLine {
  event: 'start' | 'stop' | 'cancel';
  agent: string;
  task: string;
  context: string;
  at: number;
  text: string;
  attachments?: string[];
}

/** A folder for one suite: its agents' homes, the log, and the client's home. */
export class AgentSet {
  readonly dir = mkdtempSync(join(tmpdir(), 'a2a-lite-plan-'));
  readonly log = join(this.dir, 'agents.jsonl');
  readonly agents: TestAgent[] = [];

  /** Starts an agent `id` offering `skills` and waits until it listens. */
  async start(id: string, skills: readonly string[] = ['work'], env: Record<string, string> = {}): Promise<TestAgent> {
    const home = join(this.dir, `agent-${id}`);
    const init = cli(['card', 'init', '--id', id, '--name', id, ...skills.flatMap((s) => ['--skill', `${s}:${s}:does ${s}`])], { home });
    if (init.code !== 0) throw new Error(init.stderr);
    const child = spawn(process.execPath, [BIN, 'serve', '--home', home, '--host', '127.0.0.1', '--port', '0', '--json', '--exec', `${JSON.stringify(process.execPath)} ${JSON.stringify(WORKER)}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env, WORKER_LOG: this.log, WORKER_NAME: id },
    });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout?.on('data', (chunk) => {
        out += chunk;
        if (out.includes('\n')) resolve((JSON.parse(out.split('\n')[0] as string) as { url: string }).url);
      });
      child.once('exit', (code) => reject(new Error(`serve ${id} exited with ${code}`)));
    });
    const agent = { id, url, child };
    this.agents.push(agent);
    return agent;
  }

  /** Every line the agents logged so far. */
  lines(): LogLine[] {
    if (!existsSync(this.log)) return [];
    return readFileSync(this.log, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as LogLine);
  }

  /** How many tasks with `text` the agents started. */
  started(text: string): number {
    return this.lines().filter((l) => l.event === 'start' && l.text === text).length;
  }

  /** The most tasks whose text holds `tag` that were running at the agents at once, by their start and stop lines. */
  peak(tag: string): number {
    let now = 0;
    let most = 0;
    const events = this.lines()
      .filter((l) => l.event !== 'cancel' && l.text.includes(tag))
      .sort((a, b) => a.at - b.at || (a.event === 'stop' ? -1 : 1));
    for (const line of events) {
      now += line.event === 'start' ? 1 : -1;
      most = Math.max(most, now);
    }
    return most;
  }

  async close(): Promise<void> {
    await Promise.all(
      this.agents.map(
        (a) =>
          new Promise<void>((resolve) => {
            if (a.child.exitCode !== null) return resolve();
            a.child.once('exit', () => resolve());
            a.child.kill('SIGTERM');
          }),
      ),
    );
    rmSync(this.dir, { recursive: true, force: true });
  }
}
