// `bench/scale`: what a blocking SendMessage costs a2a-lite serve on PostgreSQL against SQLite, in
// the same run: the serve process's CPU per request, PostgreSQL's own CPU per request (its
// backends, from /proc), database round trips per request (counted by the store), and
// throughput, with 32 connections and with one. The agent is pinned to core 0 and the load
// generator to core 1 (taskset); PostgreSQL runs where the machine puts it. Each round measures
// both stores back to back, the order alternating. A database is made for the run and dropped.
//
// `node bench/scale.mjs [--rounds N] [--seconds S] [--postgres URL] [--only serve|hub-cluster]`
// (default URL: postgres://postgres@127.0.0.1:5432/postgres, the server the run's database is
// made on). Its second section is bench/hub-cluster.mjs: what a hub's relay across instances adds.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { describe as describeHubCluster, run as runHubCluster } from './hub-cluster.mjs';
import { cpuMs, runLoad, startBenchServer, tasksetWorks } from './pin.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const pin = tasksetWorks();
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

const load = (url, connections, seconds) => runLoad(pin, url, connections, seconds);

/** CPU milliseconds of every PostgreSQL process on this machine so far (0 where /proc shows none). */
function postgresCpuMs() {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') total += cpuMs(pid);
    } catch {
      // Gone meanwhile.
    }
  }
  return total;
}

const trips = async (url) => (await (await fetch(url.replace(/\/jsonrpc$/, '/bench/trips'))).json()).trips;

/** One store's figures: a warm-up, then `seconds` of load with `connections`, measured. */
async function measure(kind, databaseUrl, connections, seconds) {
  const server = await startBenchServer(pin, here('./servers/store-agent.mjs'), kind === 'postgres' ? ['postgres', databaseUrl] : ['sqlite']);
  try {
    await load(server.url, connections, 1);
    const before = { cpu: cpuMs(server.pid), pg: postgresCpuMs(), trips: await trips(server.url) };
    const result = await load(server.url, connections, seconds);
    const after = { cpu: cpuMs(server.pid), pg: postgresCpuMs(), trips: await trips(server.url) };
    const answered = Math.max(1, result.answered);
    return { rps: result.rps, p50: result.p50, errors: result.errors, serveUs: ((after.cpu - before.cpu) * 1000) / answered, postgresUs: kind === 'postgres' ? ((after.pg - before.pg) * 1000) / answered : 0, trips: (after.trips - before.trips) / answered };
  } finally {
    server.stop();
  }
}

export async function run({ rounds = 5, seconds = 4, postgres = 'postgres://postgres@127.0.0.1:5432/postgres' } = {}) {
  const { default: pg } = await import('pg');
  const name = `a2a_bench_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: postgres });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(postgres);
  url.pathname = `/${name}`;
  const result = { pinned: pin, rounds, seconds, layouts: [] };
  try {
    for (const connections of [32, 1]) {
      const rows = { sqlite: [], postgres: [] };
      for (let round = 0; round < rounds; round += 1) {
        for (const kind of round % 2 === 0 ? ['sqlite', 'postgres'] : ['postgres', 'sqlite']) rows[kind].push(await measure(kind, url.href, connections, seconds));
      }
      const sum = (list) => Object.fromEntries(Object.keys(list[0]).map((key) => [key, median(list.map((row) => row[key]))]));
      result.layouts.push({ connections, sqlite: sum(rows.sqlite), postgres: sum(rows.postgres), cpuRatio: median(rows.postgres.map((row, i) => row.serveUs / rows.sqlite[i].serveUs)) });
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
  return result;
}

export function describe(r) {
  const lines = [`serve on PostgreSQL against SQLite: blocking SendMessage to an echo agent, ${r.seconds} s per run, ${r.rounds} rounds alternating${r.pinned ? ', agent on core 0, load on core 1' : ' (taskset missing: not pinned)'}`];
  for (const l of r.layouts) {
    const row = (name, m) => `    ${name.padEnd(10)} ${Math.round(m.rps)} req/s  p50 ${m.p50.toFixed(2)} ms  serve CPU ${m.serveUs.toFixed(0)} µs/request  PostgreSQL CPU ${m.postgresUs.toFixed(0)} µs/request  round trips ${m.trips.toFixed(3)}/request  errors ${m.errors}`;
    lines.push(`  ${l.connections} connection${l.connections === 1 ? '' : 's'}:`, row('SQLite', l.sqlite), row('PostgreSQL', l.postgres), `    serve CPU per request on PostgreSQL ÷ SQLite: ${l.cpuRatio.toFixed(2)}; round trips per request ${l.postgres.trips.toFixed(3)} (goal ≤ 2)`);
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { rounds: { type: 'string' }, seconds: { type: 'string' }, postgres: { type: 'string' }, only: { type: 'string' } } });
  const options = { ...(values.rounds === undefined ? {} : { rounds: Number(values.rounds) }), ...(values.seconds === undefined ? {} : { seconds: Number(values.seconds) }), ...(values.postgres === undefined ? {} : { postgres: values.postgres }) };
  if (values.only !== 'hub-cluster') for (const line of describe(await run(options))) console.log(line);
  if (values.only !== 'serve') for (const line of describeHubCluster(await runHubCluster(options))) console.log(line);
}
