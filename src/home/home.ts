// Where an agent's files live: --home, else $A2A_LITE_HOME, else ./skills/a2a-lite when it
// exists (an OpenClaw workspace), else ~/.a2a-lite.

import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export interface Home {
  dir: string;
  /** Which rule chose it: `flag`, `env`, `workspace` or `default`. */
  source: 'flag' | 'env' | 'workspace' | 'default';
}

export interface HomeOptions {
  flag?: string | undefined;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/** Resolves the home directory by the rule above. Does not create it. */
export function resolveHome(options: HomeOptions = {}): Home {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  if (options.flag) return { dir: resolve(cwd, options.flag), source: 'flag' };
  const fromEnv = env.A2A_LITE_HOME;
  if (fromEnv) return { dir: resolve(cwd, fromEnv), source: 'env' };
  const workspace = join(cwd, 'skills', 'a2a-lite');
  if (existsSync(workspace) && statSync(workspace).isDirectory()) return { dir: workspace, source: 'workspace' };
  return { dir: join(homedir(), '.a2a-lite'), source: 'default' };
}

/** The files and folders inside a home. */
export function homePaths(dir: string) {
  return {
    card: join(dir, 'agent-card.json'),
    knownAgents: join(dir, 'known-agents'),
    tasks: join(dir, 'tasks'),
    database: join(dir, 'a2a-lite.db'),
  };
}
