// The ClusterStore contract: every store that replicas of one agent share (memory, PostgreSQL)
// must pass these. The replicas here are names; one store stands for the database they share.
import { describe, expect, it } from 'vitest';
import type { ClusterStore } from '../../src/store/cluster-store.js';
import type { PushStore } from '../../src/store/push-store.js';
import type { TaskStore } from '../../src/store/task-store.js';
import { change } from './task-log.js';
import { makeTask } from './task-store.js';
import { withStores } from './with-stores.js';

type Store = TaskStore & PushStore & ClusterStore;

/** Lets real time pass (a lease run out), a few milliseconds. */
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it holds, at most `tries` times 10 ms apart; returns its last answer. */
async function eventually(check: () => Promise<boolean>, tries = 300): Promise<boolean> {
  for (let i = 0; i < tries; i += 1) {
    if (await check()) return true;
    await pause(10);
  }
  return false;
}

export function clusterStoreContract(name: string, open: () => Promise<Store> | Store): void {
  describe(`${name} (ClusterStore contract)`, () => {
    const stores = withStores(open);

    it('finds a replica dead once its lease has passed, and alive again once it renews', async () => {
      const s = await stores.open();
      await s.heartbeat('a', 60_000);
      await s.heartbeat('b', 20);
      expect(await eventually(async () => (await s.deadReplicas()).includes('b'))).toBe(true);
      expect(await s.deadReplicas()).toEqual(['b']);
      await s.heartbeat('b', 60_000);
      expect(await s.deadReplicas()).toEqual([]);
    });

    it('records the runner of a task and ends a dead replica’s unfinished tasks once, logging the end', async () => {
      const s = await stores.open();
      await s.heartbeat('b', 20);
      await s.save(makeTask({ id: 'w' }), 'alice', { runner: 'b', events: [change(1)] });
      await s.save(makeTask({ id: 'q', state: 'input-required' }), undefined, { runner: 'b' });
      await s.save(makeTask({ id: 'done', state: 'completed' }), undefined, { runner: 'b' });
      await s.save(makeTask({ id: 'other' }), undefined, { runner: 'a' });
      await s.save(makeTask({ id: 'w', at: '2026-11-21T08:00:01.000Z' }), 'alice', { runner: 'b', events: [change(2)] });
      expect(await s.runnerOf('w')).toBe('b');
      expect(await s.runnerOf('other')).toBe('a');
      expect(await s.runnerOf('nope')).toBeUndefined();
      expect(await eventually(async () => (await s.deadReplicas()).includes('b'))).toBe(true);

      const failed = await s.failTasksOf('b', 'the replica running this task stopped');
      expect(failed.map((t) => t.id).sort()).toEqual(['q', 'w']);
      for (const task of failed) expect(task.status).toMatchObject({ state: 'failed', message: { role: 'agent', parts: [{ kind: 'text', text: 'the replica running this task stopped' }] } });
      expect((await s.get('w', 'alice'))?.status.state).toBe('failed');
      expect((await s.get('done'))?.status.state).toBe('completed');
      expect((await s.get('other'))?.status.state).toBe('working');
      expect(await s.events('w', 2)).toMatchObject({ events: [{ kind: 'status', seq: 3, status: { state: 'failed' } }], last: 3 });
      expect(await s.deadReplicas()).toEqual([]);
      expect(await s.failTasksOf('b', 'again')).toEqual([]);
    });

    it('does not let a save that names a runner bring back a task that has ended', async () => {
      const s = await stores.open();
      await s.save(makeTask(), undefined, { runner: 'b', events: [change(1)] });
      await s.failTasksOf('b', 'taken for dead');
      await s.save(makeTask({ at: '2026-11-21T08:00:05.000Z' }), undefined, { runner: 'b', events: [change(2)] });
      expect((await s.get('t-1'))?.status.state).toBe('failed');
      expect((await s.events('t-1', 1)).events.map((e) => e.kind === 'status' && e.status.state)).toEqual(['failed']);
    });

    it('gives a key to one claim, in its owner’s scope, until it is given back', async () => {
      const s = await stores.open();
      expect(await s.claimKey('k', 'alice', 'f1', 'task-1')).toEqual({ won: true });
      expect(await s.claimKey('k', 'alice', 'f2', 'task-2')).toEqual({ won: false, taskId: 'task-1', fingerprint: 'f1' });
      expect(await s.claimKey('k', 'bob', 'f1', 'task-3')).toEqual({ won: true });
      expect(await s.claimKey('k', undefined, 'f1', 'task-4')).toEqual({ won: true });
      await s.releaseKey('k', 'alice', 'task-2');
      expect(await s.claimKey('k', 'alice', 'f1', 'task-5')).toMatchObject({ won: false, taskId: 'task-1' });
      await s.releaseKey('k', 'alice', 'task-1');
      expect(await s.claimKey('k', 'alice', 'f1', 'task-6')).toEqual({ won: true });
    });

    it('keeps the claim as the key of the task saved with it, and loses a claim to a direct answer', async () => {
      const s = await stores.open();
      expect(await s.claimKey('k', undefined, 'f', 't-1')).toEqual({ won: true });
      await s.save(makeTask(), undefined, { idempotency: { key: 'k', fingerprint: 'f' }, runner: 'a' });
      expect(await s.findIdempotent('k')).toMatchObject({ taskId: 't-1', fingerprint: 'f' });
      await s.saveIdempotentAnswer('m', undefined, { fingerprint: 'g', message: { messageId: 'x', role: 'agent', parts: [{ kind: 'text', text: 'hi' }] }, createdAt: '2026-11-21T08:00:00.000Z' });
      expect(await s.claimKey('m', undefined, 'g', 't-2')).toEqual({ won: false, taskId: undefined, fingerprint: 'g' });
    });

    it('gives a key claimed at the same instant to exactly one claim', async () => {
      const s = await stores.open();
      const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => s.claimKey('same', undefined, 'f', `task-${i}`)));
      const won = claims.flatMap((claim, i) => (claim.won ? [`task-${i}`] : []));
      expect(won).toHaveLength(1);
      for (const claim of claims) if (!claim.won) expect(claim).toEqual({ won: false, taskId: won[0], fingerprint: 'f' });
    });

    it('hands each delivery to one replica at a time, renews a replica’s own claims and frees those that run out', async () => {
      const s = await stores.open();
      await s.addDeliveries([1, 2, 3].map((n) => ({ taskId: 't-1', configId: 'c', body: `{"n":${n}}` })));
      const seqs = (list: { seq: number }[]) => list.map((d) => d.seq);
      const [first, second, third] = seqs(await s.pendingDeliveries());
      expect(seqs(await s.claimDeliveries('a', 2, 60_000))).toEqual([first, second]);
      expect(await s.claimDeliveries('b', 10, 30)).toMatchObject([{ seq: third, body: '{"n":3}', attempts: 0 }]);
      expect(seqs(await s.claimDeliveries('a', 10, 60_000))).toEqual([first, second]);
      await s.removeDelivery(first as number);
      expect(await eventually(async () => seqs(await s.claimDeliveries('a', 10, 60_000)).length === 2)).toBe(true);
      expect(seqs(await s.claimDeliveries('a', 10, 60_000))).toEqual([second, third]);
      expect(await s.claimDeliveries('b', 10, 60_000)).toEqual([]);
    });

    it('never hands a delivery to two replicas claiming at once', async () => {
      const s = await stores.open();
      await s.addDeliveries(Array.from({ length: 20 }, (_, n) => ({ taskId: 't-1', configId: 'c', body: `{"n":${n}}` })));
      const claimed = await Promise.all(['a', 'b', 'c', 'd'].map((replica) => s.claimDeliveries(replica, 6, 60_000)));
      const all = claimed.flat().map((d) => d.seq);
      expect(new Set(all).size).toBe(all.length);
      expect(all).toHaveLength(20);
    });

    it('lets one replica lead a role until its lease passes', async () => {
      const s = await stores.open();
      expect(await s.lead('retention', 'a', 30)).toBe(true);
      expect(await s.lead('retention', 'b', 60_000)).toBe(false);
      expect(await s.lead('recovery', 'b', 60_000)).toBe(true);
      expect(await s.lead('retention', 'a', 30)).toBe(true);
      expect(await eventually(() => s.lead('retention', 'b', 60_000))).toBe(true);
      expect(await s.lead('retention', 'a', 60_000)).toBe(false);
      const at = await Promise.all(['c', 'd', 'e'].map((replica) => s.lead('fresh', replica, 60_000)));
      expect(at.filter(Boolean)).toHaveLength(1);
    });
  });
}
