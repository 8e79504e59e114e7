// Opens the stores of the home a command works in (see store/home.ts for the rule).

import { AgentDirectory } from '../home/known-agents.js';
import { homePaths, resolveHome, type Home } from '../home/home.js';
import { FileTaskLedger } from '../home/task-ledger.js';
import type { Context } from './context.js';

export interface Stores {
  home: Home;
  paths: ReturnType<typeof homePaths>;
  agents: AgentDirectory;
  tasks: FileTaskLedger;
}

export function openStores(values: { home?: string | undefined }, context: Context): Stores {
  const home = resolveHome({ flag: values.home, env: context.env, cwd: context.cwd });
  const paths = homePaths(home.dir);
  return { home, paths, agents: new AgentDirectory(paths.knownAgents), tasks: new FileTaskLedger(paths.tasks) };
}
