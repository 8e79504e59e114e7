// Pinning processes to cores with taskset, so that a server and its load generator do not
// compete for one core. Without taskset (or with pinning turned off) they run unpinned.
import { execFileSync } from 'node:child_process';

export function tasksetWorks() {
  try {
    execFileSync('taskset', ['-c', '0', 'true']);
    return true;
  } catch {
    return false;
  }
}

/** The command and arguments that run node with `args` on `core` (when `pin`). */
export function pinnedNode(pin, core, args) {
  return pin ? ['taskset', ['-c', String(core), process.execPath, ...args]] : [process.execPath, args];
}
