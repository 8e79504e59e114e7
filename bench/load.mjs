// A bounded load generator: C connections each send blocking SendMessage requests back to back
// for D seconds after a warm-up; prints requests/s and latency percentiles as one JSON line.
// With a fifth argument `keyed`, each request carries an Idempotency-Key of its own.
import { Agent, request as httpRequest } from 'node:http';
import { Agent as TlsAgent, request as httpsRequest } from 'node:https';
import { drive } from './drive.mjs';

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

console.log(JSON.stringify(await drive(send, { concurrency: Number(connections), seconds: Number(seconds), warmup: Number(warmup) })));
agent.destroy();
