// SSE figures against a running a2a-lite bench server: events per second on one stream, and the
// server memory held by N open streams. Prints one JSON line.
import { Agent, request } from 'node:http';

const [url, mode = 'rate', amount = '20000'] = process.argv.slice(2);
const target = new URL(url);
const agent = new Agent({ keepAlive: false, maxSockets: 5000 });

/** Opens a stream for `text`; calls onEvent for each event; resolves when it ends. */
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
        while ((at = buffer.indexOf('\n\n')) !== -1) {
          buffer = buffer.slice(at + 2);
          seen += 1;
          onEvent(seen);
          if (seen === untilEvents) resolve(res);
        }
      });
      res.on('end', () => resolve(res));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const memory = async () => JSON.parse(await (await fetch(new URL('/bench/memory', url))).text());

if (mode === 'rate') {
  let events = 0;
  const start = performance.now();
  await stream(`stream ${amount}`, (n) => (events = n));
  const seconds = (performance.now() - start) / 1000;
  console.log(JSON.stringify({ events, seconds, eventsPerSecond: events / seconds }));
} else {
  const count = Number(amount);
  const before = await memory();
  const open = await Promise.all(Array.from({ length: count }, () => stream('hold', () => {}, { untilEvents: 2 })));
  const during = await memory();
  await fetch(new URL('/bench/release', url));
  for (const res of open) res.destroy();
  console.log(JSON.stringify({ streams: count, heapUsedBytes: during.heapUsed - before.heapUsed, rssBytes: during.rss - before.rss, perStreamBytes: Math.round((during.heapUsed - before.heapUsed) / count) }));
}
agent.destroy();
