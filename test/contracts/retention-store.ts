// The RetentionStore contract: every store that deletes old tasks must pass these.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PushStore } from '../../src/store/push-store.js';
import { oldestFirst, type RetentionStore } from '../../src/store/retention-store.js';
import type { TaskStore } from '../../src/store/task-store.js';
import { makeConfig } from './push-store.js';
import { makeTask } from './task-store.js';
import { withStores } from './with-stores.js';

type Store = TaskStore & PushStore & RetentionStore;

const at = (minute: number) => `2026-11-21T08:${String(minute).padStart(2, '0')}:00.000Z`;

export function retentionStoreContract(name: string, open: () => Promise<Store> | Store): void {
  describe(`${name} (RetentionStore contract)`, () => {
    const stores = withStores(open);

    it('counts its tasks', async () => {
      const s = await stores.open();
      expect(await s.countTasks()).toBe(0);
      for (const id of ['a', 'b', 'c']) await s.save(makeTask({ id }));
      await s.save(makeTask({ id: 'a', state: 'completed' }));
      expect(await s.countTasks()).toBe(3);
    });

    it('deletes ended tasks oldest first, across the four ended states, and never one that has not ended', async () => {
      const s = await stores.open();
      const states = ['completed', 'working', 'failed', 'input-required', 'cancelled', 'auth-required', 'rejected', 'submitted'] as const;
      for (const [i, state] of states.entries()) await s.save(makeTask({ id: state, state, at: at(i) }));
      expect(await s.deleteEnded(2)).toEqual(['completed', 'failed']);
      expect(await s.get('completed')).toBeUndefined();
      expect(await s.get('failed')).toBeUndefined();
      expect(await s.get('cancelled')).toBeDefined();
      expect(await s.deleteEnded(10)).toEqual(['cancelled', 'rejected']);
      expect((await s.list()).tasks.map((t) => t.id).sort()).toEqual(['auth-required', 'input-required', 'submitted', 'working']);
      expect(await s.deleteEnded(10)).toEqual([]);
      expect(await s.deleteEnded(0)).toEqual([]);
    });

    it('deletes only ended tasks whose status is older than `before`', async () => {
      const s = await stores.open();
      for (let minute = 0; minute < 6; minute += 1) await s.save(makeTask({ id: `t${minute}`, state: 'completed', at: at(minute) }));
      expect(await s.deleteEnded(100, at(3))).toEqual(['t0', 't1', 't2']);
      expect((await s.list()).tasks.map((t) => t.id)).toEqual(['t5', 't4', 't3']);
      expect(await s.deleteEnded(100, at(3))).toEqual([]);
    });

    it('deletes in the reverse of list order, whatever the ids and times', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(fc.record({ id: fc.stringMatching(/^[a-z0-9]{1,6}$/), minute: fc.integer({ min: 0, max: 3 }), ended: fc.boolean() }), { selector: (t) => t.id, maxLength: 20 }),
          fc.integer({ min: 1, max: 8 }),
          async (specs, limit) => {
            const s = await open();
            try {
              const tasks = specs.map(({ id, minute, ended }) => makeTask({ id, at: at(minute), state: ended ? 'failed' : 'working' }));
              for (const task of tasks) await s.save(task);
              const ended = tasks.filter((t) => t.status.state === 'failed').sort(oldestFirst);
              const expected = ended.slice(0, limit).map((t) => t.id);
              expect(await s.deleteEnded(limit)).toEqual(expected);
              for (const task of tasks) expect(await s.get(task.id), task.id).toEqual(expected.includes(task.id) ? undefined : task);
            } finally {
              await s.close();
            }
          },
        ),
        { numRuns: 40 },
      );
    });

    it('deletes a task’s push configs and undelivered notifications with it, and no one else’s', async () => {
      const s = await stores.open();
      await s.save(makeTask({ id: 'old', state: 'completed', at: at(0) }));
      await s.save(makeTask({ id: 'new', state: 'completed', at: at(5) }));
      for (const taskId of ['old', 'new']) {
        await s.savePushConfig(makeConfig({ taskId, id: 'hook' }));
        await s.addDeliveries([{ taskId, configId: 'hook', body: `{"task":"${taskId}"}` }]);
      }
      expect(await s.deleteEnded(1)).toEqual(['old']);
      expect(await s.listPushConfigs('old')).toEqual([]);
      expect(await s.listPushConfigs('new')).toEqual([makeConfig({ taskId: 'new', id: 'hook' })]);
      expect((await s.pendingDeliveries()).map((d) => d.taskId)).toEqual(['new']);
    });

    it('finds tasks waiting for input or auth since before a time, oldest first, as many as asked', async () => {
      const s = await stores.open();
      const states = ['input-required', 'working', 'auth-required', 'completed', 'input-required', 'input-required'] as const;
      for (const [i, state] of states.entries()) await s.save(makeTask({ id: `t${i}`, state, at: at(i) }));
      expect((await s.waitingSince(at(5), 10)).map((t) => t.id)).toEqual(['t0', 't2', 't4']);
      expect((await s.waitingSince(at(5), 2)).map((t) => t.id)).toEqual(['t0', 't2']);
      expect(await s.waitingSince(at(0), 10)).toEqual([]);
      expect((await s.waitingSince(at(1), 1))[0]).toEqual(makeTask({ id: 't0', state: 'input-required', at: at(0) }));
    });

    it('remembers the retention rules it was given, as copies', async () => {
      const s = await stores.open();
      expect(await s.retentionRules()).toBeUndefined();
      const rules = { taskTtlMs: 604_800_000, maxTasks: 10 };
      await s.saveRetentionRules(rules);
      rules.maxTasks = 99;
      expect(await s.retentionRules()).toEqual({ taskTtlMs: 604_800_000, maxTasks: 10 });
      await s.saveRetentionRules({});
      expect(await s.retentionRules()).toEqual({});
    });
  });
}
