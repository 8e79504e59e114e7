// A bounded load generator: C connections each send blocking SendMessage requests back to back
// for D seconds after a warm-up; prints requests/s and latency percentiles as one JSON line.
// With a fifth argument `keyed`, each request carries an Idempotency-Key of its own.
import { Agent, request as httpRequest } from 'node:http';
import { Agent as TlsAgent, request as httpsRequest } from 'node:https';

const [url, connections = '32', seconds = '5', warmup = '1', mode = 'plain'] = process.argv.slice(2);
const run = Math.random().toString(36).slice(2);
const target = new URL(url);
// An https:// URL is a bench server's own certificate, made for the run: not checked.
const secure = target.protocol === 'https:';
const agent = secure ? new TlsAgent({ keepAlive: true, maxSockets: Number(connections), rejectUnauthorized: false }) : new Agent({ keepAlive: true, maxSockets: Number(connections) });
const request = secure ? httpsRequest : httpRequest;
let counter = 0;

function send() {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: (counter += 1),
    method: 'SendMessage',
    params: { message: { messageId: `m-${counter}`, role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'content-length': Buffer.byteLength(body), ...(mode === 'keyed' ? { 'idempotency-key': `${run}-${counter}` } : {}) },
      },
      (res) => {
        let ok = res.statusCode === 200;
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          if (ok) ok = !Buffer.concat(chunks).toString('utf8').includes('"error"');
          resolve(ok);
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const warmEnd = performance.now() + Number(warmup) * 1000;
const end = warmEnd + Number(seconds) * 1000;
const latencies = [];
let errors = 0;
// Every answered request, the warm-up's too: what a server's CPU time over the whole run is divided by.
let answered = 0;
await Promise.all(
  Array.from({ length: Number(connections) }, async () => {
    while (performance.now() < end) {
      const start = performance.now();
      const ok = await send().catch(() => false);
      const finished = performance.now();
      answered += 1;
      if (start < warmEnd) continue;
      if (!ok) errors += 1;
      latencies.push(finished - start);
    }
  }),
);
latencies.sort((a, b) => a - b);
const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
console.log(JSON.stringify({ requests: latencies.length, answered, rps: latencies.length / Number(seconds), p50: at(0.5), p99: at(0.99), errors }));
agent.destroy();
