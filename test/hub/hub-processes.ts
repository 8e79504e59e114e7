// `a2a-lite hub` and `a2a-lite serve --hub` as child processes for the hub tests: each started
// on 127.0.0.1, its first --json line read, and every one still running killed after the test.
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cli } from '../cli/run-cli.js';
import { spawnCli, withTimeout } from '../faults/serve-process.js';
import { tempHome } from '../fixtures/home.js';
export { freePort } from '../sockets.js';

export const BEHAVIOURS = fileURLToPath(new URL('../client/fixtures/behaviours.mjs', import.meta.url));
export const NODE = JSON.stringify(process.execPath);
/** The exec command of an agent that behaves as the first word of its task says. */
export const BEHAVE = `${NODE} ${JSON.stringify(BEHAVIOURS)}`;

export interface Running {
  child: ChildProcess;
  /** The first line it printed, as JSON. */
  info: Record<string, unknown>;
  stderr(): string;
  exited: Promise<number | string>;
}

/** Spawns `a2a-lite ARGS` and waits for its first line of JSON. */
export async function start(args: readonly string[], env: Record<string, string> = {}): Promise<Running> {
  const { child, ready, exited, stderr } = spawnCli<Record<string, unknown>>([...args, '--json'], env);
  const info = await withTimeout(ready, 20_000, `a2a-lite ${args[0]} did not start within 20 s`);
  return { child, info, stderr, exited };
}

/**
 * A hub on a free port (or `--port` in `extra`), with a memory registry unless told otherwise,
 * allowed to call agents on 127.0.0.1 unless `allowPrivate` is false.
 */
export async function startHub(extra: readonly string[] = ['--store', 'memory'], env: Record<string, string> = {}, allowPrivate = true): Promise<Running & { url: string }> {
  const hub = await start(['hub', '--host', '127.0.0.1', ...(extra.includes('--port') ? [] : ['--port', '0']), ...(allowPrivate ? ['--allow-private'] : []), ...extra], env);
  return { ...hub, url: hub.info.hub as string };
}

/** A card for agent `id` offering `skills` (`id:Name:Description`), in a home of its own. */
export function agentHome(id: string, skills: readonly string[] = ['echo:Echo:Says it back']): string {
  const home = tempHome(`agent-${id}`);
  const made = cli(['card', 'init', '--id', id, '--name', `Agent ${id}`, ...skills.flatMap((skill) => ['--skill', skill])], { home });
  if (made.code !== 0) throw new Error(made.stderr);
  return home;
}

/** `serve --exec EXEC --hub HUB` for agent `id`, with no port of its own unless `extra` gives one. */
export async function startAgent(hubUrl: string, id: string, options: { exec?: string; skills?: string[]; extra?: string[]; env?: Record<string, string>; home?: string } = {}): Promise<Running & { home: string }> {
  const home = options.home ?? agentHome(id, options.skills);
  const extra = options.extra ?? ['--port', 'none'];
  const agent = await start(['serve', '--home', home, '--store', 'memory', '--exec', options.exec ?? BEHAVE, '--hub', hubUrl, ...extra], { A2A_LITE_HOME: home, ...options.env });
  return { ...agent, home };
}

/** Polls `check` every 50 ms until it returns a value, at most `ms` (bounded, no wall-clock assertion). */
export async function until<T>(check: () => Promise<T | undefined> | T | undefined, ms = 15_000, what = 'the condition'): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** GETs `url` as JSON. */
export async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, { headers });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The health the hub reports for agent `id` (undefined when not registered). */
export async function healthOf(hubUrl: string, id: string, headers: Record<string, string> = {}): Promise<{ up: boolean; activeTasks: number; failures: number } | undefined> {
  const { body } = await getJson(`${hubUrl}/hub/v1/agents`, headers);
  const agent = (body.agents as { id: string; health: { up: boolean; activeTasks: number; failures: number } }[] | undefined)?.find((a) => a.id === id);
  return agent?.health;
}

/** A shell script in a temp folder, made executable; its path. */
export function script(name: string, text: string): string {
  const path = join(tempHome('scripts'), name);
  writeFileSync(path, text, { mode: 0o755 });
  return path;
}
