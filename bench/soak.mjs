// `bench/soak`: N SSE streams held open while blocking SendMessage requests come at a steady
// rate, with the server's heap and RSS sampled throughout; then one slow reader against a server
// emitting as fast as it can. The server (bench/servers/lite.mjs, memory store) is pinned to
// core 0 and the clients to core 1 when taskset is there.
//
// The same SendMessage load first runs alone for --baseline seconds, so that its latency during
// the hold can be read against the machine's mood at the time.
//
//   node bench/soak.mjs [--streams 1000] [--hold 60] [--tick 1000] [--rate 500] [--baseline 15]
//                       [--slow-events 1000000] [--slow-rate 102400] [--slow-seconds 10] [--no-pin] [--json]
import { execFileSync, spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pinnedNode, startBenchServer, tasksetWorks } from './pin.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const MiB = 1024 * 1024;

const { values: flags } = parseArgs({
  options: {
    streams: { type: 'string', default: '1000' },
    hold: { type: 'string', default: '60' },
    tick: { type: 'string', default: '1000' },
    rate: { type: 'string', default: '500' },
    baseline: { type: 'string', default: '15' },
    'slow-events': { type: 'string', default: '1000000' },
    'slow-rate': { type: 'string', default: '102400' },
    'slow-seconds': { type: 'string', default: '10' },
    'no-pin': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});

const canPin = !flags['no-pin'] && tasksetWorks();
const pinned = (core, args) => pinnedNode(canPin, core, args);
// This process sends the SendMessage load: it shares core 1 with the stream client.
if (canPin) execFileSync('taskset', ['-a', '-cp', '1', String(process.pid)], { stdio: 'ignore' });

const startServer = () => startBenchServer(canPin, here('./servers/lite.mjs'), ['memory']);

/** Runs bench/sse-client.mjs; calls onLine for each line it prints; resolves with its last (JSON). */
function runClient(args, onLine = () => {}) {
  const [command, argv] = pinned(1, [here('./sse-client.mjs'), ...args]);
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    let last = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      out += chunk;
      let at;
      while ((at = out.indexOf('\n')) !== -1) {
        last = out.slice(0, at);
        out = out.slice(at + 1);
        onLine(last);
      }
    });
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(last)) : reject(new Error(`sse-client ${args[1]} exited with ${code}`))));
  });
}

/** The server's memory after a full collection and its open connections, with the phase they were taken in. */
async function sampleMemory(url, phase) {
  const { heapUsed, rss, connections } = JSON.parse(await (await fetch(new URL('/bench/memory', url))).text());
  return { phase, heapUsed, rss, connections };
}

/**
 * Sends blocking SendMessage requests at `rate` per second (open loop: a slow answer does not
 * delay the next request) until stopped; counts errors and keeps each latency.
 */
function steadySender(url, rate) {
  const target = new URL(url);
  // node:http's agent heeds the server's "Keep-Alive: timeout=5" only when given a timeout of
  // its own; without one it keeps idle sockets until the server closes them, and a request sent
  // on one as it closes fails with ECONNRESET. With one, it closes them a second before the
  // server said it would.
  const agent = new Agent({ keepAlive: true, maxSockets: 64, timeout: 60_000 });
  const latencies = [];
  /** Each kind of failure (an error code, a status, a JSON-RPC error) and how often it came. */
  const errors = {};
  let sent = 0;
  let inFlight = 0;
  const send = () => {
    sent += 1;
    inFlight += 1;
    const body = JSON.stringify({ jsonrpc: '2.0', id: sent, method: 'SendMessage', params: { message: { messageId: `m-${sent}`, role: 'ROLE_USER', parts: [{ text: 'hello' }] } } });
    const start = performance.now();
    let settled = false;
    const done = (failure) => {
      if (settled) return;
      settled = true;
      inFlight -= 1;
      latencies.push(performance.now() - start);
      if (failure !== undefined) errors[failure] = (errors[failure] ?? 0) + 1;
    };
    const req = request(
      { agent, host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200) done(`HTTP ${res.statusCode}`);
          else if (!text.includes('"TASK_STATE_COMPLETED"')) done(`answer ${text.slice(0, 120)}`);
          else done();
        });
        res.on('error', (error) => done(error.code ?? error.message));
      },
    );
    req.on('error', (error) => done(`${error.code ?? error.message}${req.reusedSocket ? ' on a reused connection' : ''}`));
    req.end(body);
  };
  const start = performance.now();
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - start) / 1000) * rate);
    while (sent < due) send();
  }, 5);
  return {
    async stop() {
      clearInterval(timer);
      for (let waited = 0; inFlight > 0 && waited < 30_000; waited += 10) await sleep(10);
      agent.destroy();
      const sorted = [...latencies].sort((a, b) => a - b);
      const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
      if (inFlight > 0) errors['no answer within 30 s'] = inFlight;
      const count = Object.values(errors).reduce((sum, n) => sum + n, 0);
      return { seconds: (performance.now() - start) / 1000, sent, answered: latencies.length, errors: count, errorKinds: errors, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 };
    },
  };
}

const summary = (samples) => {
  const peak = (key) => Math.max(...samples.map((s) => s[key]));
  const [first, last] = [samples.find((s) => s.phase === 'start'), samples.find((s) => s.phase === 'end')];
  return { start: { heapUsed: first.heapUsed, rss: first.rss }, peak: { heapUsed: peak('heapUsed'), rss: peak('rss') }, end: { heapUsed: last.heapUsed, rss: last.rss } };
};

/** Samples the server's memory every `ms` as `phase` into `samples`, until stopped. */
function everyMs(ms, url, phase, samples) {
  const timer = setInterval(() => void sampleMemory(url, phase).then((s) => samples.push(s), () => {}), ms);
  return { stop: () => clearInterval(timer) };
}

/** Streams held during a steady SendMessage load, after that load alone for `baseline` s. */
async function soak({ streams, hold, tick, rate, baseline }) {
  const server = await startServer();
  let sampler;
  try {
    let alone;
    if (baseline > 0) {
      const sender = steadySender(server.url, rate);
      await sleep(baseline * 1000);
      alone = await sender.stop();
    }
    const samples = [await sampleMemory(server.url, 'start')];
    let sender;
    let holdEnded;
    const holdDone = new Promise((resolve) => (holdEnded = resolve));
    const result = await runClient([server.url, 'ticks', String(streams), String(tick), String(hold)], (line) => {
      if (line.startsWith('OPEN')) {
        sender = steadySender(server.url, rate);
        void sampleMemory(server.url, 'open').then((s) => samples.push(s));
        sampler = everyMs(10_000, server.url, 'hold', samples);
      } else if (line === 'RELEASE') {
        sampler?.stop();
        holdEnded(Promise.all([sender?.stop(), sampleMemory(server.url, 'hold end').then((s) => samples.push(s))]));
      }
    });
    const [sends] = await holdDone;
    // Everything released and closed: what the server keeps now is the stored tasks.
    samples.push(await sampleMemory(server.url, 'end'));
    return { ...result, alone, sends, memory: summary(samples), samples };
  } finally {
    sampler?.stop();
    server.stop();
  }
}

/** One stream read slowly while the server emits as fast as it can. */
async function slowReader({ events, bytesPerSecond, seconds }) {
  const server = await startServer();
  const samples = [await sampleMemory(server.url, 'start')];
  const sampler = everyMs(1000, server.url, 'reading', samples);
  try {
    const result = await runClient([server.url, 'slow', String(events), String(bytesPerSecond), String(seconds)]);
    sampler.stop();
    samples.push(await sampleMemory(server.url, 'end'));
    // Once the reader is dropped, the server holds only the connections it had before it (the sampler's).
    const dropped = (samples.filter((s) => s.phase === 'reading').at(-1)?.connections ?? Infinity) <= samples[0].connections;
    return { ...result, dropped, memory: summary(samples), samples };
  } finally {
    sampler.stop();
    server.stop();
  }
}

const mib = (bytes) => `${(bytes / MiB).toFixed(1)} MiB`;

/** The report, as lines. */
function describe(r) {
  const s = r.soak;
  const m = s.memory;
  const w = r.slow;
  const stored = s.streams + s.sends.sent;
  return [
    `soak: ${s.streams.toLocaleString('en')} SSE streams ("tick ${r.tick}"), held ${r.hold} s with SendMessage at ${r.rate}/s${r.pinned ? ', server on core 0, clients on core 1' : ' (not pinned)'}`,
    `  streams: ${s.opened} opened in ${s.openSeconds.toFixed(1)} s, ${s.held} held to the end, ${s.complete} complete with every event in order and the result; problems ${JSON.stringify(s.problems)}`,
    `  events: ${s.received.toLocaleString('en')} received of ${s.expected.toLocaleString('en')} expected (${s.fewestTicks}–${s.mostTicks} per stream)`,
    `  SendMessage during the hold: ${s.sends.answered.toLocaleString('en')} of ${s.sends.sent.toLocaleString('en')} answered, errors ${s.sends.errors}${s.sends.errors > 0 ? ` ${JSON.stringify(s.sends.errorKinds)}` : ''}, p50 ${s.sends.p50.toFixed(1)} ms, p99 ${s.sends.p99.toFixed(1)} ms, max ${s.sends.max.toFixed(1)} ms`,
    ...(s.alone ? [`  SendMessage alone before the streams: ${s.alone.answered.toLocaleString('en')} answered, errors ${s.alone.errors}, p50 ${s.alone.p50.toFixed(1)} ms, p99 ${s.alone.p99.toFixed(1)} ms, max ${s.alone.max.toFixed(1)} ms`] : []),
    `  server heap ${mib(m.start.heapUsed)} at start, ${mib(m.peak.heapUsed)} at peak, ${mib(m.end.heapUsed)} at end; RSS ${mib(m.start.rss)}, ${mib(m.peak.rss)}, ${mib(m.end.rss)}`,
    `  at the end the memory store holds the ${stored.toLocaleString('en')} tasks of the hold: ${mib(m.end.heapUsed - m.start.heapUsed)} more heap than at the start, ${Math.round((m.end.heapUsed - m.start.heapUsed) / stored).toLocaleString('en')} bytes a task`,
    `  samples: ${s.samples.map((x) => `${x.phase} ${(x.heapUsed / MiB).toFixed(0)}/${(x.rss / MiB).toFixed(0)}/${x.connections}`).join(', ')} (heap MiB/RSS MiB/server connections)`,
    `slow reader: one "stream ${w.emitted.toLocaleString('en')}" read at ${(w.bytesPerSecond / 1024).toFixed(0)} KiB/s for ${w.seconds} s: ${mib(w.bytes)} read (about ${w.events.toLocaleString('en')} events); ${w.dropped ? 'the server dropped the reader' : 'the server still held the reader'} (the client saw: ${w.ended})`,
    `  server heap ${mib(w.memory.start.heapUsed)} at start, ${mib(w.memory.peak.heapUsed)} at peak, ${mib(w.memory.end.heapUsed)} at end; RSS ${mib(w.memory.start.rss)}, ${mib(w.memory.peak.rss)}, ${mib(w.memory.end.rss)}`,
    `  samples: ${w.samples.map((x) => `${x.phase} ${(x.heapUsed / MiB).toFixed(0)}/${(x.rss / MiB).toFixed(0)}/${x.connections}`).join(', ')} (heap MiB/RSS MiB/server connections)`,
  ];
}

const options = { streams: Number(flags.streams), hold: Number(flags.hold), tick: Number(flags.tick), rate: Number(flags.rate), baseline: Number(flags.baseline) };
const report = {
  pinned: canPin,
  ...options,
  soak: await soak(options),
  slow: await slowReader({ events: Number(flags['slow-events']), bytesPerSecond: Number(flags['slow-rate']), seconds: Number(flags['slow-seconds']) }),
};
if (flags.json) console.log(JSON.stringify(report));
else for (const line of describe(report)) console.log(line);
