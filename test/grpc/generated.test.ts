// The generated gRPC messages (src/grpc/gen/) are what scripts/gen-grpc.mjs makes of proto/
// today: generation runs again into a temporary folder and every file must match, none missing
// and none extra. Skipped when buf cannot run here.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { needsTool } from '../needs-tool.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const GEN = join(ROOT, 'src', 'grpc', 'gen');
const BUF = join(ROOT, 'node_modules', '.bin', 'buf');

function bufRuns(): boolean {
  try {
    execFileSync(BUF, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Every file under `dir`, by its path inside it, with its text. */
function tree(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.set(relative(dir, path), readFileSync(path, 'utf8'));
    }
  };
  walk(dir);
  return files;
}

const noBuf = needsTool('the generated gRPC code check', bufRuns(), `buf does not run (${BUF})`);

describe.skipIf(noBuf)('src/grpc/gen/', () => {
  const out = mkdtempSync(join(tmpdir(), 'a2a-lite-grpc-gen-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('is what npm run gen:grpc makes of proto/ now', { timeout: 60_000 }, () => {
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'gen-grpc.mjs'), join(out, 'gen')], { stdio: 'pipe' });
    const fresh = tree(join(out, 'gen'));
    const kept = tree(GEN);
    expect([...kept.keys()].sort()).toEqual([...fresh.keys()].sort());
    const stale = [...fresh].filter(([path, text]) => kept.get(path) !== text).map(([path]) => path);
    expect(stale, 'run npm run gen:grpc').toEqual([]);
    expect(fresh.has('a2a_pb.ts')).toBe(true);
  });
});
