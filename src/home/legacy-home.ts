// Moving an agent's files out of the skill's folder, where earlier versions kept them, into the
// workspace's `.a2a-lite/`, once, losing nothing. Everything is copied into a staging folder
// beside the new home, which is then renamed into place in one step: a move cut short leaves
// the old files as they were and no new home, and the next command starts it over. The old
// files are left where they are (a server may still have its database open there); the skill's
// next install removes them.

import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { LiteError } from '../errors.js';

/** What a home holds that is the agent's own, as earlier versions wrote it into the skill's folder. */
const ITEMS = ['agent-card.json', 'known-agents', 'tasks', 'downloads', 'work', 'a2a-lite.db', 'a2a-lite.db-wal', 'a2a-lite.db-shm'] as const;

const STAGING = '.moving-';

export interface Moved {
  from: string;
  to: string;
  items: string[];
}

/**
 * Moves what `legacy` holds of an agent's files into `target`, unless `target` exists already.
 * The skill's example card, shipped as `agent-card.json` and identical to `example`, is not the
 * agent's and stays behind. Returns what was moved, or undefined when there was nothing to move.
 *
 * @example
 * moveLegacyHome('/ws/skills/a2a-lite', '/ws/.a2a-lite', exampleCardText);
 * // { from: '/ws/skills/a2a-lite', to: '/ws/.a2a-lite', items: ['agent-card.json', 'tasks'] }
 */
export function moveLegacyHome(legacy: string, target: string, example?: string): Moved | undefined {
  if (existsSync(target)) return undefined;
  const items = ITEMS.filter((item) => existsSync(join(legacy, item)) && !(item === 'agent-card.json' && isExample(join(legacy, item), example)));
  if (items.length === 0) return undefined;
  removeStaleStaging(target);
  const staging = `${target}${STAGING}${process.pid}-${Date.now()}`;
  try {
    for (const item of items) cpSync(join(legacy, item), join(staging, item), { recursive: true, preserveTimestamps: true, verbatimSymlinks: true, errorOnExist: true, force: false });
    renameSync(staging, target);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    // Another command made the new home meanwhile: its copy is as good as ours.
    if (existsSync(target)) return undefined;
    throw new LiteError('IO_ERROR', `could not move the A2A-Lite files from ${legacy} to ${target} (${(error as Error).message}); nothing was changed`, { from: legacy, to: target }, { cause: error });
  }
  return { from: legacy, to: target, items };
}

function isExample(path: string, example: string | undefined): boolean {
  if (example === undefined) return false;
  try {
    return readFileSync(path, 'utf8') === example;
  } catch {
    return false;
  }
}

/** Staging folders left by a move that was cut short: their content is still in the old home. */
function removeStaleStaging(target: string): void {
  const prefix = `${basename(target)}${STAGING}`;
  for (const name of readdirSync(dirname(target))) {
    if (name.startsWith(prefix)) rmSync(join(dirname(target), name), { recursive: true, force: true });
  }
}
