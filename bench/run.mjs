// `npm run bench`: every benchmark, each as a ratio against a baseline measured in this run.
import { run as startupBench } from './cli-startup.mjs';
import { run as parseBench } from './parse.mjs';
import { run as serveBench } from './serve.mjs';

const parse = parseBench();
console.log(
  `parse throughput   ours ${Math.round(parse.ours).toLocaleString('en')} msg/s, minimal regex parser ${Math.round(parse.baseline).toLocaleString('en')} msg/s → ratio ${parse.ratio.toFixed(2)} (target ≥ 0.70)`,
);
const startup = startupBench();
console.log(
  `CLI start-up      a2a-lite parse ${startup.cli.toFixed(1)} ms, node -e 0 ${startup.node.toFixed(1)} ms (medians) → ratio ${startup.ratio.toFixed(2)} (target ≤ 1.50)`,
);
const serve = await serveBench();
const raw = serve.throughput['raw node:http JSON'];
const sdk = serve.throughput['@a2a-js/sdk (express, memory)'];
console.log(`serve (SendMessage, ${serve.connections} connections, ${serve.seconds} s, best of 2${serve.pinned ? ', server on core 0, load on core 1' : ', not pinned'}):`);
for (const [name, t] of Object.entries(serve.throughput)) {
  console.log(`  ${name.padEnd(30)} ${Math.round(t.rps).toString().padStart(6)} req/s  p99 ${t.p99.toFixed(1).padStart(6)} ms  → ${(t.rps / raw.rps).toFixed(2)}× raw, ${(t.rps / sdk.rps).toFixed(2)}× SDK  errors ${t.errors}`);
}
console.log(`  targets: memory ≥ 0.50× raw, SQLite ≥ 0.35× raw, p99 below the SDK's (${sdk.p99.toFixed(1)} ms)`);
console.log(
  `SSE               ${Math.round(serve.sse.eventsPerSecond).toLocaleString('en')} events/s on one stream; 1,000 open streams hold ${(serve.held.heapUsedBytes / 1024 / 1024).toFixed(1)} MiB of heap (${serve.held.perStreamBytes.toLocaleString('en')} bytes each)`,
);
