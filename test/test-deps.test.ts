// scripts/test-deps.mjs, which `npm test` runs before vitest, on folders of its own made here:
// it installs a folder from its lockfile when node_modules is missing or older than the lockfile,
// leaves it alone otherwise, and when npm cannot install (here: a registry that refuses the
// connection) it notes why for the suites to say, failing only with CI=true.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempHome } from './fixtures/home.js';
import { INSTALL_FAILED_NOTE, installMissing } from './needs-tool.js';

const SCRIPT = fileURLToPath(new URL('../scripts/test-deps.mjs', import.meta.url));
// No retries against the refusing registry; the machine's npm cache is not touched.
const NPM_ENV = { npm_config_fetch_retries: '0', npm_config_update_notifier: 'false' };

function testDeps(folder: string, env: Record<string, string> = {}): { code: number | null; stdout: string; stderr: string } {
  const other = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'CI'));
  const run = spawnSync(process.execPath, [SCRIPT, folder], { encoding: 'utf8', timeout: 180_000, env: { ...other, ...NPM_ENV, ...env } });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

function npm(args: string[], cwd: string): void {
  const run = spawnSync('npm', args, { cwd, encoding: 'utf8', timeout: 120_000, env: { ...process.env, ...NPM_ENV } });
  expect(run.status, run.stderr).toBe(0);
}

/** A folder whose one dependency is a package tarball beside it: installable offline. */
function localFolder(): string {
  const root = tempHome('test-deps');
  const tiny = join(root, 'tiny');
  mkdirSync(tiny);
  writeFileSync(join(tiny, 'package.json'), JSON.stringify({ name: 'tiny', version: '1.0.0', main: 'index.js' }));
  writeFileSync(join(tiny, 'index.js'), 'module.exports = 1;\n');
  npm(['pack', '--silent', '--pack-destination', root], tiny);
  const folder = join(root, 'suite');
  mkdirSync(folder);
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'suite', private: true, dependencies: { tiny: 'file:../tiny-1.0.0.tgz' } }));
  npm(['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], folder);
  return folder;
}

/** A folder whose lockfile pins a package at a registry that refuses every connection. */
function unreachableFolder(): string {
  const folder = join(tempHome('test-deps-offline'), 'suite');
  mkdirSync(folder);
  const dependencies = { 'a2a-lite-no-such-package': '1.0.0' };
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'suite', private: true, dependencies }));
  const lock = {
    name: 'suite',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'suite', dependencies },
      'node_modules/a2a-lite-no-such-package': {
        version: '1.0.0',
        resolved: 'http://127.0.0.1:9/a2a-lite-no-such-package/-/a2a-lite-no-such-package-1.0.0.tgz',
        integrity: `sha512-${Buffer.alloc(64, 7).toString('base64')}`,
      },
    },
  };
  writeFileSync(join(folder, 'package-lock.json'), JSON.stringify(lock, null, 2));
  return folder;
}

describe('scripts/test-deps.mjs', () => {
  it('installs a folder once, and again when its lockfile is newer', () => {
    const folder = localFolder();
    const first = testDeps(folder);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('test-deps: installing');
    expect(existsSync(join(folder, 'node_modules', 'tiny', 'index.js'))).toBe(true);

    const again = testDeps(folder);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe('');

    const later = new Date(Date.now() + 60_000);
    utimesSync(join(folder, 'package-lock.json'), later, later);
    const newer = testDeps(folder);
    expect(newer.code, newer.stderr).toBe(0);
    expect(newer.stdout).toContain('test-deps: installing');
  });

  it('offline, says so, leaves the reason for the suites and lets the tests go on', () => {
    const folder = unreachableFolder();
    const run = testDeps(folder);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/test-deps: could not install .*suite \(.+\); the suites that need it are skipped\n$/);
    const note = readFileSync(join(folder, 'node_modules', INSTALL_FAILED_NOTE), 'utf8').trim();
    expect(note).toMatch(/ECONNREFUSED|127\.0\.0\.1:9/);
    expect(installMissing(folder, 'The tool')).toBe(`The tool could not be installed (npm ci --prefix ${folder}: ${note})`);
  });

  it('with CI=true, a failed install fails', () => {
    const folder = unreachableFolder();
    const run = testDeps(folder, { CI: 'true' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^test-deps: could not install .*suite: .*(ECONNREFUSED|127\.0\.0\.1:9)/m);
  });
});
