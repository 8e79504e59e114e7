// `bench/reliability`: what numbered events (resume) and idempotency keys cost `serve`. The
// a2a-lite server of this tree is measured against the same server built from the last commit
// before them (--base, default below), in the same run: each round measures the raw node:http
// server, then the base and this tree with the memory and the SQLite store, and this tree again
// with an Idempotency-Key on every request. Servers run pinned to core 0 and the load generator
// to core 1 (taskset), as in bench/serve.mjs.
//
//   node bench/reliability.mjs [--base COMMIT] [--rounds 3] [--seconds 5] [--json]
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pinnedNode, startBenchServer, tasksetWorks } from './pin.mjs';

/** The last commit before events were numbered and logged and sends took idempotency keys. */
const BEFORE_RELIABILITY = 'a165816';

const root = fileURLToPath(new URL('..', import.meta.url));
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : process.argv[at + 1];
};
const base = option('base', BEFORE_RELIABILITY);
const rounds = Number(option('rounds', '3'));
const seconds = option('seconds', '5');
const pin = tasksetWorks();

/** The base commit, checked out and built in a folder of its own (node_modules shared). */
function buildBase() {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-lite-base-'));
  execFileSync('git', ['-C', root, 'worktree', 'add', '--detach', dir, base], { stdio: 'ignore' });
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  execFileSync(process.execPath, [join(dir, 'scripts/build.mjs')], { cwd: dir, stdio: 'ignore' });
  if (!existsSync(join(dir, 'dist/serve/node-http.js'))) throw new Error(`the build of ${base} made no dist/`);
  return {
    dir,
    remove: () => {
      execFileSync('git', ['-C', root, 'worktree', 'remove', '--force', dir], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function load(url, mode) {
  const [command, argv] = pinnedNode(pin, 1, [here('./load.mjs'), url, '32', seconds, '1', mode]);
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1))) : reject(new Error('load failed'))));
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const built = buildBase();
const SERVERS = [
  ['raw', here('./servers/raw.mjs'), [], 'plain'],
  ['base memory', join(built.dir, 'bench/servers/lite.mjs'), ['memory'], 'plain'],
  ['memory', here('./servers/lite.mjs'), ['memory'], 'plain'],
  ['memory, keyed', here('./servers/lite.mjs'), ['memory'], 'keyed'],
  ['base SQLite', join(built.dir, 'bench/servers/lite.mjs'), ['sqlite'], 'plain'],
  ['SQLite', here('./servers/lite.mjs'), ['sqlite'], 'plain'],
  ['SQLite, keyed', here('./servers/lite.mjs'), ['sqlite'], 'keyed'],
];
const results = new Map(SERVERS.map(([name]) => [name, []]));
try {
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, script, args, mode] of SERVERS) {
      const server = await startBenchServer(pin, script, args);
      try {
        results.get(name).push(await load(server.url, mode));
      } finally {
        server.stop();
      }
    }
  }
} finally {
  built.remove();
}

const ratio = (name, over) => median(results.get(name).map((r, i) => r.rps / results.get(over)[i].rps));
const figures = Object.fromEntries(
  [...results].map(([name, runs]) => [name, { rps: Math.round(median(runs.map((r) => r.rps))), p50: median(runs.map((r) => r.p50)), p99: median(runs.map((r) => r.p99)), errors: runs.reduce((n, r) => n + r.errors, 0) }]),
);
const report = {
  base,
  rounds,
  pinned: pin,
  figures,
  ratios: {
    memoryVsBase: ratio('memory', 'base memory'),
    memoryKeyedVsBase: ratio('memory, keyed', 'base memory'),
    sqliteVsBase: ratio('SQLite', 'base SQLite'),
    sqliteKeyedVsBase: ratio('SQLite, keyed', 'base SQLite'),
    memoryVsRaw: ratio('memory', 'raw'),
    sqliteVsRaw: ratio('SQLite', 'raw'),
    memoryKeyedVsRaw: ratio('memory, keyed', 'raw'),
    sqliteKeyedVsRaw: ratio('SQLite, keyed', 'raw'),
  },
};
if (process.argv.includes('--json')) console.log(JSON.stringify(report));
else {
  console.log(`reliability: this tree against ${base}, ${rounds} rounds of ${seconds} s, ${pin ? 'server on core 0, load on core 1' : 'not pinned'}`);
  for (const [name, f] of Object.entries(figures)) console.log(`  ${name.padEnd(14)} ${String(f.rps).padStart(7)} req/s  p50 ${f.p50.toFixed(1)} ms  p99 ${f.p99.toFixed(1)} ms  errors ${f.errors}`);
  for (const [name, value] of Object.entries(report.ratios)) console.log(`  ${name.padEnd(18)} ${value.toFixed(2)}×`);
}
