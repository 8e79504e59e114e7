// SSE figures against a running a2a-lite bench server (bench/servers/lite.mjs). Modes:
//   rate N                   events per second on one stream of N updates
//   hold N                   the server memory held by N open streams
//   ticks N MS HOLD_S        N "tick MS" streams held HOLD_S seconds, then released; checks that
//                            each got every numbered update in order and its result. Prints
//                            "OPEN" once all are open and "RELEASE" before releasing them.
//   slow N BYTES_PER_S S     reads one "stream N" at BYTES_PER_S for S seconds while the
//                            server emits as fast as it can
// Each prints one JSON line last.
import { Agent, request } from 'node:http';

const [url, mode = 'rate', ...args] = process.argv.slice(2);
const target = new URL(url);
const agent = new Agent({ keepAlive: false, maxSockets: 5000 });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** Waits for `promise`, or `ms` at most, without keeping the process alive after it settles. */
const within = (promise, ms) => {
  let timer;
  return Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
};

/**
 * Opens a stream for `text`; calls onEvent(n, data) for each event; resolves with the response
 * once `untilEvents` events came, or with { ended } when the stream ends: 'complete' for a clean
 * end, 'dropped' when the server cut it.
 */
function stream(text, onEvent, { untilEvents = Infinity } = {}) {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: { messageId: `s-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] } } });
  return new Promise((resolve, reject) => {
    const req = request({ agent, host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' } }, (res) => {
      let buffer = '';
      let seen = 0;
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        buffer += chunk;
        let at;
        let from = 0;
        while ((at = buffer.indexOf('\n\n', from)) !== -1) {
          seen += 1;
          // The event's data line, after its `id:` line when it has one.
          const event = buffer.slice(from, at);
          onEvent(seen, event.slice(event.indexOf('data: ') + 6));
          from = at + 2;
          if (seen === untilEvents) resolve(res);
        }
        buffer = buffer.slice(from);
      });
      res.on('end', () => resolve({ ended: 'complete' }));
      res.on('aborted', () => resolve({ ended: 'dropped' }));
      res.on('error', () => resolve({ ended: 'dropped' }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const memory = async () => JSON.parse(await (await fetch(new URL('/bench/memory', url))).text());

if (mode === 'rate') {
  const amount = args[0] ?? '20000';
  let events = 0;
  const start = performance.now();
  await stream(`stream ${amount}`, (n) => (events = n));
  const seconds = (performance.now() - start) / 1000;
  console.log(JSON.stringify({ events, seconds, eventsPerSecond: events / seconds }));
} else if (mode === 'hold') {
  const count = Number(args[0] ?? '1000');
  const before = await memory();
  const open = await Promise.all(Array.from({ length: count }, () => stream('hold', () => {}, { untilEvents: 2 })));
  const during = await memory();
  await fetch(new URL('/bench/release', url));
  for (const res of open) res.destroy();
  console.log(JSON.stringify({ streams: count, heapUsedBytes: during.heapUsed - before.heapUsed, rssBytes: during.rss - before.rss, perStreamBytes: Math.round((during.heapUsed - before.heapUsed) / count) }));
} else if (mode === 'ticks') {
  const [count, tickMs, holdSeconds] = args.map(Number);
  /** Per stream: the ticks in the order they came, the result text, how it ended. */
  const streams = Array.from({ length: count }, () => ({ ticks: [], result: undefined, final: undefined, ended: undefined, bad: 0 }));
  let opened = 0;
  let markOpen = () => {};
  const allOpen = new Promise((resolve) => (markOpen = resolve));
  const ends = streams.map((s) =>
    stream(`tick ${tickMs}`, (n, data) => {
      if (n === 1) {
        opened += 1;
        if (opened === count) markOpen();
      }
      let result;
      try {
        result = JSON.parse(data).result;
      } catch {
        s.bad += 1;
        return;
      }
      const eta = result?.statusUpdate?.status?.message?.metadata?.a2aLite?.eta;
      if (typeof eta === 'string') s.ticks.push(Number(eta.slice('tick '.length)));
      const text = result?.artifactUpdate?.artifact?.parts?.[0]?.text;
      if (typeof text === 'string') s.result = text;
      const state = result?.statusUpdate?.status?.state;
      if (state !== undefined && state !== 'TASK_STATE_WORKING') s.final = state;
    }).then(
      (end) => (s.ended = end.ended),
      () => (s.ended = 'error'),
    ),
  );
  const openStart = performance.now();
  await within(allOpen, 60_000);
  const openSeconds = (performance.now() - openStart) / 1000;
  console.log(`OPEN ${opened}`);
  await sleep(holdSeconds * 1000);
  // Held: still open when the hold ends, none ended on its own.
  const held = streams.filter((s) => s.ended === undefined).length;
  console.log('RELEASE');
  await fetch(new URL('/bench/release', url));
  await within(Promise.all(ends), 30_000);
  let received = 0;
  let expected = 0;
  let complete = 0;
  const problems = {};
  const problem = (what) => (problems[what] = (problems[what] ?? 0) + 1);
  for (const s of streams) {
    received += s.ticks.length;
    const last = /^ticked (\d+)$/.exec(s.result ?? '');
    if (!last) {
      problem('no result');
      continue;
    }
    const n = Number(last[1]);
    expected += n;
    if (s.ticks.length !== n || s.ticks.some((tick, i) => tick !== i + 1)) problem('missing or out-of-order tick');
    else if (s.final !== 'TASK_STATE_COMPLETED') problem(`ended ${s.final}`);
    else if (s.ended !== 'complete') problem(`stream ${s.ended ?? 'still open'}`);
    else if (s.bad > 0) problem('unreadable event');
    else complete += 1;
  }
  const ticks = streams.map((s) => s.ticks.length);
  console.log(JSON.stringify({ streams: count, opened, openSeconds, held, complete, received, expected, fewestTicks: Math.min(...ticks), mostTicks: Math.max(...ticks), problems }));
} else if (mode === 'slow') {
  const [count, bytesPerSecond, seconds] = args.map(Number);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: { messageId: `s-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: `stream ${count}` }] } } });
  let bytes = 0;
  let events = 0;
  let ended = 'still open';
  const seen = await new Promise((resolve, reject) => {
    const req = request({ agent, host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' } }, (res) => {
      // A paused response read by hand: a tenth of the rate every 100 ms, for `seconds`.
      res.pause();
      const timer = setInterval(() => {
        for (let budget = bytesPerSecond / 10; budget > 0; ) {
          const chunk = res.read(Math.min(budget, 16384)) ?? res.read();
          if (chunk === null) break;
          budget -= chunk.length;
          bytes += chunk.length;
          for (let at = chunk.indexOf('\n\n'); at !== -1; at = chunk.indexOf('\n\n', at + 2)) events += 1;
        }
      }, 100);
      res.on('end', () => (ended = 'complete'));
      res.on('aborted', () => (ended = 'dropped'));
      res.on('error', () => (ended = 'dropped'));
      setTimeout(() => {
        clearInterval(timer);
        resolve(ended);
        req.destroy();
      }, seconds * 1000);
    });
    req.on('error', (error) => (ended === 'still open' ? reject(error) : resolve(ended)));
    req.end(body);
  });
  // Events are counted by their blank lines, so one split across two reads may be missed.
  console.log(JSON.stringify({ emitted: count, bytesPerSecond, seconds, bytes, events, ended: seen }));
}
agent.destroy();
