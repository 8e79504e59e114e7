// The plugin's tools for one run of an agent: the home its workspace decides, the files that
// may be sent from the workspace, and the network rules of the config. `network` stands in for
// the network in tests: how names resolve, and names allowed on private addresses.

import type { PluginConfig } from './config.js';
import { tokenRulesOf } from './config.js';
import { storesFor } from './place.js';
import type { ToolSpec } from './tool-kit.js';
import { localTools } from './tools-local.js';
import { remoteTools, type RemoteSettings } from './tools-remote.js';
import { runTools } from './tools-run.js';

export function toolSet(config: PluginConfig, workspace: string | undefined, env: NodeJS.ProcessEnv, network?: RemoteSettings['network']): ToolSpec[] {
  const open = () => storesFor(config, workspace, env);
  const settings: RemoteSettings = { workspace, env, allowPrivateNetworks: config.allowPrivateNetworks, tokens: tokenRulesOf(config), ...(network === undefined ? {} : { network }) };
  return [...localTools(open), ...remoteTools(open, settings), ...runTools(open, settings)];
}
