// Group commit on PostgreSQL: the saves of a turn cost one round trip, saves made while a batch
// is on its way wait and go in the next one, a task's saves land in order, and lookups of
// idempotency keys in one turn share a round trip too.
import { describe, expect, it } from 'vitest';
import { change } from '../../../test/contracts/task-log.js';
import { makeTask } from '../../../test/contracts/task-store.js';
import { withStores } from '../../../test/contracts/with-stores.js';
import { adminQuery, needsPostgres, uniqueName, useTestDatabase } from '../../../test/postgres.js';
import { openPostgresTaskStore } from './task-store.js';

const noPostgres = needsPostgres('the PostgreSQL task store group commit (src/store/postgres)');

describe.skipIf(noPostgres)('PostgresTaskStore saves', () => {
  const db = useTestDatabase();
  const stores = withStores(() => openPostgresTaskStore(db.url(), { schema: uniqueName('s') }));

  it('writes the saves of one turn, tasks, events and keys, in one round trip', async () => {
    const store = await stores.open();
    const before = store.roundTrips;
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.save(makeTask({ id: `t${i}` }), 'ALICE', { events: [change(1)], idempotency: { key: `k${i}`, fingerprint: 'f' }, runner: 'r1' })),
    );
    expect(store.roundTrips - before).toBe(1);
    expect((await store.list({ pageSize: 1 })).totalSize).toBe(50);
    expect(await store.findIdempotent('k49', 'ALICE')).toMatchObject({ taskId: 't49' });
    expect(await store.events('t7', 0)).toMatchObject({ last: 1 });
  });

  it('holds the saves made while a batch is on its way for the next one, so that a task’s saves land in order', async () => {
    const store = await stores.open();
    const before = store.roundTrips;
    const saves: Promise<void>[] = [];
    for (let n = 1; n <= 20; n += 1) {
      const state = n === 20 ? 'completed' : 'working';
      saves.push(store.save(makeTask({ state }), undefined, { events: [change(n, state)] }));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(saves);
    // A save in each of twenty turns: sent as they came, they would be twenty statements racing
    // on the pool's connections, the last to commit winning.
    expect(store.roundTrips - before).toBeLessThan(20);
    expect((await store.get('t-1'))?.status.state).toBe('completed');
    expect((await store.events('t-1', 0)).events.map((e) => e.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('looks up the keys asked for in one turn with one round trip', async () => {
    const store = await stores.open();
    await store.save(makeTask({ id: 'a' }), undefined, { idempotency: { key: 'k1', fingerprint: 'f1' } });
    const before = store.roundTrips;
    const found = await Promise.all(['k1', 'k2', 'k1'].map((key) => store.findIdempotent(key)));
    expect(store.roundTrips - before).toBe(1);
    expect(found.map((answer) => answer?.taskId)).toEqual(['a', undefined, 'a']);
  });

  it('answers the saves and lookups asked for before it closes', async () => {
    const store = await stores.open();
    const saved = store.save(makeTask({ id: 'a' }), undefined, { idempotency: { key: 'k', fingerprint: 'f' } });
    await stores.close(store);
    await expect(saved).resolves.toBeUndefined();
    const again = await stores.open();
    const found = again.findIdempotent('other');
    await stores.close(again);
    await expect(found).resolves.toBeUndefined();
  });

  it('fails every save of a batch the database refuses, and saves the next batch', async () => {
    const store = await stores.open();
    await store.save(makeTask({ id: 'kept' }));
    await adminQuery(`ALTER TABLE ${store.schema}.tasks RENAME TO tasks_away`, [], db.name());
    const results = await Promise.allSettled([store.save(makeTask({ id: 'a' })), store.save(makeTask({ id: 'b' }))]);
    await adminQuery(`ALTER TABLE ${store.schema}.tasks_away RENAME TO tasks`, [], db.name());
    for (const result of results) {
      expect(result).toMatchObject({ status: 'rejected', reason: { code: 'IO_ERROR', message: expect.stringMatching(/^the task store postgres:\/\/postgres@127\.0\.0\.1:5432\/a2a_test_\w+ could not save tasks: relation ".*tasks" does not exist$/) } });
    }
    await store.save(makeTask({ id: 'c' }));
    expect((await store.list()).tasks.map((t) => t.id).sort()).toEqual(['c', 'kept']);
  });
});
