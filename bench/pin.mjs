// Pinning processes to cores with taskset, so that a server and its load generator do not
// compete for one core. Without taskset (or with pinning turned off) they run unpinned.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';

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

/**
 * Starts a bench server (a script that prints `READY <url>`) with node on `core` (default 0)
 * when `pin`, with `env` added to its environment, and resolves with its URL and a way to stop it.
 */
export async function startBenchServer(pin, scriptPath, args = [], core = 0, env = {}) {
  const [command, argv] = pinnedNode(pin, core, ['--expose-gc', scriptPath, ...args]);
  const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  const name = basename(scriptPath);
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const ready = /READY (\S+)/.exec(out);
      if (ready) resolve(ready[1]);
    });
    child.on('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
    setTimeout(() => reject(new Error(`${name} did not start`)), 15_000).unref();
  });
  return { url, pid: child.pid, stop: () => child.kill('SIGKILL') };
}

/**
 * The CPU time process `pid` has used so far, user and system, all its threads, in ms (Linux:
 * /proc, in clock ticks of 10 ms). taskset runs node in its own place, so a pinned server's pid is node's.
 */
export function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Runs bench/load.mjs against `url` with `connections` for `seconds`, on core 1 when `pin`, and
 * resolves with its figures (requests, answered, rps, p50, p99, errors).
 */
export function runLoad(pin, url, connections, seconds) {
  const [command, argv] = pinnedNode(pin, 1, [fileURLToPath(new URL('./load.mjs', import.meta.url)), url, String(connections), String(seconds), '1']);
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1))) : reject(new Error('load failed'))));
  });
}
