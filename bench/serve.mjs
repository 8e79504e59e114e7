// `bench/serve`: SendMessage throughput and p99 of a2a-lite (memory, SQLite) against a raw
// node:http JSON handler and the official SDK's echo server, in the same run. Each server is
// pinned to core 0 and the load generator to core 1 (taskset), so they do not compete.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pinnedNode, startBenchServer, tasksetWorks } from './pin.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const hasTaskset = tasksetWorks();
const pinned = (core, args) => pinnedNode(hasTaskset, core, args);

const startServer = (script, args = []) => startBenchServer(hasTaskset, here(script), args);

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
  ['a2a-lite (memory, TLS)', './servers/lite.mjs', ['memory', 'tls']],
  ['a2a-lite (SQLite)', './servers/lite.mjs', ['sqlite']],
  ['@a2a-js/sdk (express, memory)', './servers/sdk.mjs', []],
];

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * Each round measures every server once, back to back, and divides each by the raw server of
 * that round: the machine's mood changes between rounds, much less within one. The figure given
 * for a server is the median over rounds of its requests/s, its ratio and its p99.
 */
export async function run({ connections = 32, seconds = 5, rounds = 3 } = {}) {
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
  const raw = results.get(SERVERS[0][0]);
  const throughput = Object.fromEntries(
    [...results].map(([name, runs]) => {
      const ratios = runs.map((r, i) => r.rps / raw[i].rps);
      return [name, { rps: median(runs.map((r) => r.rps)), p50: median(runs.map((r) => r.p50)), p99: median(runs.map((r) => r.p99)), errors: runs.reduce((n, r) => n + r.errors, 0), ratio: median(ratios), ratios }];
    }),
  );
  const sseServer = await startServer('./servers/lite.mjs', ['memory']);
  let sse;
  let held;
  try {
    sse = await runClient('./sse-client.mjs', [sseServer.url, 'rate', '20000']);
    held = await runClient('./sse-client.mjs', [sseServer.url, 'hold', '1000']);
  } finally {
    sseServer.stop();
  }
  return { pinned: hasTaskset, connections, seconds, rounds, throughput, sse, held };
}

/** The report, as lines. */
export function describe(r) {
  const t = r.throughput;
  const memory = t['a2a-lite (memory)'];
  const sqlite = t['a2a-lite (SQLite)'];
  const sdk = t['@a2a-js/sdk (express, memory)'];
  const tls = t['a2a-lite (memory, TLS)'];
  const lines = [
    `serve: SendMessage, ${r.connections} connections, ${r.seconds} s per run, medians of ${r.rounds} rounds${r.pinned ? ', server on core 0, load on core 1' : ' (taskset missing: not pinned)'}`,
  ];
  for (const [name, x] of Object.entries(t)) {
    lines.push(
      `  ${name.padEnd(30)} ${Math.round(x.rps).toString().padStart(6)} req/s  p50 ${x.p50.toFixed(1).padStart(5)} ms  p99 ${x.p99.toFixed(1).padStart(5)} ms  ${x.ratio.toFixed(2)}× raw (rounds ${x.ratios.map((v) => v.toFixed(2)).join(' ')})  errors ${x.errors}`,
    );
  }
  lines.push(
    `  targets: memory ${memory.ratio.toFixed(2)}× raw (≥ 0.50), SQLite ${sqlite.ratio.toFixed(2)}× raw (≥ 0.35), p99 ${memory.p99.toFixed(1)} / ${sqlite.p99.toFixed(1)} ms vs SDK ${sdk.p99.toFixed(1)} ms (below)`,
    `  TLS: a2a-lite over HTTPS (kept-alive connections, P-256) ${(tls.ratio / memory.ratio).toFixed(2)}× the same over plain HTTP`,
    `SSE: ${Math.round(r.sse.eventsPerSecond).toLocaleString('en')} events/s on one stream (${r.sse.events} events); 1,000 open streams hold ${(r.held.heapUsedBytes / 1024 / 1024).toFixed(1)} MiB of heap (${r.held.perStreamBytes.toLocaleString('en')} bytes each), RSS +${(r.held.rssBytes / 1024 / 1024).toFixed(1)} MiB`,
  );
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of describe(await run())) console.log(line);
}
