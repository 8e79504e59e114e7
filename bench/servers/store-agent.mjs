// An echo agent (built dist/) on one store, for bench/scale.mjs: `store-agent.mjs sqlite` (a file
// of its own) or `store-agent.mjs postgres URL`. GET /bench/trips answers the database round
// trips the PostgreSQL store has made so far (0 for SQLite, which makes none).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromDist } from './dist.mjs';

const { createA2AHandler } = await fromDist('a2a/server/handler.js');
const { jiajiaCard } = await fromDist('card/examples.js');
const { createAgent } = await fromDist('runtime/agent.js');
const { listen } = await fromDist('net/node-http.js');

const [kind, url] = process.argv.slice(2);
const store =
  kind === 'postgres'
    ? await (await fromDist('store/postgres/task-store.js')).openPostgresTaskStore(url)
    : await (await fromDist('store/sqlite/task-store.js')).openSqliteTaskStore(join(mkdtempSync(join(tmpdir(), 'a2a-scale-')), 'a2a-lite.db'));

const agent = createAgent({ card: jiajiaCard(), store, onTask: (task) => `echo: ${task.text}` });
let base = '';
const a2a = createA2AHandler({ agent, baseUrl: () => base });
const server = await listen(async (request) => {
  if (request.path === '/bench/trips') return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ trips: store.roundTrips ?? 0 }) };
  return a2a(request);
});
base = server.url;
console.log(`READY ${server.url}/jsonrpc`);
