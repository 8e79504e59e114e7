// The yaml package loads only when a plan is YAML: a JSON plan, read by the library or by
// `a2a-lite run --check`, leaves it unloaded. Each check runs in a fresh node process that says,
// as it exits, how many files under node_modules/yaml/ its module cache holds.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN } from '../cli/run-cli.js';
import { tempHome } from '../fixtures/home.js';

const ENTRY = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

// Preloaded into the child: on exit, print the count of yaml's files in the module cache.
const REPORT = `import { createRequire } from 'node:module';
const cache = createRequire(${JSON.stringify(ENTRY)}).cache;
process.on('exit', () => process.stderr.write('yaml files loaded: ' + Object.keys(cache).filter((p) => p.replaceAll('\\\\', '/').includes('/node_modules/yaml/')).length + '\\n'));`;
const PRELOAD = `data:text/javascript,${encodeURIComponent(REPORT)}`;

const STEP = { id: 'a', agent: 'http://127.0.0.1:7331', text: 'hi' };
const PLANS = {
  json: { name: 'plan.json', text: JSON.stringify({ steps: [STEP] }) },
  yaml: { name: 'plan.yaml', text: `steps:\n  - id: a\n    agent: ${STEP.agent}\n    text: hi\n` },
};

function yamlFilesLoaded(stderr: string): number {
  const count = /yaml files loaded: (\d+)/.exec(stderr)?.[1];
  expect(count, stderr).toBeDefined();
  return Number(count);
}

function node(args: string[], cwd: string): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['--import', PRELOAD, ...args], { cwd, encoding: 'utf8', timeout: 60_000, env: { ...process.env, A2A_LITE_HOME: join(cwd, 'home') } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the yaml package', () => {
  it.each([
    ['json', 0],
    ['yaml', 1],
  ] as const)('is loaded by parsePlan for a %s plan only when it is YAML', (kind, atLeast) => {
    const folder = tempHome(`lazy-${kind}`);
    const { name, text } = PLANS[kind];
    const script = `const { parsePlan } = await import(${JSON.stringify(ENTRY)}); const plan = await parsePlan(${JSON.stringify(text)}, ${JSON.stringify(name)}); console.log(plan.steps[0].id);`;
    const run = node(['--input-type=module', '-e', script], folder);
    expect(run.stdout.trim(), run.stderr).toBe('a');
    const loaded = yamlFilesLoaded(run.stderr);
    if (atLeast === 0) expect(loaded).toBe(0);
    else expect(loaded).toBeGreaterThanOrEqual(atLeast);
  });

  it.each([
    ['json', 0],
    ['yaml', 1],
  ] as const)('is loaded by `a2a-lite run --check` for a %s plan only when it is YAML', (kind, atLeast) => {
    const folder = tempHome(`lazy-cli-${kind}`);
    const { name, text } = PLANS[kind];
    writeFileSync(join(folder, name), text);
    const run = node([BIN, 'run', name, '--check'], folder);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe('a');
    const loaded = yamlFilesLoaded(run.stderr);
    if (atLeast === 0) expect(loaded).toBe(0);
    else expect(loaded).toBeGreaterThanOrEqual(atLeast);
  });
});
