// `bench/serve`: SendMessage throughput and p99 of a2a-lite (memory, SQLite) against a raw
// node:http JSON handler and the official SDK's echo server, in the same run; then over gRPC,
// a2a-lite's binding against the SDK's and against a2a-lite's own JSON-RPC. Each server is
// pinned to core 0 and the load generator to core 1 (taskset), so they do not compete.
// `node bench/serve.mjs grpc` runs the gRPC comparison alone; `node bench/serve.mjs telemetry [ROUNDS]`
// runs only the memory server with telemetry off, tracing on and metrics on (and the raw server).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cpuMs, pinnedNode, startBenchServer, tasksetWorks } from './pin.mjs';
import { otlpSink } from './variants.mjs';

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
  ['a2a-lite (memory, tracing on)', './servers/lite.mjs', ['memory', 'traces']],
  ['a2a-lite (memory, metrics on)', './servers/lite.mjs', ['memory', 'metrics']],
];

/** The gRPC comparison: each line's server, and its load generator (HTTP/1.1 JSON-RPC or gRPC). */
const GRPC_SERVERS = [
  ['a2a-lite JSON-RPC (memory)', './servers/lite.mjs', ['memory'], './load.mjs'],
  ['a2a-lite gRPC (memory)', './servers/lite.mjs', ['memory', 'grpc'], './grpc-load.mjs'],
  ['@a2a-js/sdk gRPC (memory)', './servers/sdk.mjs', ['grpc'], './grpc-load.mjs'],
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
async function measure(servers, { connections, seconds, rounds, env = {} }) {
  const results = new Map(servers.map(([name]) => [name, []]));
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, script, args, load = './load.mjs'] of servers) {
      const server = await startBenchServer(hasTaskset, here(script), args, 0, env);
      try {
        // The server's CPU time for each request answered: a figure other processes on the machine disturb less than the rate.
        const before = cpuMs(server.pid);
        const figures = await runClient(load, [server.url, String(connections), String(seconds), '1']);
        results.get(name).push({ ...figures, cpuUs: ((cpuMs(server.pid) - before) * 1000) / figures.answered });
      } finally {
        server.stop();
      }
    }
  }
  const base = results.get(servers[0][0]);
  return Object.fromEntries(
    [...results].map(([name, runs]) => {
      const ratios = runs.map((r, i) => r.rps / base[i].rps);
      return [name, { rps: median(runs.map((r) => r.rps)), p50: median(runs.map((r) => r.p50)), p99: median(runs.map((r) => r.p99)), errors: runs.reduce((n, r) => n + r.errors, 0), ratio: median(ratios), ratios, runs: runs.map((r) => r.rps), cpuUs: median(runs.map((r) => r.cpuUs)), cpuRuns: runs.map((r) => r.cpuUs) }];
    }),
  );
}

/**
 * gRPC: each round runs a2a-lite's JSON-RPC, its gRPC and the SDK's gRPC back to back, and the
 * ratios are taken within the round (gRPC over the SDK's gRPC, gRPC over JSON-RPC).
 */
export async function runGrpc({ connections = 32, seconds = 5, rounds = 3 } = {}) {
  const t = await measure(GRPC_SERVERS, { connections, seconds, rounds });
  const [jsonrpc, ours, sdk] = GRPC_SERVERS.map(([name]) => t[name]);
  const overSdk = ours.runs.map((rps, i) => rps / sdk.runs[i]);
  const overJsonRpc = ours.runs.map((rps, i) => rps / jsonrpc.runs[i]);
  // The same ratios by the server's CPU time per request (theirs over ours: above 1 is cheaper).
  const cpuOverSdk = ours.cpuRuns.map((us, i) => sdk.cpuRuns[i] / us);
  const cpuOverJsonRpc = ours.cpuRuns.map((us, i) => jsonrpc.cpuRuns[i] / us);
  const ratio = (values) => ({ median: median(values), rounds: values });
  return { pinned: hasTaskset, connections, seconds, rounds, throughput: t, overSdk: ratio(overSdk), overJsonRpc: ratio(overJsonRpc), cpuOverSdk: ratio(cpuOverSdk), cpuOverJsonRpc: ratio(cpuOverJsonRpc) };
}

/** The gRPC report, as lines. */
export function describeGrpc(r) {
  const lines = [`gRPC: SendMessage, ${r.connections} calls at once on one channel (JSON-RPC: ${r.connections} connections), ${r.seconds} s per run, medians of ${r.rounds} rounds${r.pinned ? ', server on core 0, load on core 1' : ' (taskset missing: not pinned)'}`];
  for (const [name, x] of Object.entries(r.throughput)) {
    lines.push(`  ${name.padEnd(30)} ${Math.round(x.rps).toString().padStart(6)} req/s  p50 ${x.p50.toFixed(1).padStart(5)} ms  p99 ${x.p99.toFixed(1).padStart(5)} ms  server CPU ${Math.round(x.cpuUs).toString().padStart(4)} µs/req  (rounds ${x.runs.map((v) => Math.round(v)).join(' ')} req/s; ${x.cpuRuns.map((v) => Math.round(v)).join(' ')} µs)  errors ${x.errors}`);
  }
  const rounds = (ratios) => ratios.map((v) => v.toFixed(2)).join(' ');
  lines.push(
    `  targets, by req/s: gRPC ${r.overSdk.median.toFixed(2)}× the SDK's gRPC (≥ 3; rounds ${rounds(r.overSdk.rounds)}), ${r.overJsonRpc.median.toFixed(2)}× a2a-lite's JSON-RPC (≥ 0.8; rounds ${rounds(r.overJsonRpc.rounds)})`,
    `  by server CPU per request: ${r.cpuOverSdk.median.toFixed(2)}× cheaper than the SDK's gRPC (rounds ${rounds(r.cpuOverSdk.rounds)}), ${r.cpuOverJsonRpc.median.toFixed(2)}× a2a-lite's JSON-RPC (rounds ${rounds(r.cpuOverJsonRpc.rounds)})`,
  );
  return lines;
}

export async function run({ connections = 32, seconds = 5, rounds = 3 } = {}) {
  const sink = await otlpSink();
  const throughput = await measure(SERVERS, { connections, seconds, rounds, env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } });
  sink.close();
  const sseServer = await startServer('./servers/lite.mjs', ['memory']);
  let sse;
  let held;
  try {
    sse = await runClient('./sse-client.mjs', [sseServer.url, 'rate', '20000']);
    held = await runClient('./sse-client.mjs', [sseServer.url, 'hold', '1000']);
  } finally {
    sseServer.stop();
  }
  const grpc = await runGrpc({ connections, seconds, rounds });
  return { pinned: hasTaskset, connections, seconds, rounds, throughput, sse, held, grpc };
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
  const ofMemory = (name) => {
    const ratios = t[name].ratios.map((v, i) => v / memory.ratios[i]);
    return `${(t[name].ratio / memory.ratio).toFixed(3)} of telemetry off (rounds ${ratios.map((v) => v.toFixed(3)).join(' ')})`;
  };
  lines.push(`  tracing on (batched OTLP to a local sink): ${ofMemory('a2a-lite (memory, tracing on)')}; metrics on: ${ofMemory('a2a-lite (memory, metrics on)')}`);
  lines.push(
    `  TLS: a2a-lite over HTTPS (kept-alive connections, P-256) ${(tls.ratio / memory.ratio).toFixed(2)}× the same over plain HTTP`,
    `  targets: memory ${memory.ratio.toFixed(2)}× raw (≥ 0.50), SQLite ${sqlite.ratio.toFixed(2)}× raw (≥ 0.35), p99 ${memory.p99.toFixed(1)} / ${sqlite.p99.toFixed(1)} ms vs SDK ${sdk.p99.toFixed(1)} ms (below)`,
    `SSE: ${Math.round(r.sse.eventsPerSecond).toLocaleString('en')} events/s on one stream (${r.sse.events} events); 1,000 open streams hold ${(r.held.heapUsedBytes / 1024 / 1024).toFixed(1)} MiB of heap (${r.held.perStreamBytes.toLocaleString('en')} bytes each), RSS +${(r.held.rssBytes / 1024 / 1024).toFixed(1)} MiB`,
    ...describeGrpc(r.grpc),
  );
  return lines;
}

/** Telemetry's cost alone: the raw server, then a2a-lite (memory) with telemetry off, tracing on and metrics on, in each round. */
export async function runTelemetry({ connections = 32, seconds = 5, rounds = 3 } = {}) {
  const names = new Set(['raw node:http JSON', 'a2a-lite (memory)', 'a2a-lite (memory, tracing on)', 'a2a-lite (memory, metrics on)']);
  const sink = await otlpSink();
  try {
    const throughput = await measure(SERVERS.filter(([name]) => names.has(name)), { connections, seconds, rounds, env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } });
    return { pinned: hasTaskset, connections, seconds, rounds, throughput };
  } finally {
    sink.close();
  }
}

/** The telemetry report, as lines. */
export function describeTelemetry(r) {
  const t = r.throughput;
  const memory = t['a2a-lite (memory)'];
  const lines = [`telemetry: SendMessage, ${r.connections} connections, ${r.seconds} s per run, medians of ${r.rounds} rounds${r.pinned ? ', server on core 0, load on core 1' : ' (taskset missing: not pinned)'}`];
  for (const [name, x] of Object.entries(t)) {
    const ofOff = x.ratios.map((v, i) => v / memory.ratios[i]);
    const cpu = x.cpuRuns.map((v, i) => memory.cpuRuns[i] / v);
    lines.push(`  ${name.padEnd(30)} ${Math.round(x.rps).toString().padStart(6)} req/s  p99 ${x.p99.toFixed(1).padStart(5)} ms  ${(x.ratio / memory.ratio).toFixed(3)} of telemetry off (rounds ${ofOff.map((v) => v.toFixed(3)).join(' ')}; by server CPU ${cpu.map((v) => v.toFixed(3)).join(' ')})  errors ${x.errors}`);
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const mode = process.argv[2];
  const rounds = Number(process.argv[3] ?? 3);
  const lines = mode === 'grpc' ? describeGrpc(await runGrpc({ rounds })) : mode === 'telemetry' ? describeTelemetry(await runTelemetry({ rounds })) : describe(await run());
  for (const line of lines) console.log(line);
}
