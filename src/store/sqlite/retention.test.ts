import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeConfig } from '../../../test/contracts/push-store.js';
import { retentionStoreContract } from '../../../test/contracts/retention-store.js';
import { makeTask } from '../../../test/contracts/task-store.js';
import { withStores } from '../../../test/contracts/with-stores.js';
import { tempHome } from '../../../test/fixtures/home.js';
import { loadDriver } from './driver.js';
import { RETENTION_QUERIES } from './retention.js';
import { MIGRATIONS } from './schema.js';
import { openSqliteTaskStore } from './task-store.js';

retentionStoreContract('SqliteTaskStore', () => openSqliteTaskStore(join(tempHome('sqlite'), 'tasks.db')));

/** The file opened with the store's own driver, as a user would poke at it. */
const openFile = async (path: string) => (await loadDriver()).open(path);
const stores = withStores((path: string) => openSqliteTaskStore(path));
const at = (second: number) => new Date(Date.UTC(2026, 10, 21, 8, 0, second)).toISOString();

describe('SqliteTaskStore retention on disk', () => {
  it('remembers the retention rules across close and reopen', async () => {
    const path = join(tempHome('sqlite'), 'tasks.db');
    const first = await stores.open(path);
    await first.saveRetentionRules({ taskTtlMs: 604_800_000, inputTimeoutMs: 3_600_000, maxTasks: 10_000 });
    await stores.close(first);
    const second = await stores.open(path);
    expect(await second.retentionRules()).toEqual({ taskTtlMs: 604_800_000, inputTimeoutMs: 3_600_000, maxTasks: 10_000 });
  });

  it('brings a file of the schema before retention up to date, keeping its tasks', async () => {
    const path = join(tempHome('sqlite'), 'tasks.db');
    const db = await openFile(path);
    db.exec(MIGRATIONS.slice(0, 4).join(';\n'));
    db.pragma('user_version = 4');
    db.close();
    const writer = await stores.open(path);
    await writer.save(makeTask({ id: 'kept', state: 'completed' }));
    await stores.close(writer);

    const store = await stores.open(path);
    expect(await store.retentionRules()).toBeUndefined();
    await store.saveRetentionRules({ maxTasks: 5 });
    expect(await store.countTasks()).toBe(1);
    expect((await openFile(path)).pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
  });

  it('finds what to delete and end by walking tasks_by_state, without sorting', async () => {
    const path = join(tempHome('sqlite'), 'tasks.db');
    await stores.close(await stores.open(path));
    const db = await openFile(path);
    try {
      for (const [name, sql] of Object.entries(RETENTION_QUERIES)) {
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ state: 'completed', before: Buffer.from('x'), limit: 500 }) as { detail: string }[])
          .map((row) => row.detail)
          .join('\n');
        expect(plan, name).toMatch(/^SEARCH tasks USING (COVERING )?INDEX tasks_by_state \(state=\?/);
        expect(plan, name).not.toMatch(/TEMP B-TREE|SCAN/);
      }
    } finally {
      db.close();
    }
  });

  it('deletes a big store’s ended tasks a bounded batch at a time, oldest first', async () => {
    const path = join(tempHome('sqlite'), 'tasks.db');
    const store = await stores.open(path);
    for (let i = 0; i < 3_000; i += 1) void store.save(makeTask({ id: `t${String(i).padStart(4, '0')}`, state: i % 3 === 0 ? 'working' : 'completed', at: at(i % 3_000) }));
    expect(await store.countTasks()).toBe(3_000);
    const first = await store.deleteEnded(500, at(1_500));
    expect(first).toHaveLength(500);
    expect(first.slice(0, 3)).toEqual(['t0001', 't0002', 't0004']);
    expect(await store.deleteEnded(500, at(1_500))).toHaveLength(500);
    // Of the 1,000 ended before second 1,500, none is left; those after it are all there.
    expect(await store.deleteEnded(500, at(1_500))).toEqual([]);
    expect(await store.countTasks()).toBe(2_000);
    expect((await store.list({ state: 'completed', pageSize: 1 })).totalSize).toBe(1_000);
    expect((await store.list({ state: 'working', pageSize: 1 })).totalSize).toBe(1_000);
  });

  it('deletes a task, its push configs and its outbox in one transaction', async () => {
    const path = join(tempHome('sqlite'), 'tasks.db');
    const writer = await stores.open(path);
    await writer.save(makeTask({ id: 'old', state: 'completed', at: at(0) }));
    await writer.savePushConfig(makeConfig({ taskId: 'old' }));
    await writer.addDeliveries([{ taskId: 'old', configId: 'cfg-1', body: '{}' }]);
    await stores.close(writer);
    // A trigger that fails the last of the three deletes: the other two must not stay done.
    const db = await openFile(path);
    db.exec("CREATE TRIGGER refuse BEFORE DELETE ON tasks BEGIN SELECT RAISE(ABORT, 'refused'); END;");
    db.close();

    const store = await stores.open(path);
    await expect(store.deleteEnded(10)).rejects.toThrow(/refused/);
    expect(await store.get('old')).toBeDefined();
    expect(await store.listPushConfigs('old')).toHaveLength(1);
    expect(await store.pendingDeliveries()).toHaveLength(1);
  });
});
