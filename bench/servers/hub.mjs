// An a2a-lite hub (built dist/) with a memory registry, for bench/hub.mjs. Besides the hub's
// own routes it answers GET /bench/memory with its heap and RSS after a full collection, so the
// bench can weigh what each connected agent costs the hub.
import { json } from '../../dist/a2a/server/http.js';
import { createHubHandler, hubUpgrades } from '../../dist/hub/hub-handler.js';
import { MemoryHubStore } from '../../dist/hub/hub-store.js';
import { Hub } from '../../dist/hub/hub.js';
import { listen } from '../../dist/net/node-http.js';

const heartbeatMs = Number(process.argv[2] ?? '10000');
let url = '';
const hub = new Hub({ store: new MemoryHubStore(), baseUrl: () => url, allowPrivate: true, heartbeatMs, checkMs: 0 });
const handler = createHubHandler(hub);
const bench = async (request) => {
  if (request.path !== '/bench/memory') return handler(request);
  globalThis.gc?.();
  const { heapUsed, rss } = process.memoryUsage();
  return json(200, { heapUsed, rss, connected: hub.relay.connectedCount(), up: (await hub.registry.store.list()).filter((agent) => hub.health.of(agent.id).up).length });
};
// As `a2a-lite hub` does: agents dial in over WebSocket links.
const limits = { maxBodyBytes: 64 * 1024 * 1024, maxStreamBacklogBytes: 256 * 1024 * 1024, requestTimeout: 0 };
const server = await listen(bench, { port: 0, keepAliveTimeout: 65_000, ...limits, upgrades: hubUpgrades(bench, limits) });
url = server.url;
console.log(`READY ${url}`);
