// What the test suites need that npm can install, installed by `npm test` before vitest runs:
// Node 24 (test/node24) and OpenClaw (test/openclaw-e2e), each from its own lockfile into its
// own node_modules (ignored by git, so it stays as a cache), and again only when that is missing
// or older than the lockfile. When an install fails (offline, say) its suites are skipped with
// the reason, read from a note left in node_modules; with CI=true the failure stops the tests.
//
//   node scripts/test-deps.mjs [FOLDER…]     (default: test/node24 test/openclaw-e2e)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FOLDERS = ['test/node24', 'test/openclaw-e2e'];
// test/needs-tool.ts reads the same note.
const FAILED_NOTE = '.a2a-lite-install-failed';
const CI = process.env.CI === 'true';

/** Whether `folder`'s node_modules holds a finished install at least as new as its lockfile. */
function upToDate(folder) {
  // npm writes this file last, once an install is complete.
  const installed = join(folder, 'node_modules', '.package-lock.json');
  return existsSync(installed) && statSync(installed).mtimeMs >= statSync(join(folder, 'package-lock.json')).mtimeMs;
}

/** npm's own words for a failure: the line that says what went wrong, and its code. */
function npmReason(output) {
  const lines = output
    .split('\n')
    .filter((line) => /^npm (error|ERR!)/.test(line))
    .map((line) => line.replace(/^npm (error|ERR!)\s*/, '').trim())
    .filter((line) => line !== '' && !/complete log of this run/i.test(line));
  const code = lines.find((line) => /^code\s/.test(line));
  const told = lines.find((line) => !/^(code|syscall|errno|address|port|path|dest)\s/.test(line));
  const reason = [told, code && `(${code})`].filter(Boolean).join(' ') || 'npm ci failed';
  return reason.length > 300 ? `${reason.slice(0, 300)}…` : reason;
}

let failed = false;
for (const given of process.argv.length > 2 ? process.argv.slice(2) : FOLDERS) {
  const folder = resolve(ROOT, given);
  const name = relative(ROOT, folder).startsWith('..') ? folder : relative(ROOT, folder);
  if (upToDate(folder)) continue;
  process.stdout.write(`test-deps: installing ${name} (npm ci --prefix ${name} --ignore-scripts)\n`);
  const run = spawnSync('npm', ['ci', '--prefix', folder, '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const note = join(folder, 'node_modules', FAILED_NOTE);
  if (run.status === 0) {
    rmSync(note, { force: true });
    continue;
  }
  const reason = run.error === undefined ? npmReason(`${run.stderr}\n${run.stdout}`) : run.error.message;
  mkdirSync(join(folder, 'node_modules'), { recursive: true });
  writeFileSync(note, `${reason}\n`);
  if (CI) {
    process.stderr.write(`test-deps: could not install ${name}: ${reason}\n`);
    failed = true;
  } else {
    process.stdout.write(`test-deps: could not install ${name} (${reason}); the suites that need it are skipped\n`);
  }
}
process.exitCode = failed ? 1 : 0;
