// Where an agent's files live: --home, else $A2A_LITE_HOME, else `.a2a-lite/` in an OpenClaw
// workspace (the folder holds `.a2a-lite/` or the skill at `skills/a2a-lite/`), else ~/.a2a-lite.
// Never the skill's own folder: OpenClaw replaces it when the skill is installed or updated.

import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export interface Home {
  dir: string;
  /** Which rule chose it: `flag`, `env`, `workspace` or `default`. */
  source: 'flag' | 'env' | 'workspace' | 'default';
  /**
   * In a workspace, the skill's folder, which earlier versions used as the home: what it holds
   * is moved into `dir` on first use (see legacy-home.ts).
   */
  legacy?: string;
}

export interface HomeOptions {
  flag?: string | undefined;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/** The home's folder name inside a workspace. */
export const WORKSPACE_HOME = '.a2a-lite';

/** Resolves the home directory by the rule above. Does not create it. */
export function resolveHome(options: HomeOptions = {}): Home {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  if (options.flag) return { dir: resolve(cwd, options.flag), source: 'flag' };
  const fromEnv = env.A2A_LITE_HOME;
  if (fromEnv) return { dir: resolve(cwd, fromEnv), source: 'env' };
  const inWorkspace = join(cwd, WORKSPACE_HOME);
  const skill = join(cwd, 'skills', 'a2a-lite');
  const hasSkill = isFolder(skill);
  if (hasSkill || isFolder(inWorkspace)) return hasSkill ? { dir: inWorkspace, source: 'workspace', legacy: skill } : { dir: inWorkspace, source: 'workspace' };
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

function isFolder(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}
