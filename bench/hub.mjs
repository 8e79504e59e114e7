// `bench/hub`: what the hub's relay costs. SendMessage to one echo agent straight and through
// the hub (the agent dialled out to it), in the same run: throughput ratio and the relay's added
// p50 with one connection. The agent is on core 0 and the load generator on core 1 (taskset), as
// in bench/serve.mjs; the hub runs in three layouts: on core 0 with the agent (one machine,
// one core for both), on core 1 with the load generator (the agent's core is its own, as when
// the hub is another machine, but the hub takes from the load generator's), and unpinned, where
// the scheduler puts it from moment to moment. Then a fan-in of 200 connected agents with 1 s heartbeats: the
// hub's memory per agent, and whether all stay up.
// The hub's variants, each against the hub plain in the same round (hub and agent sharing core 0):
// tracing on (batched OTLP to a local sink), metrics on (the Prometheus reader, as `--metrics`)
// and TLS (HTTPS for the callers, wss for the agent's link, a throwaway CA); `node bench/hub.mjs
// variants [--rounds N]` runs this part alone.
//
// `--base DIR` compares this build with another one (DIR/dist, e.g. a checkout of main after
// `node scripts/build.mjs --if-stale` there) instead: in each round, each build's hub and agent
// are started side by side and loaded in turn, the order alternating from round to round, and
// the relay of this build is given as a ratio to the other's (`--rounds N`, `--layouts 0,free,1`).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cpuMs, pinnedNode, runLoad, startBenchServer, tasksetWorks } from './pin.mjs';
import { otlpSink, throwawayCertificate } from './variants.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const pin = tasksetWorks();
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const load = (url, connections, seconds) => runLoad(pin, url, connections, seconds);

const memory = async (hubUrl) => (await fetch(`${hubUrl}/bench/memory`)).json();

/** Straight and through a hub on `hubCore`, `rounds` times, each round's pair back to back. */
async function layout(hubCore, { connections, seconds, rounds }) {
  const rows = { direct: [], hub: [], directP50: [], hubP50: [] };
  for (let round = 0; round < rounds; round += 1) {
    const hub = await startBenchServer(pin && hubCore !== 'free', here('./servers/hub.mjs'), [], hubCore === 'free' ? 0 : hubCore);
    const agent = await startBenchServer(pin, here('./servers/hub-agents.mjs'), [hub.url, '1']);
    try {
      const through = `${hub.url}/agents/bench-0/jsonrpc`;
      rows.direct.push(await load(agent.url, connections, seconds));
      rows.hub.push(await load(through, connections, seconds));
      rows.directP50.push((await load(agent.url, 1, 2)).p50);
      rows.hubP50.push((await load(through, 1, 2)).p50);
    } finally {
      agent.stop();
      hub.stop();
    }
  }
  const ratios = rows.hub.map((r, i) => r.rps / rows.direct[i].rps);
  const sum = (list) => ({ rps: median(list.map((r) => r.rps)), p99: median(list.map((r) => r.p99)), errors: list.reduce((n, r) => n + r.errors, 0) });
  return { hubCore, direct: sum(rows.direct), hub: sum(rows.hub), ratio: median(ratios), ratios, p50: { direct: median(rows.directP50), hub: median(rows.hubP50) } };
}

/** Each variant's name and its argument to bench/servers/hub.mjs (none: the hub plain). */
const VARIANTS = [
  ['plain', undefined],
  ['tracing on', 'traces'],
  ['metrics on', 'metrics'],
  ['TLS', 'tls'],
];

/**
 * The hub plain and in each variant, through the hub to one echo agent, hub and agent on core 0:
 * each round starts and loads every variant once, the order turning from round to round, and
 * divides its req/s (and the hub's CPU time per request) by the plain hub's of that round.
 */
export async function variants({ connections = 32, seconds = 4, rounds = 3 } = {}) {
  const sink = await otlpSink();
  const { ca, cert, key } = throwawayCertificate();
  const rows = new Map(VARIANTS.map(([name]) => [name, []]));
  try {
    for (let round = 0; round < rounds; round += 1) {
      const order = VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length]);
      for (const [name, variant] of order) {
        const hubArgs = variant === undefined ? [] : variant === 'tls' ? ['10000', 'tls', cert, key] : ['10000', variant];
        const hub = await startBenchServer(pin, here('./servers/hub.mjs'), hubArgs, 0, { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url });
        // The agent dials wss:// to the TLS hub and trusts the run's CA as any other would.
        const agent = await startBenchServer(pin, here('./servers/hub-agents.mjs'), [hub.url, '1'], 0, { NODE_EXTRA_CA_CERTS: ca }).catch((error) => {
          hub.stop();
          throw error;
        });
        try {
          const before = cpuMs(hub.pid);
          const loaded = await load(`${hub.url}/agents/bench-0/jsonrpc`, connections, seconds);
          rows.get(name).push({ ...loaded, hubUs: ((cpuMs(hub.pid) - before) * 1000) / loaded.answered });
        } finally {
          agent.stop();
          hub.stop();
        }
      }
    }
  } finally {
    sink.close();
  }
  const plain = rows.get('plain');
  const result = { pinned: pin, connections, seconds, rounds, variants: [] };
  for (const [name, list] of rows) {
    const ratios = list.map((row, i) => row.rps / plain[i].rps);
    const cpuRatios = list.map((row, i) => row.hubUs / plain[i].hubUs);
    result.variants.push({ name, rps: median(list.map((r) => r.rps)), p99: median(list.map((r) => r.p99)), hubUs: median(list.map((r) => r.hubUs)), errors: list.reduce((n, r) => n + r.errors, 0), ratio: median(ratios), ratios, cpuRatio: median(cpuRatios), cpuRatios });
  }
  return result;
}

const TARGETS = { 'tracing on': '≥ 0.90', 'metrics on': '≥ 0.97', TLS: 'reported' };

export function describeVariants(r) {
  const rounds = (list) => list.map((v) => v.toFixed(2)).join(' ');
  const lines = [`hub variants: SendMessage through the hub to one echo agent, ${r.connections} connections, ${r.seconds} s per run, medians of ${r.rounds} rounds${r.pinned ? ', hub and agent on core 0, load on core 1' : ' (taskset missing: not pinned)'}`];
  for (const v of r.variants) {
    const figures = `${v.name.padEnd(11)} ${Math.round(v.rps).toString().padStart(6)} req/s  p99 ${v.p99.toFixed(1).padStart(5)} ms  hub CPU ${Math.round(v.hubUs).toString().padStart(4)} µs/req  errors ${v.errors}`;
    lines.push(v.name === 'plain' ? `  ${figures}` : `  ${figures}  ${v.ratio.toFixed(3)}× plain (rounds ${rounds(v.ratios)}; target ${TARGETS[v.name]}), hub CPU ${v.cpuRatio.toFixed(2)}× plain (rounds ${rounds(v.cpuRatios)})`);
  }
  return lines;
}

export async function run({ connections = 32, seconds = 4, rounds = 3, fanIn = 200 } = {}) {
  const result = { pinned: pin, connections, seconds, rounds, layouts: [] };
  for (const core of [0, 1, 'free']) result.layouts.push(await layout(core, { connections, seconds, rounds }));
  result.variants = await variants({ connections, seconds, rounds });

  const hub = await startBenchServer(pin, here('./servers/hub.mjs'), ['1000']);
  try {
    const before = await memory(hub.url);
    const [command, argv] = pinnedNode(pin, 1, [here('./servers/hub-agents.mjs'), hub.url, String(fanIn)]);
    const agents = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve, reject) => {
      agents.stdout.on('data', (chunk) => String(chunk).includes('READY') && resolve());
      agents.on('exit', (code) => reject(new Error(`the agents exited with ${code}`)));
    });
    // Five heartbeats: every agent must have answered them to be up.
    await sleep(5000);
    const after = await memory(hub.url);
    agents.kill('SIGKILL');
    result.fanIn = { agents: fanIn, connected: after.connected, up: after.up, heapPerAgent: (after.heapUsed - before.heapUsed) / fanIn, rssPerAgent: (after.rss - before.rss) / fanIn };
  } finally {
    hub.stop();
  }
  return result;
}

/**
 * This build's relay against `base`'s (a dist/ folder), with the hub on `hubCore`. Both builds'
 * hub and agent are started once and kept (idle while the other is loaded); each round loads
 * one, then the other, the order alternating, so that the machine's load falls on both alike.
 * Through the hub: req/s with `connections`, the hub's and the agent's CPU time per request
 * meanwhile, and the p50 of one connection.
 */
async function against(base, hubCore, { connections, seconds, rounds }) {
  const builds = { ours: fileURLToPath(new URL('../dist/', import.meta.url)), base };
  const started = [];
  const pairs = {};
  try {
    for (const name of ['ours', 'base']) {
      const env = { A2A_LITE_DIST: builds[name] };
      const hub = await startBenchServer(pin && hubCore !== 'free', here('./servers/hub.mjs'), [], hubCore === 'free' ? 0 : hubCore, env);
      started.push(hub);
      const agent = await startBenchServer(pin, here('./servers/hub-agents.mjs'), [hub.url, '1'], 0, env);
      started.push(agent);
      pairs[name] = { hub, agent, through: `${hub.url}/agents/bench-0/jsonrpc` };
    }
    const rows = { ours: [], base: [] };
    for (let round = 0; round < rounds; round += 1) {
      for (const name of round % 2 === 0 ? ['ours', 'base'] : ['base', 'ours']) {
        const { hub, agent, through } = pairs[name];
        const cpu = [cpuMs(hub.pid), cpuMs(agent.pid)];
        const loaded = await load(through, connections, seconds);
        const perRequest = (pid, before) => ((cpuMs(pid) - before) * 1000) / loaded.answered;
        rows[name].push({ ...loaded, hubUs: perRequest(hub.pid, cpu[0]), agentUs: perRequest(agent.pid, cpu[1]), p50One: (await load(through, 1, 2)).p50 });
      }
    }
    const each = (pick) => rows.ours.map((row, i) => pick(row) / pick(rows.base[i]));
    const ratios = { rps: each((row) => row.rps), hubUs: each((row) => row.hubUs), agentUs: each((row) => row.agentUs), p50One: each((row) => row.p50One) };
    const of = (list, key) => median(list.map((row) => row[key]));
    const sum = (list) => ({ rps: of(list, 'rps'), p99: of(list, 'p99'), hubUs: of(list, 'hubUs'), agentUs: of(list, 'agentUs'), p50One: of(list, 'p50One'), errors: list.reduce((n, r) => n + r.errors, 0) });
    return { hubCore, ours: sum(rows.ours), base: sum(rows.base), ratios, median: Object.fromEntries(Object.entries(ratios).map(([key, list]) => [key, median(list)])) };
  } finally {
    for (const server of started) server.stop();
  }
}

export async function compare({ base, layouts = [0, 'free'], connections = 32, seconds = 3, rounds = 9 }) {
  const result = { pinned: pin, base, connections, seconds, rounds, layouts: [] };
  for (const core of layouts) result.layouts.push(await against(base, core, { connections, seconds, rounds }));
  return result;
}

export function describeComparison(r) {
  const lines = [`hub relay, this build against ${r.base}: SendMessage through the hub to one echo agent, ${r.connections} connections, ${r.seconds} s per run, ${r.rounds} rounds alternating${r.pinned ? ', agent on core 0, load on core 1' : ' (taskset missing: not pinned)'}`];
  for (const l of r.layouts) {
    const build = (name, b) => `    ${name}  ${Math.round(b.rps).toString().padStart(6)} req/s  p99 ${b.p99.toFixed(1)} ms  CPU per request: hub ${b.hubUs.toFixed(0)} µs, agent ${b.agentUs.toFixed(0)} µs  one connection p50 ${b.p50One.toFixed(3)} ms  errors ${b.errors}`;
    const ratio = (what, key) => `    ${what} ${l.median[key].toFixed(3)}× base (rounds ${l.ratios[key].map((v) => v.toFixed(2)).join(' ')})`;
    lines.push(
      l.hubCore === 'free' ? '  hub unpinned:' : `  hub on core ${l.hubCore}:`,
      build('this build', l.ours),
      build('base build', l.base),
      ratio('throughput through the hub', 'rps') + '; target ≥ 0.95',
      ratio('hub CPU per request       ', 'hubUs') + '; target ≤ 1.05',
      ratio('agent CPU per request     ', 'agentUs'),
      ratio('one-connection p50        ', 'p50One'),
    );
  }
  return lines;
}

export function describe(r) {
  const lines = [`hub: SendMessage to one echo agent, ${r.connections} connections, ${r.seconds} s per run, medians of ${r.rounds} rounds${r.pinned ? ', agent on core 0, load on core 1' : ' (taskset missing: not pinned)'}`];
  for (const l of r.layouts) {
    lines.push(
      l.hubCore === 'free' ? '  hub unpinned (where the scheduler puts it):' : `  hub on core ${l.hubCore} (${l.hubCore === 0 ? 'sharing the agent\'s core' : 'with the load generator'}):`,
      `    straight to the agent  ${Math.round(l.direct.rps).toString().padStart(6)} req/s  p99 ${l.direct.p99.toFixed(1)} ms  errors ${l.direct.errors}`,
      `    through the hub        ${Math.round(l.hub.rps).toString().padStart(6)} req/s  p99 ${l.hub.p99.toFixed(1)} ms  errors ${l.hub.errors}`,
      `    ratio ${l.ratio.toFixed(2)}× direct (rounds ${l.ratios.map((v) => v.toFixed(2)).join(' ')}; target ≥ 0.50); one connection: p50 ${l.p50.direct.toFixed(2)} ms straight, ${l.p50.hub.toFixed(2)} ms through the hub (+${(l.p50.hub - l.p50.direct).toFixed(2)} ms)`,
    );
  }
  return [
    ...lines,
    ...describeVariants(r.variants).map((line) => `  ${line}`),
    `  fan-in: ${r.fanIn.agents} agents connected (${r.fanIn.connected} held, ${r.fanIn.up} up after 5 heartbeats of 1 s); hub heap +${Math.round(r.fanIn.heapPerAgent / 1024)} KiB and RSS +${Math.round(r.fanIn.rssPerAgent / 1024)} KiB per agent`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({ options: { base: { type: 'string' }, rounds: { type: 'string' }, layouts: { type: 'string' } }, allowPositionals: true });
  const rounds = values.rounds === undefined ? undefined : Number(values.rounds);
  if (positionals[0] === 'variants') {
    for (const line of describeVariants(await variants(rounds === undefined ? {} : { rounds }))) console.log(line);
  } else if (values.base === undefined) {
    for (const line of describe(await run())) console.log(line);
  } else {
    const base = join(resolve(values.base), 'dist');
    if (!existsSync(join(base, 'hub', 'hub.js'))) throw new Error(`no build at ${base}: run node scripts/build.mjs --if-stale in ${values.base}`);
    const layouts = (values.layouts ?? '0,free').split(',').map((name) => (name === 'free' ? 'free' : Number(name)));
    for (const line of describeComparison(await compare({ base, layouts, ...(rounds === undefined ? {} : { rounds }) }))) console.log(line);
  }
}
