// `bench/run`: what orchestration costs. A plan fans out 100 subtasks to real `serve --exec`
// agents whose program takes a fixed time (a shell `sleep`, so that starting it costs next to
// nothing); the plan's wall time is set against the longest subtask as the agents' program timed
// it, both measured in the same run. Also the orchestrator's memory while it ran.
//
// The same sends made straight with the client library (sendAndFollow, no plan, no ledger) are
// timed in the same run too, so that what the agents' own start-up costs on a busy machine is
// told apart from what the orchestrator adds. Rounds alternate; medians are reported.
//
//   node bench/run.mjs [--subtasks 100] [--agents 4] [--seconds 2] [--rounds 3] [--json]
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : process.argv[at + 1];
};
const bin = fileURLToPath(new URL('../dist/cli/bin.js', import.meta.url));
const { runPlan } = await import(new URL('../dist/index.js', import.meta.url).href);
const { openHomeStores } = await import(new URL('../dist/home/stores.js', import.meta.url).href);
const { resolvePeer, transportFor } = await import(new URL('../dist/client/peer.js', import.meta.url).href);
const { sendAndFollow } = await import(new URL('../dist/client/remote-task.js', import.meta.url).href);

/** Starts one agent whose every task sleeps `seconds`, logging its start and end in nanoseconds. */
async function startAgent(dir, id, log, seconds) {
  const home = join(dir, id);
  const made = spawnSync(process.execPath, [bin, 'card', 'init', '--home', home, '--id', id, '--name', id, '--skill', 'work:Work:sleeps'], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(made.stderr);
  const program = join(dir, 'work.sh');
  writeFileSync(program, `s=$(date +%s%N); sleep ${seconds}; e=$(date +%s%N); echo "$s $e" >> ${JSON.stringify(log)}; echo done\n`);
  const child = spawn(process.execPath, [bin, 'serve', '--home', home, '--host', '127.0.0.1', '--port', '0', '--store', 'memory', '--json', '--exec', `sh ${program}`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]).url);
    });
    child.once('exit', (code) => reject(new Error(`serve ${id} exited with ${code}`)));
  });
  return { child, url };
}

/** Runs the benchmark: `subtasks` fanned out to `agentCount` agents whose program sleeps `seconds`. */
export async function run({ subtasks = 100, agentCount = 4, seconds = 2, rounds = 3 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-lite-bench-run-'));
  const log = join(dir, 'times.log');
  const agents = await Promise.all(Array.from({ length: agentCount }, (_, i) => startAgent(dir, `agent-${i}`, log, seconds)));
  try {
    const stores = openHomeStores({ flag: join(dir, 'client') });
    const items = Array.from({ length: subtasks }, (_, n) => ({ agent: agents[n % agentCount].url, n }));
    // One warm-up subtask per agent: each card is fetched and cached before the clock starts.
    const warm = { steps: [{ id: 'warm', agent: '{{item.agent}}', each: agents.map((a) => ({ agent: a.url })), text: 'warm up' }] };
    await runPlan(warm, { stores, root: dir, env: process.env, maxParallel: agentCount });

    const plan = { name: 'fan-out', steps: [{ id: 'many', agent: '{{item.agent}}', each: items, text: 'work {{item.n}}' }] };
    const peers = await Promise.all(agents.map((a) => resolvePeer(a.url, stores.agents)));

    /** The plan, timed, with the orchestrator's memory sampled while it runs. */
    async function planRound() {
      writeFileSync(log, '');
      const before = process.memoryUsage();
      let peakRss = before.rss;
      let peakHeap = before.heapUsed;
      const sampler = setInterval(() => {
        const now = process.memoryUsage();
        peakRss = Math.max(peakRss, now.rss);
        peakHeap = Math.max(peakHeap, now.heapUsed);
      }, 20);
      const started = process.hrtime.bigint();
      const startedAt = Date.now();
      let lastSending = 0;
      const onEvent = (event) => {
        if (event.type === 'step' && event.state === 'sending') lastSending = Number(process.hrtime.bigint() - started) / 1e6;
      };
      const result = await runPlan(plan, { stores, root: dir, env: process.env, maxParallel: subtasks, onEvent });
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      clearInterval(sampler);
      if (result.run.state !== 'completed') throw new Error(`the plan ${result.run.state}: ${result.run.error}`);
      const times = agentTimes();
      // From the plan's start to the first program's start, and from the last program's end to the plan's end.
      const edges = { headMs: times.firstStart - startedAt, tailMs: startedAt + wallMs - times.lastEnd };
      return { wallMs, lastSending, peak: result.peak, ...times, ...edges, rss: peakRss, rssGrowth: peakRss - before.rss, heapGrowth: peakHeap - before.heapUsed };
    }

    /** The same subtasks sent straight with the client library (sendAndFollow), no plan, no ledger. */
    async function bareRound() {
      writeFileSync(log, '');
      const started = process.hrtime.bigint();
      // Each subtask as its requester sees it: from its send to its end, the agent's start of
      // the program included.
      const durations = await Promise.all(
        items.map(async (item) => {
          const peer = peers[item.n % agentCount];
          const message = { messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: `work ${item.n}` }] };
          const sent = process.hrtime.bigint();
          await sendAndFollow(transportFor(peer, undefined), message, { stream: true, deadline: Date.now() + 60_000, onEvent: () => {} });
          return Number(process.hrtime.bigint() - sent) / 1e6;
        }),
      );
      return { wallMs: Number(process.hrtime.bigint() - started) / 1e6, longestTaskMs: Math.max(...durations), ...agentTimes() };
    }

    function agentTimes() {
      const times = readFileSync(log, 'utf8').trim().split('\n').map((line) => line.split(' ').map(Number));
      if (times.length !== subtasks) throw new Error(`the agents ran ${times.length} subtasks, not ${subtasks}`);
      const firstStart = Math.min(...times.map(([s]) => s)) / 1e6;
      const lastEnd = Math.max(...times.map(([, e]) => e)) / 1e6;
      return { longestMs: Math.max(...times.map(([s, e]) => (e - s) / 1e6)), spanMs: lastEnd - firstStart, firstStart, lastEnd };
    }

    const plans = [];
    const bares = [];
    for (let round = 0; round < rounds; round += 1) {
      bares.push(await bareRound());
      plans.push(await planRound());
    }
    const median = (list, key) => [...list].map((r) => r[key]).sort((a, b) => a - b)[Math.floor(list.length / 2)];
    const wallMs = median(plans, 'wallMs');
    const longestMs = median(plans, 'longestMs');
    const bareMs = median(bares, 'wallMs');
    const figures = {
      subtasks,
      agents: agentCount,
      sleepSeconds: seconds,
      rounds,
      wallMs: Math.round(wallMs),
      longestSubtaskMs: Math.round(longestMs),
      overhead: wallMs / longestMs - 1,
      bareWallMs: Math.round(bareMs),
      longestTaskMs: Math.round(median(bares, 'longestTaskMs')),
      overheadOverLongestTask: wallMs / median(bares, 'longestTaskMs') - 1,
      overheadOverBare: wallMs / bareMs - 1,
      agentSpanMs: Math.round(median(plans, 'spanMs')),
      bareAgentSpanMs: Math.round(median(bares, 'spanMs')),
      lastSendMs: Math.round(median(plans, 'lastSending')),
      headMs: Math.round(median(plans, 'headMs')),
      tailMs: Math.round(median(plans, 'tailMs')),
      peakParallel: plans[0].peak,
      rssMB: Math.round(median(plans, 'rss') / 1e5) / 10,
      rssGrowthMB: Math.round(median(plans, 'rssGrowth') / 1e5) / 10,
      heapGrowthMB: Math.round(median(plans, 'heapGrowth') / 1e5) / 10,
    };
    return figures;
  } finally {
    for (const agent of agents) agent.child.kill('SIGTERM');
    await Promise.all(agents.map((a) => new Promise((resolve) => (a.child.exitCode !== null ? resolve() : a.child.once('exit', resolve)))));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The figures as lines, for `npm run bench` and a run of this file alone. */
export function describe(figures) {
  return [
    `run fan-out       ${figures.subtasks} subtasks on ${figures.agents} agents, ${figures.sleepSeconds} s each (median of ${figures.rounds}): plan ${figures.wallMs} ms, longest subtask ${figures.longestSubtaskMs} ms → overhead ${(100 * figures.overhead).toFixed(1)} % (target < 10 %); ${figures.peakParallel} at once, the last sent at ${figures.lastSendMs} ms`,
    `run vs. subtask  the longest subtask as its requester sees it (send → completed, the agent's start of its program included, in the same round's fan-out without a plan): ${figures.longestTaskMs} ms → the plan takes ${(100 * figures.overheadOverLongestTask).toFixed(1)} % more (target < 10 %)`,
    `run vs. bare      the same sends with sendAndFollow alone: ${figures.bareWallMs} ms → the plan takes ${(100 * figures.overheadOverBare).toFixed(1)} % more; the agents' first start to last end: ${figures.agentSpanMs} ms under the plan, ${figures.bareAgentSpanMs} ms bare`,
    `run edges         plan start → first program start ${figures.headMs} ms; last program end → plan end ${figures.tailMs} ms`,
    `run memory        orchestrator RSS peak ${figures.rssMB} MB (+${figures.rssGrowthMB} MB during the run), heap +${figures.heapGrowthMB} MB`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await run({
    subtasks: Number(option('subtasks', '100')),
    agentCount: Number(option('agents', '4')),
    seconds: Number(option('seconds', '2')),
    rounds: Number(option('rounds', '3')),
  });
  if (process.argv.includes('--json')) console.log(JSON.stringify(figures));
  else for (const line of describe(figures)) console.log(line);
}
