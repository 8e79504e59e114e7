// Wall time of `a2a-lite parse MESSAGE` as a fresh process against `node -e 0`, interleaved
// in the same run; reports the medians and their ratio.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../dist/cli/bin.js', import.meta.url));
const MESSAGE = '[A2A:status task=research-001 state=working progress=50%]\n正在收集资料，预计还需要 10 分钟。';

function time(args) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr}`);
  return elapsed;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export function run({ runs = 40 } = {}) {
  for (let i = 0; i < 3; i += 1) {
    time(['-e', '0']);
    time([BIN, 'parse', MESSAGE]);
  }
  const node = [];
  const cli = [];
  for (let i = 0; i < runs; i += 1) {
    node.push(time(['-e', '0']));
    cli.push(time([BIN, 'parse', MESSAGE]));
  }
  const result = { cli: median(cli), node: median(node) };
  return { ...result, ratio: result.cli / result.node };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = run();
  console.log(`a2a-lite parse: ${r.cli.toFixed(1)} ms; node -e 0: ${r.node.toFixed(1)} ms; ratio ${r.ratio.toFixed(2)}`);
}
