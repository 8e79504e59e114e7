// Opens the stores of an agent's home (see home.ts for which folder that is), first moving an
// agent's files out of the skill's folder, where earlier versions kept them. The CLI and the
// OpenClaw plugin open a home the same way.

import { readFileSync } from 'node:fs';
import { AgentDirectory } from './known-agents.js';
import { homePaths, resolveHome, type Home, type HomeOptions } from './home.js';
import { moveLegacyHome } from './legacy-home.js';
import { FileTaskLedger } from './task-ledger.js';

export interface Stores {
  home: Home;
  paths: ReturnType<typeof homePaths>;
  agents: AgentDirectory;
  tasks: FileTaskLedger;
}

/** Opens the home `options` name; `onNote` hears about a move out of the skill's folder. */
export function openHomeStores(options: HomeOptions, onNote?: (text: string) => void): Stores {
  const home = resolveHome(options);
  if (home.legacy !== undefined) {
    const moved = moveLegacyHome(home.legacy, home.dir, exampleCard());
    if (moved !== undefined) onNote?.(`moved ${moved.items.join(', ')} from ${moved.from} to ${moved.to}, which the skill's reinstall does not touch`);
  }
  const paths = homePaths(home.dir);
  return { home, paths, agents: new AgentDirectory(paths.knownAgents), tasks: new FileTaskLedger(paths.tasks) };
}

/** The example card the skill ships (package root: two folders up from src/home and dist/home). */
function exampleCard(): string | undefined {
  try {
    return readFileSync(new URL('../../skill/a2a-lite/agent-card.json', import.meta.url), 'utf8');
  } catch {
    return undefined;
  }
}
