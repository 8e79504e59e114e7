// `node bench/retention.mjs [TASKS]`: what retention costs on a big SQLite store (built dist/).
// Fills a store with TASKS tasks (default 200,000; two thirds ended), then times the queries a
// pass and an admission at the cap make, a pass with nothing to do, and a sweep that deletes
// every ended task of the older half, with the longest the event loop was held meanwhile.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { jiajiaCard } from '../dist/card/examples.js';
import { createAgent } from '../dist/runtime/agent.js';
import { openSqliteTaskStore } from '../dist/store/sqlite/task-store.js';

const TASKS = Number(process.argv[2] ?? 200_000);
const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const STATES = ['completed', 'completed', 'failed', 'cancelled', 'working', 'input-required'];

const dir = mkdtempSync(join(tmpdir(), 'a2a-lite-retention-'));
const store = await openSqliteTaskStore(join(dir, 'tasks.db'));
const filling = performance.now();
for (let i = 0; i < TASKS; i += 1) {
  const text = 'hello world '.repeat(10);
  const status = { state: STATES[i % STATES.length], timestamp: new Date(T0 + i * 1000).toISOString() };
  void store.save({ id: `t${String(i).padStart(8, '0')}`, contextId: 'c', status, history: [{ messageId: `m${i}`, role: 'user', parts: [{ kind: 'text', text }] }], artifacts: [] });
  if (i % 5000 === 4999) await new Promise((resolve) => setImmediate(resolve));
}
await store.countTasks();
console.log(`${TASKS.toLocaleString('en')} tasks written in ${(performance.now() - filling).toFixed(0)} ms`);

/** Runs `work` `times` times and prints its median and slowest. */
async function time(label, work, times = 1) {
  const samples = [];
  for (let n = 0; n < times; n += 1) {
    const start = performance.now();
    await work();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  console.log(`${label.padEnd(52)} median ${samples[Math.floor(samples.length / 2)].toFixed(3)} ms, slowest ${samples.at(-1).toFixed(3)} ms`);
}

const beforeAll = new Date(T0 - 1).toISOString();
await time('count the tasks (once, for the cap)', () => store.countTasks(), 5);
await time('TTL query, nothing old enough', () => store.deleteEnded(500, beforeAll), 20);
await time('waiting-task query, none waited long enough', () => store.waitingSince(beforeAll, 500), 20);
await time('admission at the cap: delete the oldest ended task', () => store.deleteEnded(1), 200);
await time('one batch: delete the 500 oldest ended tasks', () => store.deleteEnded(500), 20);

let now = T0 - 1;
const agent = createAgent({ card: jiajiaCard(), store, onTask: () => 'ok', now: () => new Date(now), retention: { taskTtlMs: 3_600_000, inputTimeoutMs: 365 * 86_400_000, maxTasks: TASKS * 2 } });
await agent.retention.prune();
await time('a pass with nothing to do', () => agent.retention.prune(), 20);

now = T0 + (TASKS / 2) * 1000 + 3_600_000;
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
let report;
await time('a pass deleting the older half’s ended tasks', async () => (report = await agent.retention.prune()));
delay.disable();
console.log(`  deleted ${report.deleted.toLocaleString('en')}; the event loop waited at most ${(delay.max / 1e6).toFixed(1)} ms (p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms)`);
await agent.shutdown();
rmSync(dir, { recursive: true, force: true });
