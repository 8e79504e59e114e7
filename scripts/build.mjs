// Builds dist/ afresh: regenerates the precompiled card validator, compiles with tsc into an
// empty dist/ (so that no file of a moved or deleted source lingers), marks the CLI executable,
// and writes the OpenClaw plugin's manifest from the built entry.
// `--if-stale` skips the work when dist/ is newer than every source file.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(root, 'dist', '.built');

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

if (process.argv.includes('--if-stale') && existsSync(stamp)) {
  const sources = Math.max(newest(join(root, 'src')), statSync(join(root, 'tsconfig.json')).mtimeMs);
  if (statSync(stamp).mtimeMs >= sources) process.exit(0);
}

function step(args) {
  try {
    execFileSync(process.execPath, args, { stdio: 'inherit' });
  } catch {
    process.exit(1); // The step printed its own errors.
  }
}

step([join(root, 'scripts', 'generate-card-validator.mjs')]);
rmSync(join(root, 'dist'), { recursive: true, force: true });
step([join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')]);
chmodSync(join(root, 'dist', 'cli', 'bin.js'), 0o755);
step([join(root, 'scripts', 'plugin-manifest.mjs')]);
execFileSync(process.execPath, ['-e', `require('fs').writeFileSync(${JSON.stringify(stamp)}, new Date().toISOString())`]);
