// One instance of a hub cluster (built dist/), for bench/hub-cluster.mjs: `cluster-hub.mjs
// POSTGRES_URL NATS_URL PREFIX` runs a hub on that registry and that bus prefix, as `a2a-lite hub
// --store … --cluster …` does. Prints READY with its URL once it has joined.
import { fromDist } from './dist.mjs';

const { createHubHandler, hubUpgrades } = await fromDist('hub/hub-handler.js');
const { Hub } = await fromDist('hub/hub.js');
const { openPostgresHubStore } = await fromDist('hub/postgres-hub-store.js');
const { openBus } = await fromDist('cluster/open-bus.js');
const { listen } = await fromDist('net/node-http.js');

const [database, nats, prefix] = process.argv.slice(2);
const store = await openPostgresHubStore(database);
const bus = await openBus(nats, { prefix });
let url = '';
const hub = new Hub({ store, baseUrl: () => url, allowPrivate: true, checkMs: 0, cluster: { bus } });
await hub.start();
const handler = createHubHandler(hub);
const limits = { maxBodyBytes: 64 * 1024 * 1024, maxStreamBacklogBytes: 256 * 1024 * 1024, requestTimeout: 0 };
const server = await listen(handler, { port: 0, keepAliveTimeout: 65_000, ...limits, upgrades: hubUpgrades(handler, limits) });
url = server.url;
console.log(`READY ${url}`);
