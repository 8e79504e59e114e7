// How many cases each fuzz target runs, and how long its test may take. `npm test` runs
// 100,000 per target; `npm run fuzz` sets FUZZ_RUNS (1,000,000 by default) for a longer run.
// FUZZ_SEED replays the run a failure reported; FUZZ_REPORT names a file where each target
// appends its count and times (scripts/fuzz.mjs prints them), so that the tests print nothing.
import { appendFileSync } from 'node:fs';

const DEFAULT_RUNS = 100_000;

function positive(value: string | undefined): number | undefined {
  const number = Number(value);
  return Number.isSafeInteger(number) && number > 0 ? number : undefined;
}

/** The number of cases per target. */
export const FUZZ_RUNS = positive(process.env.FUZZ_RUNS) ?? DEFAULT_RUNS;

/** fast-check options for one target: the count, and the seed when one is given. */
export function fuzzOptions(): { numRuns: number; seed?: number } {
  const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
  return Number.isInteger(seed) ? { numRuns: FUZZ_RUNS, seed: seed as number } : { numRuns: FUZZ_RUNS };
}

/**
 * The time limit of a target's test: `microsPerCase` is a generous bound on one case (several
 * times what it takes on a 2-core machine), plus a minute for shrinking a failure.
 */
export function fuzzTimeout(microsPerCase: number): number {
  return 60_000 + Math.ceil((FUZZ_RUNS * microsPerCase) / 1000);
}

/**
 * Runs one target and, when FUZZ_REPORT is set, appends a line to that file: the target, its
 * count (`runs`, FUZZ_RUNS unless the target runs fewer), the time it took and the CPU time its
 * process spent (the fairer figure on a busy machine).
 */
export async function fuzzTarget(target: string, run: () => unknown, runs = FUZZ_RUNS): Promise<void> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  await run();
  const report = process.env.FUZZ_REPORT;
  if (report === undefined || report === '') return;
  const used = process.cpuUsage(cpu);
  const line = { target, runs, ms: Math.round(performance.now() - started), cpuMs: Math.round((used.user + used.system) / 1000) };
  appendFileSync(report, `${JSON.stringify(line)}\n`);
}
