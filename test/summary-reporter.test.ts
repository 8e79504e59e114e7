// The closing summary of a test run, proved on small test files run by a real vitest child with
// the real reporter: a file that does not load, a beforeAll that throws and an unhandled error
// are failures (a run with them must never say "0 failed"), and a suite that needs a missing
// tool is skipped with a line saying why, or fails when CI=true.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempHome } from './fixtures/home.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const REPORTER = fileURLToPath(new URL('./summary-reporter.ts', import.meta.url));
const NEEDS_TOOL = fileURLToPath(new URL('./needs-tool.ts', import.meta.url));

/** Test files (globals on, so that they import nothing but what they test). */
const FIXTURES: Record<string, string> = {
  'passes.fixture.ts': "it('passes', () => {});\nit.skip('is skipped', () => {});\n",
  'throws-at-import.fixture.ts': "throw new Error('broken at import');\n",
  'missing-import.fixture.ts': "import './no-such-module.js';\nit('never runs', () => {});\n",
  'syntax-error.fixture.ts': "it('never runs', () => { (( });\n",
  'before-all.fixture.ts': "describe('a guarded suite', () => {\n  beforeAll(() => { throw new Error('the setup failed'); });\n  it('a', () => {});\n  it('b', () => {});\n});\n",
  'unhandled.fixture.ts': "it('leaves a rejection behind', () => { void Promise.reject(new Error('nobody caught this')); });\n",
  'needs-tool.fixture.ts': `import { needsTool } from ${JSON.stringify(NEEDS_TOOL)};
const missing = needsTool('the moon suite', false, 'no moon at /usr/bin/moon');
describe.skipIf(missing)('the moon', () => { it('orbits', () => { throw new Error('ran without the moon'); }); });
`,
};

/** Runs vitest on the fixtures (those matching `filter`, if given) in a folder of their own. */
function vitest(filter: string | undefined, ci: boolean): { code: number | null; stdout: string; summary: string[] } {
  const dir = tempHome('reporter');
  for (const [name, text] of Object.entries(FIXTURES)) writeFileSync(join(dir, name), text);
  writeFileSync(
    join(dir, 'vitest.config.mjs'),
    `import SummaryReporter from ${JSON.stringify(REPORTER)};\nexport default { test: { include: ['*.fixture.ts'], globals: true, reporters: [new SummaryReporter()] } };\n`,
  );
  // The child is a run of its own: none of this run's variables.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && name !== 'CI' && name !== 'NODE_ENV' && name !== 'TEST'));
  const run = spawnSync(process.execPath, [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--root', dir, '--config', join(dir, 'vitest.config.mjs'), ...(filter === undefined ? [] : [filter])], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...env, ...(ci ? { CI: 'true' } : {}) },
  });
  const lines = run.stdout.trimEnd().split('\n');
  // The reporter writes last: its lines, then the count.
  const start = lines.findLastIndex((line) => line.trim() === '');
  return { code: run.status, stdout: run.stdout, summary: lines.slice(start + 1) };
}

describe('the closing summary', () => {
  it('counts files that do not load, a throwing beforeAll and unhandled errors as failures', () => {
    const run = vitest(undefined, false);
    expect(run.code, run.stdout).toBe(1);
    // Passed: passes, and the test that left the rejection; skipped: one in passes, the two
    // the failed beforeAll kept from running, the moon suite's two.
    expect(run.summary.at(-1)).toBe('2 passed, 5 failed, 5 skipped');
    expect(run.summary.slice(0, -1).sort()).toEqual([
      'failed: an unhandled error — nobody caught this',
      'failed: before-all.fixture.ts > a guarded suite — the setup failed',
      expect.stringMatching(/^failed: missing-import\.fixture\.ts — Cannot find module '\.\/no-such-module\.js'/),
      expect.stringMatching(/^failed: syntax-error\.fixture\.ts — .*Unexpected token/),
      'failed: throws-at-import.fixture.ts — broken at import',
      'skipped: the moon suite — no moon at /usr/bin/moon',
    ]);
  });

  it('skips a suite whose tool is missing with a line saying why, and passes', () => {
    const run = vitest('needs-tool', false);
    expect(run.code, run.stdout).toBe(0);
    expect(run.summary).toEqual(['skipped: the moon suite — no moon at /usr/bin/moon', '0 passed, 0 failed, 2 skipped']);
  });

  it('fails a suite whose tool is missing when CI=true', () => {
    const run = vitest('needs-tool', true);
    expect(run.code, run.stdout).toBe(1);
    expect(run.summary).toEqual([
      'failed: needs-tool.fixture.ts > has the tools it needs — the moon suite cannot run: no moon at /usr/bin/moon. CI must provide it.',
      '0 passed, 1 failed, 1 skipped',
    ]);
  });
});
