// An a2a-lite hub (built dist/, or A2A_LITE_DIST's) with a memory registry, for bench/hub.mjs.
// Besides the hub's own routes it answers GET /bench/memory with its heap and RSS after a full
// collection, so the bench can weigh what each connected agent costs the hub.
// `hub.mjs [HEARTBEAT_MS [VARIANT]]`: `traces` or `metrics` turns that telemetry on (as `hub
// --otel`'s traces and `hub --metrics` do), `tls CERT KEY` serves HTTPS (as `hub --tls-cert
// CERT --tls-key KEY`); none, the hub plain.
import { startVariantTelemetry } from '../variants.mjs';
import { fromDist } from './dist.mjs';

const { createHubHandler, hubUpgrades } = await fromDist('hub/hub-handler.js');
const { MemoryHubStore } = await fromDist('hub/hub-store.js');
const { Hub } = await fromDist('hub/hub.js');
const { listen } = await fromDist('net/node-http.js', 'serve/node-http.js');

const [heartbeat = '10000', variant, cert, key] = process.argv.slice(2);
const heartbeatMs = Number(heartbeat);
await startVariantTelemetry(variant, () => fromDist('telemetry/sdk.js'), 'a2a-lite-hub');
const tls = variant === 'tls' ? { tls: (await fromDist('net/tls.js')).readTlsCredentials(cert, key) } : {};
let url = '';
const hub = new Hub({ store: new MemoryHubStore(), baseUrl: () => url, allowPrivate: true, heartbeatMs, checkMs: 0 });
const handler = createHubHandler(hub);
const bench = async (request) => {
  if (request.path !== '/bench/memory') return handler(request);
  globalThis.gc?.();
  const { heapUsed, rss } = process.memoryUsage();
  const up = (await hub.registry.store.list()).filter((agent) => hub.health.of(agent.id).up).length;
  return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ heapUsed, rss, connected: hub.relay.connectedCount(), up }) };
};
// As `a2a-lite hub` does: agents dial in over WebSocket links.
const limits = { maxBodyBytes: 64 * 1024 * 1024, maxStreamBacklogBytes: 256 * 1024 * 1024, requestTimeout: 0 };
const server = await listen(bench, { port: 0, keepAliveTimeout: 65_000, ...limits, upgrades: hubUpgrades(bench, limits), ...tls });
url = server.url;
console.log(`READY ${url}`);
