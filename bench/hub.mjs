// `bench/hub`: what the hub's relay costs. SendMessage to one echo agent straight and through
// the hub (the agent dialled out to it), in the same run: throughput ratio and the relay's added
// p50 with one connection. The agent is on core 0 and the load generator on core 1 (taskset), as
// in bench/serve.mjs; the hub runs in three layouts: on core 0 with the agent (one machine,
// one core for both), on core 1 with the load generator (the agent's core is its own, as when
// the hub is another machine, but the hub takes from the load generator's), and unpinned, where
// the scheduler puts it from moment to moment. Then a fan-in of 200 connected agents with 1 s heartbeats: the
// hub's memory per agent, and whether all stay up.
// The hub's variants, each against a plain hub loaded at the same moment (hubs and agents sharing core 0):
// tracing on (batched OTLP to a local sink), metrics on (the Prometheus reader, as `--metrics`)
// and TLS (HTTPS for the callers, wss for the agent's link, a throwaway CA); `node bench/hub.mjs
// variants [--rounds N]` runs this part alone.
//
// `--base DIR` compares this build with another one (DIR/dist, e.g. a checkout of main after
// `node scripts/build.mjs --if-stale` there) instead: each build's hub and agent are started side
// by side and, in each round, loaded at the same moment (bench/paired.mjs), and the relay of this
// build is given as a ratio to the other's (`--rounds N`, `--layouts 0,free,1`).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pinnedNode, runLoad, startBenchServer, tasksetWorks } from './pin.mjs';
import { median, pairedRounds, ratiosOf, startRelay } from './paired.mjs';
import { otlpSink, throwawayCertificate } from './variants.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const pin = tasksetWorks();
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
 * Each variant against the hub plain, through the hub to one echo agent, hubs and agents on
 * core 0: a plain relay and the variant's are started and loaded at the same moment each round
 * (bench/paired.mjs), and the variant's req/s (and its hub's CPU time per request) divided by the
 * plain one's of that round.
 */
export async function variants({ connections = 32, seconds = 4, rounds = 3 } = {}) {
  const sink = await otlpSink();
  const { ca, cert, key } = throwawayCertificate();
  // The agent dials wss:// to the TLS hub and trusts the run's CA as any other would.
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, NODE_EXTRA_CA_CERTS: ca };
  const result = { pinned: pin, connections, seconds, rounds, variants: [] };
  try {
    for (const [name, variant] of VARIANTS.slice(1)) {
      const hubArgs = variant === 'tls' ? ['10000', 'tls', cert, key] : ['10000', variant];
      const sides = [];
      try {
        sides.push(await startRelay(pin, here, { env }), await startRelay(pin, here, { hubArgs, env }));
        const [plain, list] = await pairedRounds(pin, sides, { connections: Math.max(1, connections >> 1), seconds, rounds });
        const rps = ratiosOf(list, plain, 'rps');
        const cpu = ratiosOf(list, plain, 'hubUs');
        if (result.variants.length === 0) result.variants.push({ name: 'plain', ...figures(plain) });
        result.variants.push({ name, ...figures(list), ratio: rps.median, ratios: rps.rounds, cpuRatio: cpu.median, cpuRatios: cpu.rounds });
      } finally {
        for (const side of sides) side.stop();
      }
    }
  } finally {
    sink.close();
  }
  return result;
}

function figures(list) {
  return { rps: median(list.map((r) => r.rps)), p99: median(list.map((r) => r.p99)), hubUs: median(list.map((r) => r.hubUs)), errors: list.reduce((n, r) => n + r.errors, 0) };
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
 * This build's relay against `base`'s (a dist/ folder), with the hubs on `hubCore`. Both
 * builds' hub and agent are started once and loaded at the same moment in each round, each by a
 * load generator of its own with half of `connections` (bench/paired.mjs): req/s, the hub's and
 * the agent's CPU time per request. Then, one after the other, the p50 of one connection.
 */
async function against(base, hubCore, { connections, seconds, rounds }) {
  const builds = { ours: fileURLToPath(new URL('../dist/', import.meta.url)), base };
  const sides = [];
  try {
    for (const name of ['ours', 'base']) sides.push(await startRelay(pin, here, { hubCore, env: { A2A_LITE_DIST: builds[name] } }));
    const [ours, theirs] = await pairedRounds(pin, sides, { connections: Math.max(1, connections >> 1), seconds, rounds });
    for (let round = 0; round < rounds; round += 1) {
      for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) (i === 0 ? ours : theirs)[round].p50One = (await load(sides[i].url, 1, 2)).p50;
    }
    const ratios = Object.fromEntries(['rps', 'hubUs', 'agentUs', 'p50One'].map((key) => [key, ratiosOf(ours, theirs, key).rounds]));
    const of = (list, key) => median(list.map((row) => row[key]));
    const sum = (list) => ({ rps: of(list, 'rps'), p99: of(list, 'p99'), hubUs: of(list, 'hubUs'), agentUs: of(list, 'agentUs'), p50One: of(list, 'p50One'), errors: list.reduce((n, r) => n + r.errors, 0) });
    return { hubCore, ours: sum(ours), base: sum(theirs), ratios, median: Object.fromEntries(Object.entries(ratios).map(([key, list]) => [key, median(list)])) };
  } finally {
    for (const side of sides) side.stop();
  }
}

export async function compare({ base, layouts = [0, 'free'], connections = 32, seconds = 3, rounds = 9 }) {
  const result = { pinned: pin, base, connections, seconds, rounds, layouts: [] };
  for (const core of layouts) result.layouts.push(await against(base, core, { connections, seconds, rounds }));
  return result;
}

export function describeComparison(r) {
  const lines = [`hub relay, this build against ${r.base}: SendMessage through the hub to one echo agent, ${r.connections} connections, ${r.seconds} s per run, ${r.rounds} rounds, both builds loaded at once${r.pinned ? ', agents on core 0, loads on core 1' : ' (taskset missing: not pinned)'}`];
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
