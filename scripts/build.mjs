// Builds dist/: regenerates the precompiled card validator, then compiles with tsc.
// `--if-stale` skips the work when dist/ is newer than every source file.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
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
step([join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')]);
execFileSync(process.execPath, ['-e', `require('fs').writeFileSync(${JSON.stringify(stamp)}, new Date().toISOString())`]);
