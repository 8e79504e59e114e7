// `bench/hub-cluster`: what a hub cluster's relay across instances adds. Two hub instances on one
// PostgreSQL database and one NATS prefix, one echo agent dialled in to instance A, and a load
// generator: blocking SendMessage through A (the agent's own instance: a one-instance relay) and
// through B (B → NATS → A → the agent and back), in the same run, rounds alternating. Reported:
// the p50 of one connection each way and what crossing adds (goal ≤ 1 ms); with 32 connections,
// throughput and the CPU per request of each hub and of the NATS server. A hub without a cluster
// is measured beside them, for what running as an instance costs a local relay. The agent and
// both hubs are on core 0, the load generator on core 1 (taskset); PostgreSQL and NATS run
// where the machine puts them. A database is made for the run and dropped.
//
// `node bench/hub-cluster.mjs [--rounds N] [--seconds S] [--postgres URL] [--nats URL]`
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cpuMs, runLoad, startBenchServer, tasksetWorks } from './pin.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const pin = tasksetWorks();
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const load = (url, connections, seconds) => runLoad(pin, url, connections, seconds);

/** CPU milliseconds of every process named `name` on this machine so far. */
function cpuOf(name) {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name) total += cpuMs(pid);
    } catch {
      // Gone meanwhile.
    }
  }
  return total;
}

/** Waits until `hub` says agent bench-0 is connected (to any instance). */
async function linked(hub) {
  for (let i = 0; i < 200; i += 1) {
    const agents = (await (await fetch(`${hub}/hub/v1/agents`)).json()).agents;
    if (agents.some((agent) => agent.id === 'bench-0' && agent.connected)) return;
    await sleep(50);
  }
  throw new Error(`${hub} never saw the agent`);
}

export async function run({ rounds = 5, seconds = 3, postgres = 'postgres://postgres@127.0.0.1:5432/postgres', nats = 'nats://127.0.0.1:4222' } = {}) {
  const { default: pg } = await import('pg');
  const name = `a2a_bench_hubs_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: postgres });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const database = new URL(postgres);
  database.pathname = `/${name}`;
  const prefix = `bench.hubs.${process.pid}.${Date.now().toString(36)}`;
  const started = [];
  try {
    const a = await startBenchServer(pin, here('./servers/cluster-hub.mjs'), [database.href, nats, prefix]);
    started.push(a);
    const b = await startBenchServer(pin, here('./servers/cluster-hub.mjs'), [database.href, nats, prefix]);
    started.push(b);
    const single = await startBenchServer(pin, here('./servers/hub.mjs'));
    started.push(single);
    started.push(await startBenchServer(pin, here('./servers/hub-agents.mjs'), [a.url, '1']));
    started.push(await startBenchServer(pin, here('./servers/hub-agents.mjs'), [single.url, '1']));
    await linked(a.url);
    await linked(b.url);
    const through = { single: `${single.url}/agents/bench-0/jsonrpc`, local: `${a.url}/agents/bench-0/jsonrpc`, crossing: `${b.url}/agents/bench-0/jsonrpc` };
    const p50 = { single: [], local: [], crossing: [] };
    const loaded = { local: [], crossing: [] };
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? ['single', 'local', 'crossing'] : ['crossing', 'local', 'single'];
      for (const way of order) p50[way].push((await load(through[way], 1, seconds)).p50);
      for (const way of round % 2 === 0 ? ['local', 'crossing'] : ['crossing', 'local']) {
        const before = { a: cpuMs(a.pid), b: cpuMs(b.pid), nats: cpuOf('nats-server') };
        const result = await load(through[way], 32, seconds);
        const per = (after, start) => ((after - start) * 1000) / Math.max(1, result.answered);
        loaded[way].push({ rps: result.rps, p99: result.p99, errors: result.errors, aUs: per(cpuMs(a.pid), before.a), bUs: per(cpuMs(b.pid), before.b), natsUs: per(cpuOf('nats-server'), before.nats) });
      }
    }
    const added = p50.crossing.map((value, i) => value - p50.local[i]);
    const sum = (list) => Object.fromEntries(Object.keys(list[0]).map((key) => [key, key === 'errors' ? list.reduce((n, row) => n + row.errors, 0) : median(list.map((row) => row[key]))]));
    return { pinned: pin, rounds, seconds, p50: { single: median(p50.single), local: median(p50.local), crossing: median(p50.crossing) }, added: median(added), addedRounds: added, loaded: { local: sum(loaded.local), crossing: sum(loaded.crossing) } };
  } finally {
    for (const server of started.reverse()) server.stop();
    await sleep(200);
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

export function describe(r) {
  const row = (name, m) => `    ${name.padEnd(26)} ${Math.round(m.rps).toString().padStart(6)} req/s  p99 ${m.p99.toFixed(1)} ms  CPU per request: hub A ${m.aUs.toFixed(0)} µs, hub B ${m.bUs.toFixed(0)} µs, nats-server ${m.natsUs.toFixed(0)} µs  errors ${m.errors}`;
  return [
    `hub cluster: blocking SendMessage to one echo agent dialled in to hub A of two (PostgreSQL registry, NATS bus), ${r.seconds} s per run, medians of ${r.rounds} rounds${r.pinned ? ', agent and hubs on core 0, load on core 1' : ' (taskset missing: not pinned)'}`,
    `  one connection, p50: ${r.p50.single.toFixed(3)} ms through a hub without a cluster, ${r.p50.local.toFixed(3)} ms through A (the agent's instance), ${r.p50.crossing.toFixed(3)} ms through B (crossing to A over NATS)`,
    `  crossing adds ${r.added.toFixed(3)} ms at p50 (rounds ${r.addedRounds.map((v) => v.toFixed(3)).join(' ')}; goal ≤ 1 ms)`,
    '  32 connections:',
    row('through A (one instance)', r.loaded.local),
    row('through B (crossing to A)', r.loaded.crossing),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { rounds: { type: 'string' }, seconds: { type: 'string' }, postgres: { type: 'string' }, nats: { type: 'string' } } });
  const options = Object.fromEntries(Object.entries({ rounds: values.rounds && Number(values.rounds), seconds: values.seconds && Number(values.seconds), postgres: values.postgres, nats: values.nats }).filter(([, value]) => value !== undefined));
  for (const line of describe(await run(options))) console.log(line);
}
