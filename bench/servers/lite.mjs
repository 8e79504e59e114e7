// a2a-lite serving an echo agent (built dist/), with the memory or the SQLite store; a second
// argument `tls` serves over HTTPS with a certificate made for the run (openssl), `traces` or
// `metrics` turns that telemetry on, `grpc` serves the gRPC binding too and READY gives its target.
// Extra for the SSE figures: "stream N" sends N progress updates; "hold" waits for /release;
// "tick MS" sends a numbered update ("tick 1", "tick 2", …) every MS ms until /release, then
// ends with "ticked N".
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createA2AHandler } from '../../dist/a2a/server/handler.js';
import { jiajiaCard } from '../../dist/card/examples.js';
import { createAgent } from '../../dist/runtime/agent.js';
import { listen } from '../../dist/net/node-http.js';
import { MemoryTaskStore } from '../../dist/store/task-store.js';
import { readTlsCredentials } from '../../dist/net/tls.js';
import { startVariantTelemetry, throwawayCertificate } from '../variants.mjs';

const kind = process.argv[2] ?? 'memory';
const variant = process.argv[3];
const tls = (() => {
  if (variant !== 'tls') return undefined;
  const { cert, key } = throwawayCertificate();
  return readTlsCredentials(cert, key);
})();
await startVariantTelemetry(variant, () => import('../../dist/telemetry/sdk.js'), 'bench');
const store = kind === 'sqlite'
  ? await (await import('../../dist/store/sqlite/task-store.js')).openSqliteTaskStore(join(mkdtempSync(join(tmpdir(), 'a2a-bench-')), 'a2a-lite.db'))
  : new MemoryTaskStore();

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
let release = () => {};
let held = new Promise((resolve) => (release = resolve));
const agent = createAgent({
  card: jiajiaCard(),
  store,
  async onTask(task, ctx) {
    const stream = /^stream (\d+)$/.exec(task.text);
    if (stream) {
      for (let i = 0; i < Number(stream[1]); i += 1) await ctx.status('working', { progress: i % 100 });
      return 'streamed';
    }
    const tick = /^tick (\d+)$/.exec(task.text);
    if (tick) {
      let released = false;
      void held.then(() => (released = true));
      // Not Promise.race([held, sleep]): every race would leave a reaction on `held` until the
      // release, which grows the heap by each tick of each task.
      for (let n = 0; ; n += 1) {
        await sleep(Number(tick[1]));
        if (released) return `ticked ${n}`;
        // The number travels in the eta: a progress-only update stays out of the task's history.
        await ctx.status('working', { eta: `tick ${n + 1}` });
      }
    }
    if (task.text === 'hold') {
      await ctx.status('working');
      await held;
    }
    return `echo: ${task.text}`;
  },
});
let url = '';
const a2a = createA2AHandler({ agent, baseUrl: () => url });
const server = await listen(async (request) => {
  if (request.path === '/bench/memory') {
    globalThis.gc?.();
    const connections = await new Promise((resolve) => server.server.getConnections((_error, count) => resolve(count)));
    return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...process.memoryUsage(), connections }) };
  }
  if (request.path === '/bench/release') {
    release();
    held = new Promise((resolve) => (release = resolve));
    return { status: 200, headers: {}, body: 'ok' };
  }
  return a2a(request);
}, tls === undefined ? {} : { tls });
url = server.url;
if (variant === 'grpc') {
  const { serveGrpc } = await import('../../dist/serve/grpc-service.js');
  console.log(`READY ${(await serveGrpc(a2a)).target}`);
} else {
  console.log(`READY ${url}/jsonrpc`);
}
process.on('SIGINT', () => process.exit(0));
