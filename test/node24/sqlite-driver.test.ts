// The SQLite task store on Node 24's built-in node:sqlite: its unit and contract tests run again
// under Node 24, where the better-sqlite3 addon built for this Node does not load, with the
// driver forced to node:sqlite. One store, one contract, two drivers.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { needsTool } from '../needs-tool.js';
import { hasNode24, NODE24, NODE24_MISSING } from './node24.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const noNode24 = needsTool('the SQLite store on node:sqlite (test/node24)', hasNode24, NODE24_MISSING);

describe.skipIf(noNode24)('the SQLite task store on node:sqlite (Node 24)', () => {
  it('passes every store test', () => {
    const run = spawnSync(NODE24, ['node_modules/vitest/vitest.mjs', 'run', 'src/store'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, A2A_LITE_SQLITE: 'node:sqlite' },
      timeout: 240_000,
    });
    const summary = /(\d+) passed, (\d+) failed/.exec(run.stdout);
    expect(run.status, `${run.stdout.slice(-2000)}\n${run.stderr.slice(-2000)}`).toBe(0);
    expect(Number(summary?.[1])).toBeGreaterThanOrEqual(50);
    expect(Number(summary?.[2])).toBe(0);
  }, 300_000);
});
