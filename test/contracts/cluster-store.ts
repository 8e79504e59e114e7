// The ClusterStore contract: every store that replicas of one agent share (memory, PostgreSQL)
// must pass these. The replicas are names; `open` makes a new, empty store. With `join`, which
// opens another handle on the same data as a second replica would (another connection pool on
// the same database), the races also run through two handles at once; without it, through one.
import { describe, expect, it } from 'vitest';
import type { ClusterStore } from '../../src/store/cluster-store.js';
import type { PushStore } from '../../src/store/push-store.js';
import type { TaskStore } from '../../src/store/task-store.js';
import { change } from './task-log.js';
import { makeTask } from './task-store.js';
import { withStores } from './with-stores.js';

type Store = TaskStore & PushStore & ClusterStore;

const LONG = 60_000;

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

export function clusterStoreContract(name: string, open: () => Promise<Store> | Store, join?: (first: Store) => Promise<Store>): void {
  describe(`${name} (ClusterStore contract)`, () => {
    const stores = withStores(open);
    const joined = withStores((first: Store) => (join === undefined ? Promise.reject(new Error('no join')) : join(first)));
    /** Two replicas' handles on one new store (the same handle twice without `join`). */
    const twoReplicas = async (): Promise<[Store, Store]> => {
      const a = await stores.open();
      return [a, join === undefined ? a : await joined.open(a)];
    };
    const dead = async (s: Store, replica: string) => {
      await s.heartbeat(replica, 0);
      expect(await eventually(async () => (await s.deadReplicas()).includes(replica))).toBe(true);
    };

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
      expect(await s.claimKey('k', 'alice', 'f1', 'task-1', 'a')).toEqual({ won: true });
      expect(await s.claimKey('k', 'alice', 'f2', 'task-2', 'a')).toEqual({ won: false, taskId: 'task-1', fingerprint: 'f1' });
      expect(await s.claimKey('k', 'bob', 'f1', 'task-3', 'a')).toEqual({ won: true });
      expect(await s.claimKey('k', undefined, 'f1', 'task-4', 'a')).toEqual({ won: true });
      await s.releaseKey('k', 'alice', 'task-2');
      expect(await s.claimKey('k', 'alice', 'f1', 'task-5', 'a')).toMatchObject({ won: false, taskId: 'task-1' });
      await s.releaseKey('k', 'alice', 'task-1');
      expect(await s.claimKey('k', 'alice', 'f1', 'task-6', 'a')).toEqual({ won: true });
    });

    it('keeps the claim as the key of the task saved with it, and loses a claim to a direct answer', async () => {
      const s = await stores.open();
      expect(await s.claimKey('k', undefined, 'f', 't-1', 'a')).toEqual({ won: true });
      await s.save(makeTask(), undefined, { idempotency: { key: 'k', fingerprint: 'f' }, runner: 'a' });
      expect(await s.findIdempotent('k')).toMatchObject({ taskId: 't-1', fingerprint: 'f' });
      await s.saveIdempotentAnswer('m', undefined, { fingerprint: 'g', message: { messageId: 'x', role: 'agent', parts: [{ kind: 'text', text: 'hi' }] }, createdAt: '2026-11-21T08:00:00.000Z' });
      expect(await s.claimKey('m', undefined, 'g', 't-2', 'a')).toEqual({ won: false, taskId: undefined, fingerprint: 'g' });
    });

    it('gives back, as it ends a dead replica’s tasks, the keys it claimed for tasks it never saved', async () => {
      const [a, b] = await twoReplicas();
      expect(await a.claimKey('lost', 'ALICE', 'f', 'never-saved', 'alpha')).toEqual({ won: true });
      expect(await a.claimKey('kept', 'ALICE', 'f', 'w', 'alpha')).toEqual({ won: true });
      await a.save(makeTask({ id: 'w' }), 'ALICE', { runner: 'alpha', idempotency: { key: 'kept', fingerprint: 'f' }, events: [change(1)] });
      expect(await a.claimKey('theirs', 'ALICE', 'f', 'beta-task', 'beta')).toEqual({ won: true });
      await b.heartbeat('beta', LONG);
      await dead(a, 'alpha');

      expect((await b.failTasksOf('alpha', 'gone')).map((t) => t.id)).toEqual(['w']);

      expect(await b.findIdempotent('lost', 'ALICE')).toBeUndefined();
      expect(await b.claimKey('lost', 'ALICE', 'f', 'retried', 'beta')).toEqual({ won: true });
      expect(await b.findIdempotent('kept', 'ALICE')).toMatchObject({ taskId: 'w', fingerprint: 'f' });
      expect(await b.claimKey('theirs', 'ALICE', 'f', 'other', 'gamma')).toEqual({ won: false, taskId: 'beta-task', fingerprint: 'f' });
      // Once its task is saved, a claim is the task's key: ending its replica later keeps it.
      await b.save(makeTask({ id: 'retried' }), 'ALICE', { runner: 'beta', idempotency: { key: 'lost', fingerprint: 'f' } });
      await b.failTasksOf('beta', 'gone');
      expect(await a.findIdempotent('lost', 'ALICE')).toMatchObject({ taskId: 'retried' });
    });

    it('gives a key claimed at the same instant to exactly one claim', async () => {
      const s = await stores.open();
      const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => s.claimKey('same', undefined, 'f', `task-${i}`, `r${i}`)));
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

    it('renews every claim of a replica, also those past the `limit` it takes at a time', async () => {
      const [a, b] = await twoReplicas();
      await a.addDeliveries([1, 2, 3, 4, 5].map((n) => ({ taskId: 't-1', configId: 'c', body: `{"n":${n}}` })));
      const seqs = (list: { seq: number }[]) => list.map((d) => d.seq);
      const all = seqs(await a.pendingDeliveries());
      expect(seqs(await a.claimDeliveries('alpha', 5, 200))).toEqual(all);
      expect(seqs(await a.claimDeliveries('alpha', 2, LONG))).toEqual(all.slice(0, 2));
      // Past the first claims' lease: none has run out, the last three included.
      await pause(300);
      expect(await b.claimDeliveries('beta', 10, LONG)).toEqual([]);
      expect(seqs(await a.claimDeliveries('alpha', 10, LONG))).toEqual(all);
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

    it('records the runner of a task with its first save only', async () => {
      const s = await stores.open();
      await s.save(makeTask({ id: 'a' }), undefined, { runner: 'alpha' });
      await s.save(makeTask({ id: 'a', state: 'completed' }), undefined, { runner: 'beta' });
      await s.save(makeTask({ id: 'b' }));
      expect(await s.runnerOf('a')).toBe('alpha');
      expect(await s.runnerOf('b')).toBeUndefined();
      expect(await s.runnerOf('nope')).toBeUndefined();
    });

    it('fails the unfinished tasks of a dead replica once, logs the failure, and forgets the replica', async () => {
      const [a, b] = await twoReplicas();
      const reason = 'the replica running this task stopped';
      await a.save(makeTask({ id: 'w' }), 'ALICE_TOKEN', { runner: 'alpha', events: [change(1)] });
      await a.save(makeTask({ id: 'i', state: 'input-required' }), undefined, { runner: 'alpha' });
      await a.save(makeTask({ id: 'done', state: 'completed' }), undefined, { runner: 'alpha' });
      await a.save(makeTask({ id: 'theirs' }), undefined, { runner: 'beta' });
      await a.save(makeTask({ id: 'nobody' }));
      await b.heartbeat('beta', LONG);
      await dead(a, 'alpha');

      const failed = await b.failTasksOf('alpha', reason);

      expect(failed.map((t) => t.id)).toEqual(['i', 'w']);
      for (const task of failed) {
        expect(task.status).toMatchObject({ state: 'failed', message: { role: 'agent', parts: [{ kind: 'text', text: reason }], taskId: task.id } });
        expect(task.history.at(-1)).toEqual(task.status.message);
        expect(await a.get(task.id)).toEqual(task);
      }
      expect((await a.get('w', 'ALICE_TOKEN'))?.status.state).toBe('failed');
      expect(await a.events('w', 1)).toEqual({ events: [{ kind: 'status', taskId: 'w', contextId: 'c-1', status: failed[1]!.status, seq: 2 }], last: 2 });
      expect((await a.events('i', 0)).events.map((e) => e.seq)).toEqual([1]);
      for (const id of ['done', 'theirs', 'nobody']) expect((await a.get(id))?.status.state, id).not.toBe('failed');
      expect(await a.failTasksOf('alpha', reason)).toEqual([]);
      expect(await a.deadReplicas()).toEqual([]);
    });

    it('gives each of many keys, claimed at the same instant through two handles, to exactly one claim', async () => {
      const [a, b] = await twoReplicas();
      const claims = Array.from({ length: 20 }, (_, k) =>
        Array.from({ length: 6 }, (_, i) => ({ store: i % 2 === 0 ? a : b, key: `key-${k}`, taskId: `task-${k}-${i}` })),
      ).flat();
      const results = await Promise.all(claims.map((c) => c.store.claimKey(c.key, 'ALICE', `f-${c.taskId}`, c.taskId, c.store === a ? 'alpha' : 'beta').then((r) => ({ ...c, r }))));
      for (let k = 0; k < 20; k += 1) {
        const mine = results.filter((x) => x.key === `key-${k}`);
        const winners = mine.filter((x) => x.r.won);
        expect(winners, `key-${k}`).toHaveLength(1);
        for (const loser of mine.filter((x) => !x.r.won)) expect(loser.r).toEqual({ won: false, taskId: winners[0]!.taskId, fingerprint: `f-${winners[0]!.taskId}` });
      }
    });

    it('never hands one delivery twice to replicas draining the outbox through two handles at once', async () => {
      const [a, b] = await twoReplicas();
      const added = await a.addDeliveries(Array.from({ length: 120 }, (_, i) => ({ taskId: `t${i % 7}`, configId: 'c', body: `{"n":${i}}` })));
      // As a sender does: claim a few, send them, take them out of the outbox, claim again.
      const drain = async (s: Store, replica: string): Promise<number[]> => {
        const got: number[] = [];
        for (let round = 0; round < 200; round += 1) {
          const claimed = await s.claimDeliveries(replica, 7, LONG);
          if (claimed.length === 0) break;
          got.push(...claimed.map((d) => d.seq));
          for (const d of claimed) await s.removeDelivery(d.seq);
        }
        return got;
      };
      const [one, two, three, four] = await Promise.all([drain(a, 'alpha'), drain(b, 'beta'), drain(a, 'gamma'), drain(b, 'delta')]);
      const all = [...one!, ...two!, ...three!, ...four!];
      expect(all.length).toBe(added.length);
      expect(new Set(all).size).toBe(added.length);
    });

    it('fails each task of a dead replica once when two survivors race to do it through two handles', async () => {
      const [a, b] = await twoReplicas();
      for (let i = 0; i < 12; i += 1) await a.save(makeTask({ id: `t${String(i).padStart(2, '0')}` }), undefined, { runner: 'alpha', events: [change(1)] });
      await dead(a, 'alpha');
      const [first, second] = await Promise.all([a.failTasksOf('alpha', 'gone'), b.failTasksOf('alpha', 'gone')]);
      expect([...first, ...second].map((t) => t.id).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `t${String(i).padStart(2, '0')}`));
      expect(first.length === 0 || second.length === 0).toBe(true);
      for (let i = 0; i < 12; i += 1) expect((await b.events(`t${String(i).padStart(2, '0')}`, 0)).events.map((e) => e.seq)).toEqual([1, 2]);
    });
  });
}
