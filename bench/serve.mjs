// `bench/serve`: SendMessage throughput and p99 of a2a-lite (memory, SQLite) against a raw
// node:http JSON handler and the official SDK's echo server, in the same run. Each server is
// pinned to core 0 and the load generator to core 1 (taskset), so they do not compete.
import { spawn, execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const hasTaskset = (() => {
  try {
    execFileSync('taskset', ['-c', '0', 'true']);
    return true;
  } catch {
    return false;
  }
})();
const pinned = (core, args) => (hasTaskset ? ['taskset', ['-c', String(core), process.execPath, ...args]] : [process.execPath, args]);

async function startServer(script, args = []) {
  const [command, argv] = pinned(0, ['--expose-gc', here(script), ...args]);
  const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const ready = /READY (\S+)/.exec(out);
      if (ready) resolve(ready[1]);
    });
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    setTimeout(() => reject(new Error(`${script} did not start`)), 15_000).unref();
  });
  return { url, stop: () => child.kill('SIGKILL') };
}

function runClient(script, args) {
  const [command, argv] = pinned(1, [here(script), ...args]);
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1))) : reject(new Error(`${script} failed`))));
  });
}

const SERVERS = [
  ['raw node:http JSON', './servers/raw.mjs', []],
  ['a2a-lite (memory)', './servers/lite.mjs', ['memory']],
  ['a2a-lite (SQLite)', './servers/lite.mjs', ['sqlite']],
  ['@a2a-js/sdk (express, memory)', './servers/sdk.mjs', []],
];

export async function run({ connections = 32, seconds = 5, rounds = 2 } = {}) {
  const results = new Map(SERVERS.map(([name]) => [name, []]));
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, script, args] of SERVERS) {
      const server = await startServer(script, args);
      try {
        results.get(name).push(await runClient('./load.mjs', [server.url, String(connections), String(seconds), '1']));
      } finally {
        server.stop();
      }
    }
  }
  const best = new Map([...results].map(([name, runs]) => [name, runs.reduce((a, b) => (b.rps > a.rps ? b : a))]));
  const sseServer = await startServer('./servers/lite.mjs', ['memory']);
  let sse;
  let held;
  try {
    sse = await runClient('./sse-client.mjs', [sseServer.url, 'rate', '20000']);
    held = await runClient('./sse-client.mjs', [sseServer.url, 'hold', '1000']);
  } finally {
    sseServer.stop();
  }
  return { pinned: hasTaskset, connections, seconds, throughput: Object.fromEntries(best), sse, held };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await run();
  const raw = r.throughput['raw node:http JSON'];
  const sdk = r.throughput['@a2a-js/sdk (express, memory)'];
  console.log(`SendMessage, ${r.connections} connections, ${r.seconds} s each, best of 2 rounds${r.pinned ? ', server on core 0, load on core 1' : ' (taskset missing: not pinned)'}`);
  for (const [name, t] of Object.entries(r.throughput)) {
    console.log(`  ${name.padEnd(30)} ${Math.round(t.rps).toString().padStart(6)} req/s  p50 ${t.p50.toFixed(1)} ms  p99 ${t.p99.toFixed(1)} ms  errors ${t.errors}  (${(t.rps / raw.rps).toFixed(2)}× raw)`);
  }
  const memory = r.throughput['a2a-lite (memory)'];
  const sqlite = r.throughput['a2a-lite (SQLite)'];
  console.log(`  ratios: memory ${(memory.rps / raw.rps).toFixed(2)}× raw (target ≥ 0.50), SQLite ${(sqlite.rps / raw.rps).toFixed(2)}× raw (target ≥ 0.35), p99 ${memory.p99.toFixed(1)} / ${sqlite.p99.toFixed(1)} ms vs SDK ${sdk.p99.toFixed(1)} ms`);
  console.log(`SSE: ${Math.round(r.sse.eventsPerSecond)} events/s on one stream (${r.sse.events} events); 1,000 open streams hold ${(r.held.heapUsedBytes / 1024 / 1024).toFixed(1)} MiB of heap (${r.held.perStreamBytes} bytes each), RSS +${(r.held.rssBytes / 1024 / 1024).toFixed(1)} MiB`);
}
