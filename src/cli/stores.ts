// Opens the stores of the home a command works in (see home/home.ts for the rule), first moving
// an agent's files out of the skill's folder, where earlier versions kept them.

import { readFileSync } from 'node:fs';
import { AgentDirectory } from '../home/known-agents.js';
import { homePaths, resolveHome, type Home } from '../home/home.js';
import { moveLegacyHome } from '../home/legacy-home.js';
import { FileTaskLedger } from '../home/task-ledger.js';
import type { Context } from './context.js';
import { note } from './output.js';

export interface Stores {
  home: Home;
  paths: ReturnType<typeof homePaths>;
  agents: AgentDirectory;
  tasks: FileTaskLedger;
}

export function openStores(values: { home?: string | undefined }, context: Context): Stores {
  const home = resolveHome({ flag: values.home, env: context.env, cwd: context.cwd });
  if (home.legacy !== undefined) {
    const moved = moveLegacyHome(home.legacy, home.dir, exampleCard());
    if (moved !== undefined) note(context, `moved ${moved.items.join(', ')} from ${moved.from} to ${moved.to}, which the skill's reinstall does not touch`);
  }
  const paths = homePaths(home.dir);
  return { home, paths, agents: new AgentDirectory(paths.knownAgents), tasks: new FileTaskLedger(paths.tasks) };
}

/** The example card the skill ships (package root: two folders up from src/cli and dist/cli). */
function exampleCard(): string | undefined {
  try {
    return readFileSync(new URL('../../skill/a2a-lite/agent-card.json', import.meta.url), 'utf8');
  } catch {
    return undefined;
  }
}
