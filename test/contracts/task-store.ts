// The TaskStore contract: every store (memory, SQLite) must pass these tests.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/model/task.js';
import { newestFirst, type TaskStore } from '../../src/store/task-store.js';
import { withStores } from './with-stores.js';

export function makeTask(overrides: Partial<Task> & { state?: Task['status']['state']; at?: string } = {}): Task {
  const { state = 'working', at = '2026-11-21T08:00:00.000Z', ...rest } = overrides;
  return {
    id: 't-1',
    contextId: 'c-1',
    status: { state, timestamp: at },
    history: [{ messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: '帮我调研' }] }],
    artifacts: [],
    ...rest,
  };
}

export function taskStoreContract(name: string, open: () => Promise<TaskStore> | TaskStore): void {
  describe(`${name} (TaskStore contract)`, () => {
    const stores = withStores(open);

    it('gives back what was saved, as a copy', async () => {
      const s = await stores.open();
      const task = makeTask({ artifacts: [{ artifactId: 'a', parts: [{ kind: 'file', name: 'r.md', bytes: 'aGk=' }] }] });
      await s.save(task);
      const back = await s.get('t-1');
      expect(back).toEqual(task);
      (back as Task).history.push({ messageId: 'x', role: 'agent', parts: [] });
      expect(await s.get('t-1')).toEqual(task);
      expect(await s.get('nope')).toBeUndefined();
    });

    it('replaces a task saved again', async () => {
      const s = await stores.open();
      await s.save(makeTask());
      await s.save(makeTask({ state: 'completed', at: '2026-11-21T09:00:00.000Z' }));
      expect((await s.get('t-1'))?.status.state).toBe('completed');
      expect((await s.list()).totalSize).toBe(1);
    });

    it('lists newest first and filters by context, state and time', async () => {
      const s = await stores.open();
      await s.save(makeTask({ id: 'a', contextId: 'x', state: 'completed', at: '2026-11-21T08:00:00.000Z' }));
      await s.save(makeTask({ id: 'b', contextId: 'y', state: 'working', at: '2026-11-21T09:00:00.000Z' }));
      await s.save(makeTask({ id: 'c', contextId: 'x', state: 'working', at: '2026-11-21T10:00:00.000Z' }));
      expect((await s.list()).tasks.map((t) => t.id)).toEqual(['c', 'b', 'a']);
      expect((await s.list({ contextId: 'x' })).tasks.map((t) => t.id)).toEqual(['c', 'a']);
      expect((await s.list({ state: 'working' })).tasks.map((t) => t.id)).toEqual(['c', 'b']);
      expect((await s.list({ updatedAfter: '2026-11-21T09:00:00.000Z' })).tasks.map((t) => t.id)).toEqual(['c', 'b']);
    });

    it('filters by any of several states, newest first across them, page after page', async () => {
      const s = await stores.open();
      const states = ['submitted', 'accepted', 'working', 'submitted', 'accepted', 'completed', 'accepted'] as const;
      for (const [i, state] of states.entries()) await s.save(makeTask({ id: `t${i}`, contextId: i < 4 ? 'x' : 'y', state, at: `2026-11-21T08:0${i}:00.000Z` }));
      const seen: string[] = [];
      let pageToken = '';
      do {
        const page = await s.list({ state: ['submitted', 'accepted'], pageSize: 2, pageToken });
        expect(page.totalSize).toBe(5);
        seen.push(...page.tasks.map((t) => t.id));
        pageToken = page.nextPageToken;
      } while (pageToken !== '');
      expect(seen).toEqual(['t6', 't4', 't3', 't1', 't0']);
      expect((await s.list({ state: ['accepted', 'submitted', 'accepted'], contextId: 'x' })).tasks.map((t) => t.id)).toEqual(['t3', 't1', 't0']);
      expect((await s.list({ state: ['working'] })).tasks.map((t) => t.id)).toEqual(['t2']);
      expect(await s.list({ state: [] })).toEqual({ tasks: [], nextPageToken: '', totalSize: 0 });
    });

    it('pages through every task exactly once, whatever the page size', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(fc.record({ id: fc.stringMatching(/^[a-z0-9]{1,8}$/), minute: fc.integer({ min: 0, max: 5 }) }), {
            selector: (t) => t.id,
            maxLength: 30,
          }),
          fc.integer({ min: 1, max: 7 }),
          async (specs, pageSize) => {
            const s = await open();
            try {
              const tasks = specs.map(({ id, minute }) => makeTask({ id, at: `2026-11-21T08:0${minute}:00.000Z` }));
              for (const task of tasks) await s.save(task);
              const seen: string[] = [];
              let pageToken = '';
              for (let pages = 0; pages <= tasks.length; pages += 1) {
                const page = await s.list({ pageSize, pageToken });
                expect(page.totalSize).toBe(tasks.length);
                seen.push(...page.tasks.map((t) => t.id));
                pageToken = page.nextPageToken;
                if (pageToken === '') break;
              }
              expect(seen).toEqual([...tasks].sort(newestFirst).map((t) => t.id));
            } finally {
              await s.close();
            }
          },
        ),
        { numRuns: 60 },
      );
    });

    it('fails every unfinished task on recovery, with the reason, and leaves ended ones alone', async () => {
      const s = await stores.open();
      const states = ['submitted', 'accepted', 'working', 'input-required', 'auth-required', 'completed', 'failed', 'cancelled', 'rejected'] as const;
      for (const state of states) await s.save(makeTask({ id: state, state }));
      const reason = 'the agent restarted while this task was running';

      const recovered = await s.recoverInterrupted(reason);

      expect(recovered.map((t) => t.id)).toEqual(['accepted', 'auth-required', 'input-required', 'submitted', 'working']);
      for (const task of recovered) {
        expect(await s.get(task.id)).toEqual(task);
        expect(task.status.state).toBe('failed');
        expect(Number.isNaN(Date.parse(task.status.timestamp))).toBe(false);
        expect(task.status.message).toEqual({
          messageId: expect.any(String),
          role: 'agent',
          parts: [{ kind: 'text', text: reason }],
          taskId: task.id,
          contextId: 'c-1',
        });
        expect(task.history).toEqual([makeTask().history[0], task.status.message]);
      }
      for (const state of ['completed', 'failed', 'cancelled', 'rejected'] as const) {
        expect(await s.get(state)).toEqual(makeTask({ id: state, state }));
      }
      expect(await s.recoverInterrupted(reason)).toEqual([]);
    });

    it('shows a task only to its owner when a read names one, and to every read that names none', async () => {
      const s = await stores.open();
      await s.save(makeTask({ id: 'a', at: '2026-11-21T08:00:00.000Z' }), 'ALICE_TOKEN');
      await s.save(makeTask({ id: 'b', at: '2026-11-21T09:00:00.000Z' }), 'BOB_TOKEN');
      await s.save(makeTask({ id: 'c', at: '2026-11-21T10:00:00.000Z' }));
      expect(await s.get('a', 'ALICE_TOKEN')).toEqual(makeTask({ id: 'a' }));
      expect(await s.get('a', 'BOB_TOKEN')).toBeUndefined();
      expect(await s.get('a')).toEqual(makeTask({ id: 'a' }));
      expect(await s.get('c', 'ALICE_TOKEN')).toBeUndefined();
      expect(await s.get('c', '')).toBeUndefined();
      expect(await s.list({ owner: 'ALICE_TOKEN' })).toEqual({ tasks: [makeTask({ id: 'a' })], nextPageToken: '', totalSize: 1 });
      expect((await s.list({ owner: 'BOB_TOKEN', contextId: 'c-1', state: 'working' })).tasks.map((t) => t.id)).toEqual(['b']);
      expect(await s.list({ owner: 'CAROL_TOKEN' })).toEqual({ tasks: [], nextPageToken: '', totalSize: 0 });
      expect((await s.list()).tasks.map((t) => t.id)).toEqual(['c', 'b', 'a']);
    });

    it('keeps the owner of a task’s first save, whatever later saves pass', async () => {
      const s = await stores.open();
      await s.save(makeTask(), 'ALICE_TOKEN');
      await s.save(makeTask({ state: 'completed' }));
      await s.save(makeTask({ state: 'completed' }), 'BOB_TOKEN');
      expect((await s.get('t-1', 'ALICE_TOKEN'))?.status.state).toBe('completed');
      expect(await s.get('t-1', 'BOB_TOKEN')).toBeUndefined();
    });

    it('keeps owners through recovery', async () => {
      const s = await stores.open();
      await s.save(makeTask({ id: 'mine' }), 'ALICE_TOKEN');
      await s.save(makeTask({ id: 'theirs' }), 'BOB_TOKEN');
      await s.recoverInterrupted('restarted');
      expect((await s.get('mine', 'ALICE_TOKEN'))?.status.state).toBe('failed');
      expect(await s.get('mine', 'BOB_TOKEN')).toBeUndefined();
      expect((await s.list({ owner: 'BOB_TOKEN', state: 'failed' })).tasks.map((t) => t.id)).toEqual(['theirs']);
    });

    it('pages through one owner’s tasks only, counting only those', async () => {
      const s = await stores.open();
      for (let i = 0; i < 7; i += 1) await s.save(makeTask({ id: `t${i}`, at: `2026-11-21T08:0${i}:00.000Z` }), i % 2 === 0 ? 'ALICE_TOKEN' : 'BOB_TOKEN');
      const first = await s.list({ owner: 'ALICE_TOKEN', pageSize: 3 });
      expect(first.tasks.map((t) => t.id)).toEqual(['t6', 't4', 't2']);
      expect(first.totalSize).toBe(4);
      const second = await s.list({ owner: 'ALICE_TOKEN', pageSize: 3, pageToken: first.nextPageToken });
      expect(second).toMatchObject({ nextPageToken: '', totalSize: 4 });
      expect(second.tasks.map((t) => t.id)).toEqual(['t0']);
    });

    it.each([[0.5], [-1], [101]])('refuses pageSize %s', async (pageSize) => {
      await expect((await stores.open()).list({ pageSize })).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    });

    it('refuses a page token it did not hand out', async () => {
      await expect((await stores.open()).list({ pageToken: 'not-a-cursor' })).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    });
  });
}
