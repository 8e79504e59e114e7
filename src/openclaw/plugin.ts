// The a2a-lite plugin for OpenClaw (id `a2a-lite`): typed `a2a_lite_*` tools for everything the
// skill does by shell, a hook that records every incoming [A2A:…] message and answers
// [A2A:discover] with the card, and an outbound check. OpenClaw loads this file as the entry
// `openclaw.extensions` names in package.json; openclaw.plugin.json at the package root is its
// manifest, and the skill ships with it.

import { readFileSync } from 'node:fs';
import { configSchema, readConfig, tokenRulesOf, type PluginConfig } from './config.js';
import { trustAuthorities } from '../net/tls.js';
import type { AgentTool, HostApi, ToolContext } from './host.js';
import { onInbound, onOutbound } from './hooks.js';
import { agentOfSession, storesFor, workspaceOf } from './place.js';
import { makeTool } from './tool-kit.js';
import { localTools } from './tools-local.js';
import { remoteTools } from './tools-remote.js';
import { toolSet } from './tool-set.js';
import { runTools } from './tools-run.js';

// The plugin's settings, and the part of OpenClaw's API it is written against (host.ts).
export type { PluginConfig } from './config.js';
export type { TokenBinding } from '../client/token-rules.js';
export type {
  HostApi,
  HostLogger,
  HostService,
  AgentTool,
  ToolContext,
  ToolResult,
  BeforeDispatchEvent,
  BeforeDispatchContext,
  BeforeDispatchResult,
  MessageSendingEvent,
  MessageSendingResult,
  MessageContext,
} from './host.js';

export const PLUGIN_ID = 'a2a-lite';

/** Every tool's name, as the manifest's `contracts.tools` lists them. */
const NAMES_ONLY = { workspace: undefined, env: {}, allowPrivateNetworks: false, tokens: tokenRulesOf({ tokens: [] }) };
export const TOOL_NAMES = [...localTools(() => never()), ...remoteTools(() => never(), NAMES_ONLY), ...runTools(() => never(), NAMES_ONLY)].map((t) => t.name);

/** The tools for one run of an agent (its workspace decides the home). */
export function toolsFor(config: PluginConfig, context: ToolContext, api: Pick<HostApi, 'config' | 'runtime'>, env: NodeJS.ProcessEnv = process.env): AgentTool[] {
  const workspace = context.workspaceDir ?? workspaceOf(api as HostApi, context.agentId ?? agentOfSession(context.sessionKey));
  return toolSet(config, workspace, env).map(makeTool);
}

export function register(api: HostApi): void {
  const config = readConfig(api.pluginConfig);
  // Read once, at start: a file that is not a certificate stops the plugin with its name.
  if (config.tlsCa !== undefined) trustAuthorities(config.tlsCa);
  api.registerTool((context) => toolsFor(config, context, api), { names: TOOL_NAMES });
  const deps = {
    config,
    logger: api.logger,
    stores: (sessionKey: string | undefined) =>
      storesFor(config, workspaceOf(api, agentOfSession(sessionKey)), process.env, (text) => api.logger.info(`a2a-lite: ${text}`)),
  };
  api.on('before_dispatch', onInbound(deps), { priority: 50 });
  api.on('message_sending', onOutbound(deps), { priority: 50 });
}

/** The plugin entry OpenClaw reads: the same shape `definePluginEntry` returns. */
const plugin = {
  id: PLUGIN_ID,
  name: 'A2A-Lite',
  description: 'Agent-to-agent tasks in chat and over A2A: cards, known peers, a task ledger, discover/send/cancel to any A2A agent.',
  version: packageVersion(),
  configSchema,
  register,
};

export default plugin;

/** The package's version (package.json is two folders up from src/openclaw and dist/openclaw). */
function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

function never(): never {
  throw new Error('the tool list is read for its names only');
}
