// `bench/relay-cpu.mjs --base DIR`: the relay's CPU time, this build against the build in
// DIR/dist, each in a process of its own on core 1, alternating, which a busy machine disturbs
// less than bench/hub.mjs's throughput. Two measures: the link alone (both ends of a WebSocket
// link in one process echoing frames of 400 bytes, 32 in flight and one at a time, once warm),
// and a relayed SendMessage (a hub, an agent dialled in and 32 clients in one process, the
// clients' part included). Prints each build's median and the median of the rounds' ratios.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { pinnedNode, tasksetWorks } from './pin.mjs';

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
/** The module at the first of `paths` that the build holds (a module may have moved between builds). */
const from = (dist, ...paths) => import(pathToFileURL(paths.map((path) => join(dist, path)).find((file) => existsSync(file)) ?? join(dist, paths[0])).href);
const LINK = { maxMessageBytes: 1 << 26, maxBacklogBytes: 1 << 28 };

/**
 * CPU µs per round trip over one link of `dist`, with `inflight` frames in flight, once warm. The
 * JIT compiles on the same core (its time counts as the process's) and, with 32 frames in
 * flight, the cost per round trip settles only after about 50,000 round trips (one at a time,
 * after 5,000): 100,000 warm up and 100,000 count then, 5,000 and 20,000 else.
 */
async function linkCpu(dist, inflight) {
  const { acceptLink, dialLink } = await from(dist, 'net/websocket.js', 'hub/ws-link.js');
  const server = createServer();
  server.on('upgrade', (req, socket, head) => {
    const link = acceptLink({ method: 'GET', path: '/', query: new URLSearchParams(), headers: req.headers, body: '', upgrade: { socket, head } }, LINK);
    link.messages((payload) => link.send(payload));
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const { link } = await dialLink(`http://127.0.0.1:${server.address().port}/`, {}, LINK, new AbortController().signal);
  const payload = Buffer.from(`${JSON.stringify({ type: 'response', rid: 'r1', status: 200, headers: { 'content-type': 'application/json' } })}\n${'x'.repeat(310)}`);
  // The first round trips warm up, as the JIT would in a long-running hub; the rest count.
  const warm = inflight > 1 ? 100_000 : 5000;
  const frames = inflight > 1 ? 100_000 : 20_000;
  const total = warm + frames;
  let back = 0;
  let start;
  let finish;
  const finished = new Promise((done) => (finish = done));
  link.messages(() => {
    back += 1;
    if (back === warm) start = process.cpuUsage();
    if (back === total) finish();
    else if (back + inflight <= total) link.send(Buffer.from(payload));
  });
  for (let i = 0; i < inflight; i += 1) link.send(Buffer.from(payload));
  await finished;
  const used = process.cpuUsage(start);
  return (used.user + used.system) / frames;
}

/** CPU µs per SendMessage relayed by a hub of `dist` to an echo agent dialled in, clients included. */
async function relayCpu(dist, requests = 10_000) {
  const { createHubHandler, hubUpgrades } = await from(dist, 'hub/hub-handler.js');
  const { MemoryHubStore } = await from(dist, 'hub/hub-store.js');
  const { Hub } = await from(dist, 'hub/hub.js');
  const { listen } = await from(dist, 'net/node-http.js', 'serve/node-http.js');
  const { createA2AHandler } = await from(dist, 'a2a/server/handler.js');
  const { jiajiaCard } = await from(dist, 'card/examples.js');
  const { connectToHub } = await from(dist, 'hub/connector.js');
  const { createAgent } = await from(dist, 'runtime/agent.js');
  const { MemoryTaskStore } = await from(dist, 'store/task-store.js');
  let url = '';
  const hub = new Hub({ store: new MemoryHubStore(), baseUrl: () => url, allowPrivate: true, checkMs: 0 });
  const handler = createHubHandler(hub);
  const limits = { maxBodyBytes: 64 * 1024 * 1024, maxStreamBacklogBytes: 256 * 1024 * 1024, requestTimeout: 0 };
  url = (await listen(handler, { port: 0, keepAliveTimeout: 65_000, ...limits, upgrades: hubUpgrades(handler, limits) })).url;
  const agent = createAgent({ card: jiajiaCard(), store: new MemoryTaskStore(), onTask: (task) => `echo: ${task.text}` });
  let base = '';
  await connectToHub({ hubUrl: url, agentId: 'bench-0', handler: createA2AHandler({ agent, baseUrl: () => base }), onBaseUrl: (at) => (base = at) }).ready();
  for (let i = 0; i < 500 && (await hub.registry.lookup('bench-0')) === undefined; i += 1) await new Promise((done) => setTimeout(done, 20));
  const target = new URL(`${url}/agents/bench-0/jsonrpc`);
  const pool = new Agent({ keepAlive: true, maxSockets: 32 });
  let counter = 0;
  const send = () =>
    new Promise((done, fail) => {
      counter += 1;
      const body = JSON.stringify({ jsonrpc: '2.0', id: counter, method: 'SendMessage', params: { message: { messageId: `m-${counter}`, role: 'ROLE_USER', parts: [{ text: 'hello' }] } } });
      const req = request({ agent: pool, host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'content-length': Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? done() : fail(new Error(`HTTP ${res.statusCode}`))));
      });
      req.on('error', fail);
      req.end(body);
    });
  const run = async (count) => {
    let left = count;
    await Promise.all(Array.from({ length: 32 }, async () => {
      while (left > 0) {
        left -= 1;
        await send();
      }
    }));
  };
  await run(3000);
  const start = process.cpuUsage();
  await run(requests);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / requests;
}

const { values } = parseArgs({ options: { base: { type: 'string' }, rounds: { type: 'string' }, child: { type: 'string' }, dist: { type: 'string' } } });
if (values.child !== undefined) {
  const dist = values.dist;
  const result = values.child === 'relay' ? await relayCpu(dist) : await linkCpu(dist, Number(values.child.slice('link-'.length)));
  console.log(JSON.stringify(result));
  process.exit(0);
}
if (values.base === undefined) throw new Error('usage: node bench/relay-cpu.mjs --base DIR [--rounds N]');
const builds = { ours: fileURLToPath(new URL('../dist/', import.meta.url)), base: join(resolve(values.base), 'dist') };
if (!existsSync(join(builds.base, 'hub', 'hub.js'))) throw new Error(`no build at ${builds.base}: run node scripts/build.mjs --if-stale in ${values.base}`);
const rounds = Number(values.rounds ?? '7');
const pin = tasksetWorks();
const measure = (what, dist) => {
  const [command, argv] = pinnedNode(pin, 1, [fileURLToPath(import.meta.url), '--child', what, '--dist', dist]);
  return JSON.parse(execFileSync(command, argv, { encoding: 'utf8' }).trim().split('\n').at(-1));
};
console.log(`relay CPU time, this build against ${builds.base}, ${rounds} rounds alternating${pin ? ', on core 1' : ' (taskset missing: not pinned)'}`);
for (const [what, label] of [['link-32', 'link, 32 frames in flight, µs a round trip'], ['link-1', 'link, one frame at a time, µs a round trip'], ['relay', 'relayed SendMessage, µs a request']]) {
  const rows = { ours: [], base: [] };
  for (let round = 0; round < rounds; round += 1) {
    for (const name of round % 2 === 0 ? ['ours', 'base'] : ['base', 'ours']) rows[name].push(measure(what, builds[name]));
  }
  const ratios = rows.ours.map((value, i) => value / rows.base[i]);
  console.log(`  ${label}: this build ${median(rows.ours).toFixed(2)}, base ${median(rows.base).toFixed(2)}; ratio ${median(ratios).toFixed(3)} (rounds ${ratios.map((v) => v.toFixed(2)).join(' ')})`);
}
