// `npm run bench`: every benchmark, each as a ratio against a baseline measured in this run.
import { run as startupBench } from './cli-startup.mjs';
import { run as parseBench } from './parse.mjs';
import { describe as describeHub, run as hubBench } from './hub.mjs';
import { describe as describeRun, run as runBench } from './run.mjs';
import { describe as describeServe, run as serveBench } from './serve.mjs';

const parse = parseBench();
console.log(
  `parse throughput   ours ${Math.round(parse.ours).toLocaleString('en')} msg/s, minimal regex parser ${Math.round(parse.baseline).toLocaleString('en')} msg/s → ratio ${parse.ratio.toFixed(2)} (target ≥ 0.70)`,
);
const startup = startupBench();
console.log(
  `CLI start-up      a2a-lite parse ${startup.cli.toFixed(1)} ms, node -e 0 ${startup.node.toFixed(1)} ms (medians) → ratio ${startup.ratio.toFixed(2)} (target ≤ 1.50)`,
);
for (const line of describeServe(await serveBench())) console.log(line);
for (const line of describeHub(await hubBench())) console.log(line);
for (const line of describeRun(await runBench())) console.log(line);
