import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { Task } from '../../model/task.js';
import { Checkpointer } from './checkpointer.js';
import { openSqliteTaskStore } from './task-store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-checkpointer-'));
  dirs.push(dir);
  return join(dir, 'tasks.db');
}

function task(id: string, state: Task['status']['state'] = 'submitted'): Task {
  return {
    id,
    contextId: `c-${id}`,
    status: { state, timestamp: new Date().toISOString() },
    history: [{ messageId: `m-${id}`, role: 'user', parts: [{ kind: 'text', text: 'x'.repeat(200) }] }],
    artifacts: [],
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(5);
  }
}

describe('WAL checkpoints on their own thread', () => {
  it('run in a program that is an ES module, as the CLI is (not only under the test runner)', () => {
    const store = fileURLToPath(new URL('../../../dist/store/sqlite/task-store.js', import.meta.url));
    const script = `
      const { openSqliteTaskStore } = await import(${JSON.stringify(store)});
      const store = await openSqliteTaskStore(${JSON.stringify(tempDb())}, { checkpointAfterPages: 50 });
      for (let batch = 0; batch < 50; batch += 1) {
        await Promise.all(Array.from({ length: 20 }, (_, i) => store.save({ id: 't-' + batch + '-' + i, contextId: 'c', status: { state: 'submitted', timestamp: '' }, history: [], artifacts: [] })));
      }
      for (let waited = 0; store.backgroundCheckpoints === 0 && waited < 2_000; waited += 1) await new Promise((r) => setTimeout(r, 10));
      console.log(store.backgroundCheckpoints);
      await store.close();`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(result.stderr).toBe('');
    expect(Number(result.stdout.trim())).toBeGreaterThan(0);
  });

  it('keep the WAL short under load and lose nothing', async () => {
    const path = tempDb();
    const store = await openSqliteTaskStore(path, { checkpointAfterPages: 300 });
    // Commits back to back, as a busy server makes them: 20 new tasks and the 20 of the
    // commit before finished in each. Rows keep coming while the thread checkpoints.
    let previous: string[] = [];
    for (let batch = 0; batch < 600; batch += 1) {
      const ids = Array.from({ length: 20 }, (_, i) => `t-${batch}-${i}`);
      await Promise.all([...ids.map((id) => store.save(task(id))), ...previous.map((id) => store.save(task(id, 'completed')))]);
      previous = ids;
    }
    expect(store.backgroundCheckpoints).toBeGreaterThan(0);
    // Some 24,000 rows at several pages each went through the WAL (about 60 MB if it only
    // grew), which was started over again and again instead.
    expect(statSync(`${path}-wal`).size).toBeLessThan(32 * 1024 * 1024);
    await store.close();

    const reopened = await openSqliteTaskStore(path);
    expect((await reopened.list({ pageSize: 1, state: 'completed' })).totalSize).toBe(599 * 20);
    expect((await reopened.list({ pageSize: 1 })).totalSize).toBe(600 * 20);
    expect(await reopened.get('t-599-19')).toMatchObject({ status: { state: 'submitted' } });
    await reopened.close();
  });

  it('hands checkpoints back to the main connection when the thread cannot work', async () => {
    let failed = 0;
    const checkpointer = new Checkpointer({
      path: join(tempDb(), 'missing.db'),
      busyTimeoutMs: 100,
      afterPages: 1,
      onCheckpoint: () => {
        throw new Error('no checkpoint can be made without a database');
      },
      onFailure: () => (failed += 1),
    });
    checkpointer.wrote(5);
    await until(() => failed > 0);
    checkpointer.wrote(5);
    await checkpointer.close();
    expect([failed, checkpointer.done]).toEqual([1, 0]);
  });

  it('makes no thread for a store in memory', async () => {
    const store = await openSqliteTaskStore(':memory:', { checkpointAfterPages: 1 });
    for (let i = 0; i < 20; i += 1) await store.save(task(`t-${i}`));
    expect(store.backgroundCheckpoints).toBe(0);
    await store.close();
  });
});
