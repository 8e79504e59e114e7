// Runs the fuzz targets of test/fuzz/ with more cases than `npm test` does: FUZZ_RUNS per target
// (1,000,000 unless set), then prints each target's count and times. Arguments are passed to
// vitest, e.g. `npm run fuzz -- test/fuzz/sse-parser.test.ts`; FUZZ_SEED replays a failure.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const runs = process.env.FUZZ_RUNS ?? '1000000';
const folder = mkdtempSync(join(tmpdir(), 'a2a-lite-fuzz-'));
const report = join(folder, 'report.jsonl');
const filters = process.argv.slice(2);

const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const result = spawnSync(process.execPath, [vitest, 'run', ...(filters.length > 0 ? filters : ['test/fuzz'])], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, FUZZ_RUNS: runs, FUZZ_REPORT: report },
});

if (existsSync(report)) {
  const lines = readFileSync(report, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line));
  const width = Math.max(...lines.map((l) => l.target.length));
  process.stdout.write(`\n${'target'.padEnd(width)}  ${'cases'.padStart(10)}  ${'time'.padStart(8)}  ${'CPU'.padStart(8)}\n`);
  for (const { target, runs: count, ms, cpuMs } of lines) {
    process.stdout.write(`${target.padEnd(width)}  ${count.toLocaleString('en-US').padStart(10)}  ${`${(ms / 1000).toFixed(1)} s`.padStart(8)}  ${`${(cpuMs / 1000).toFixed(1)} s`.padStart(8)}\n`);
  }
}
rmSync(folder, { recursive: true, force: true });
process.exit(result.status ?? 1);
