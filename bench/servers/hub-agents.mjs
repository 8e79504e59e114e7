// Echo agents connected to a hub (built dist/, or A2A_LITE_DIST's), for bench/hub.mjs:
// `hub-agents.mjs HUB N` dials N agents (bench-0 … bench-N-1) out to HUB; bench-0 also listens,
// so the same agent can be called straight and through the hub. Prints READY with bench-0's
// own URL once all are in.
import { fromDist } from './dist.mjs';

const { createA2AHandler } = await fromDist('a2a/server/handler.js');
const { jiajiaCard } = await fromDist('card/examples.js');
const { connectToHub } = await fromDist('hub/connector.js');
const { createAgent } = await fromDist('runtime/agent.js');
const { listen } = await fromDist('net/node-http.js', 'serve/node-http.js');
const { MemoryTaskStore } = await fromDist('store/task-store.js');

const [hubUrl, count = '1'] = process.argv.slice(2);
let direct = '';
const connections = [];
for (let i = 0; i < Number(count); i += 1) {
  const agent = createAgent({ card: jiajiaCard(), store: new MemoryTaskStore(), onTask: (task) => `echo: ${task.text}` });
  let base = '';
  const handler = createA2AHandler({ agent, baseUrl: () => base });
  if (i === 0) {
    const server = await listen(handler, { port: 0 });
    direct = server.url;
  }
  connections.push(connectToHub({ hubUrl, agentId: `bench-${i}`, handler, onBaseUrl: (url) => (base = url) }));
}
await Promise.all(connections.map((connection) => connection.ready()));
console.log(`READY ${direct}`);
