// What every store keeps beside its tasks: the numbered event log and the idempotency keys.
import { describe, expect, it } from 'vitest';
import type { TaskChange } from '../../src/model/task.js';
import type { TaskState } from '../../src/protocol/states.js';
import { EVENT_LOG_LIMIT, EVENT_LOG_SLACK } from '../../src/store/task-log.js';
import type { TaskStore } from '../../src/store/task-store.js';
import { makeTask } from './task-store.js';
import { withStores } from './with-stores.js';

/** A status change numbered `seq`. */
export function change(seq: number, state: TaskState = 'working'): TaskChange {
  return { kind: 'status', taskId: 't-1', contextId: 'c-1', status: { state, timestamp: `2026-11-21T08:00:0${seq % 10}.000Z` }, seq };
}

export function taskLogContract(name: string, open: () => Promise<TaskStore> | TaskStore): void {
  describe(`${name} (event log and idempotency keys)`, () => {
    const stores = withStores(open);

    it('keeps each save’s events and gives back those after a number, oldest first', async () => {
      const s = await stores.open();
      await s.save(makeTask(), undefined, { events: [change(1), change(2)] });
      await s.save(makeTask(), undefined, { events: [change(3)] });
      await s.save(makeTask({ state: 'completed' }), undefined, { events: [change(4, 'completed')] });
      expect((await s.events('t-1', 0)).events.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
      expect(await s.events('t-1', 2)).toEqual({ events: [change(3), change(4, 'completed')], last: 4 });
      expect(await s.events('t-1', 4)).toEqual({ events: [], last: 4 });
      expect(await s.events('nope', 0)).toEqual({ events: [], last: 0 });
    });

    it('keeps the latest events of a task that streams without end, not all of them', async () => {
      const s = await stores.open();
      for (let batch = 0; batch < 150; batch += 1) {
        await s.save(makeTask(), undefined, { events: Array.from({ length: 10 }, (_, i) => change(batch * 10 + i + 1)) });
      }
      const { events, last } = await s.events('t-1', 0);
      expect(last).toBe(1500);
      // At least the limit is kept, never much more, and what is kept is the newest, in order.
      expect(events.length).toBeGreaterThanOrEqual(EVENT_LOG_LIMIT);
      expect(events.length).toBeLessThanOrEqual(EVENT_LOG_LIMIT + EVENT_LOG_SLACK + 10);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => 1500 - events.length + 1 + i));
    });

    it('logs the failure it records for a task left running', async () => {
      const s = await stores.open();
      await s.save(makeTask(), undefined, { events: [change(1)] });
      await s.recoverInterrupted('the agent restarted');
      const { events, last } = await s.events('t-1', 1);
      expect(last).toBe(2);
      expect(events).toMatchObject([{ kind: 'status', seq: 2, status: { state: 'failed', message: { parts: [{ text: 'the agent restarted' }] } } }]);
    });

    it('keeps the first task a key made, within its owner’s scope only', async () => {
      const s = await stores.open();
      await s.save(makeTask({ id: 'a' }), 'alice', { idempotency: { key: 'k1', fingerprint: 'f1' } });
      await s.save(makeTask({ id: 'b' }), 'alice', { idempotency: { key: 'k1', fingerprint: 'f2' } });
      await s.save(makeTask({ id: 'c' }), undefined, { idempotency: { key: 'k1', fingerprint: 'f3' } });
      expect(await s.findIdempotent('k1', 'alice')).toMatchObject({ taskId: 'a', fingerprint: 'f1' });
      expect(await s.findIdempotent('k1')).toMatchObject({ taskId: 'c', fingerprint: 'f3' });
      expect(await s.findIdempotent('k1', 'bob')).toBeUndefined();
      expect(await s.findIdempotent('k2', 'alice')).toBeUndefined();
    });

    it('keeps a direct answer given for a key', async () => {
      const s = await stores.open();
      const message = { messageId: 'm', role: 'agent' as const, parts: [{ kind: 'text' as const, text: 'hi' }] };
      await s.saveIdempotentAnswer('k', undefined, { fingerprint: 'f', message, createdAt: '2026-11-21T08:00:00.000Z' });
      await s.saveIdempotentAnswer('k', undefined, { fingerprint: 'g', createdAt: '2026-11-21T09:00:00.000Z' });
      const found = await s.findIdempotent('k');
      expect(found).toEqual({ fingerprint: 'f', message, createdAt: '2026-11-21T08:00:00.000Z' });
    });
  });
}
