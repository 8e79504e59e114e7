// Where the plugin keeps an agent's files: the `home` setting, else $A2A_LITE_HOME, else
// `<workspace>/.a2a-lite` in the agent's OpenClaw workspace, the same folder the CLI uses when
// it runs in that workspace, and one that reinstalling the skill or the plugin never touches.

import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { WORKSPACE_HOME } from '../home/home.js';
import { openHomeStores, type Stores } from '../home/stores.js';
import type { PluginConfig } from './config.js';
import type { HostApi } from './host.js';

/** The id OpenClaw gives an agent that has no other: its sessions are `agent:main:…`. */
const DEFAULT_AGENT = 'main';

/** The agent a session key belongs to (`agent:<id>:…`). */
export function agentOfSession(sessionKey: string | undefined): string {
  const match = /^agent:([^:]+):/.exec(sessionKey ?? '');
  return match?.[1] ?? DEFAULT_AGENT;
}

/** The workspace of `agentId` as OpenClaw resolves it, if the host can say. */
export function workspaceOf(api: HostApi, agentId: string): string | undefined {
  try {
    return api.runtime?.agent?.resolveAgentWorkspaceDir?.(api.config, agentId);
  } catch {
    return undefined;
  }
}

/**
 * Opens the stores of the home for `workspace` (moving what an older skill kept in its own
 * folder there, as the CLI does); `onNote` hears about such a move.
 */
export function storesFor(config: PluginConfig, workspace: string | undefined, env: NodeJS.ProcessEnv, onNote?: (text: string) => void): Stores {
  const cwd = workspace ?? process.cwd();
  if (config.home === undefined && !env.A2A_LITE_HOME && workspace !== undefined) {
    // Claim the workspace's home, so that the CLI run in this workspace finds the same one.
    mkdirSync(join(workspace, WORKSPACE_HOME), { recursive: true });
  }
  return openHomeStores({ flag: config.home === undefined ? undefined : resolve(cwd, config.home), env, cwd }, onNote);
}
