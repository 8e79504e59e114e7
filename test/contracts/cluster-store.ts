// The ClusterStore contract: every store that replicas share must pass these. `open` makes a new,
// empty store; `join` opens another handle on the same data, as a second replica would (a store
// kept in one process may hand back the same object). The races run through two handles at once.
import { describe, expect, it } from 'vitest';
import type { ClusterStore } from '../../src/store/cluster-store.js';
import type { PushStore } from '../../src/store/push-store.js';
import type { TaskStore } from '../../src/store/task-store.js';
import { change } from './task-log.js';
import { makeTask } from './task-store.js';
import { withStores } from './with-stores.js';

type Store = TaskStore & PushStore & ClusterStore;

const LONG = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits, a bounded number of times, for a lease given as 0 ms to have passed. */
async function until(check: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 200; tries += 1) {
    if (await check()) return;
    await sleep(10);
  }
  throw new Error('a lease of 0 ms did not pass within 200 tries');
}

export function clusterStoreContract(name: string, open: () => Promise<Store>, join: (first: Store) => Promise<Store>): void {
  describe(`${name} (ClusterStore contract)`, () => {
    const stores = withStores(open);
    const joined = withStores(join);
    const twoReplicas = async (): Promise<[Store, Store]> => {
      const a = await stores.open();
      return [a, await joined.open(a)];
    };
    const dead = async (s: Store, replica: string) => {
      await s.heartbeat(replica, 0);
      await until(async () => (await s.deadReplicas()).includes(replica));
    };

    it('knows a replica alive while its lease runs, and dead once it has passed', async () => {
      const [a, b] = await twoReplicas();
      await a.heartbeat('alpha', LONG);
      await b.heartbeat('beta', 0);
      await until(async () => (await a.deadReplicas()).includes('beta'));
      expect(await b.deadReplicas()).toEqual(['beta']);
      await b.heartbeat('beta', LONG);
      expect(await a.deadReplicas()).toEqual([]);
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

    it('leaves alone a replica whose lease has not passed', async () => {
      const s = await stores.open();
      await s.save(makeTask({ id: 'w' }), undefined, { runner: 'alpha' });
      await s.heartbeat('alpha', LONG);
      expect(await s.failTasksOf('alpha', 'gone?')).toEqual([]);
      expect((await s.get('w'))?.status.state).toBe('working');
    });

    it('gives a key to its first claim, within its owner’s scope, and tells a later one who holds it', async () => {
      const s = await stores.open();
      expect(await s.claimKey('k', 'ALICE', 'f1', 't1')).toEqual({ won: true });
      expect(await s.claimKey('k', 'ALICE', 'f2', 't2')).toEqual({ won: false, taskId: 't1', fingerprint: 'f1' });
      expect(await s.claimKey('k', 'BOB', 'f3', 't3')).toEqual({ won: true });
      expect(await s.claimKey('k', undefined, 'f4', 't4')).toEqual({ won: true });
      await s.save(makeTask({ id: 't1' }), 'ALICE', { idempotency: { key: 'k', fingerprint: 'f1' } });
      expect(await s.findIdempotent('k', 'ALICE')).toMatchObject({ taskId: 't1', fingerprint: 'f1' });
      expect(await s.findIdempotent('k', 'BOB')).toMatchObject({ taskId: 't3', fingerprint: 'f3' });
    });

    it('gives a key back only to the claim that took it', async () => {
      const s = await stores.open();
      await s.claimKey('k', undefined, 'f1', 't1');
      await s.releaseKey('k', undefined, 't2');
      expect(await s.claimKey('k', undefined, 'f2', 't2')).toMatchObject({ won: false, taskId: 't1' });
      await s.releaseKey('k', undefined, 't1');
      expect(await s.findIdempotent('k')).toBeUndefined();
      expect(await s.claimKey('k', undefined, 'f2', 't2')).toEqual({ won: true });
    });

    it('loses a claim to a direct answer kept for the key', async () => {
      const s = await stores.open();
      const message = { messageId: 'm', role: 'agent' as const, parts: [{ kind: 'text' as const, text: 'hi' }] };
      await s.saveIdempotentAnswer('k', undefined, { fingerprint: 'f', message, createdAt: '2026-11-21T08:00:00.000Z' });
      expect(await s.claimKey('k', undefined, 'f', 't1')).toEqual({ won: false, taskId: undefined, fingerprint: 'f' });
    });

    it('hands each delivery to one replica while its claim lasts, by seq, and to another once it has run out', async () => {
      const [a, b] = await twoReplicas();
      const added = await a.addDeliveries(Array.from({ length: 5 }, (_, i) => ({ taskId: 't', configId: 'c', body: `{"n":${i}}` })));
      const seqs = added.map((d) => d.seq);
      expect((await a.claimDeliveries('alpha', 2, LONG)).map((d) => d.seq)).toEqual(seqs.slice(0, 2));
      expect(await b.claimDeliveries('beta', 10, LONG)).toEqual(added.slice(2));
      expect(await b.claimDeliveries('gamma', 10, LONG)).toEqual([]);
      // A replica's own claims come back to it, renewed.
      expect((await a.claimDeliveries('alpha', 10, LONG)).map((d) => d.seq)).toEqual(seqs.slice(0, 2));
      await b.removeDelivery(seqs[2]!);
      await b.recordAttempt(seqs[3]!, 2);
      await b.claimDeliveries('beta', 10, 0);
      await until(async () => (await a.claimDeliveries('gamma', 10, LONG)).length > 0);
      expect((await a.claimDeliveries('gamma', 10, LONG)).map((d) => [d.seq, d.attempts])).toEqual([
        [seqs[3], 2],
        [seqs[4], 0],
      ]);
      expect(await a.claimDeliveries('gamma', 0, LONG)).toEqual([]);
      expect((await a.pendingDeliveries()).map((d) => d.seq)).toEqual([seqs[0], seqs[1], seqs[3], seqs[4]]);
    });

    it('lets one replica lead a role until its lease passes, renewing its own', async () => {
      const [a, b] = await twoReplicas();
      expect(await a.lead('retention', 'alpha', LONG)).toBe(true);
      expect(await b.lead('retention', 'beta', LONG)).toBe(false);
      expect(await a.lead('retention', 'alpha', 0)).toBe(true);
      expect(await b.lead('outbox', 'beta', LONG)).toBe(true);
      await until(() => b.lead('retention', 'beta', LONG));
      expect(await a.lead('retention', 'alpha', LONG)).toBe(false);
    });

    it('gives each of many keys, claimed at the same instant through two replicas, to exactly one claim', async () => {
      const [a, b] = await twoReplicas();
      const claims = Array.from({ length: 20 }, (_, k) =>
        Array.from({ length: 6 }, (_, i) => ({ store: i % 2 === 0 ? a : b, key: `key-${k}`, taskId: `task-${k}-${i}` })),
      ).flat();
      const results = await Promise.all(claims.map((c) => c.store.claimKey(c.key, 'ALICE', `f-${c.taskId}`, c.taskId).then((r) => ({ ...c, r }))));
      for (let k = 0; k < 20; k += 1) {
        const mine = results.filter((x) => x.key === `key-${k}`);
        const winners = mine.filter((x) => x.r.won);
        expect(winners, `key-${k}`).toHaveLength(1);
        for (const loser of mine.filter((x) => !x.r.won)) expect(loser.r).toEqual({ won: false, taskId: winners[0]!.taskId, fingerprint: `f-${winners[0]!.taskId}` });
      }
    });

    it('never hands one delivery to two replicas claiming at the same instant', async () => {
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

    it('fails each task of a dead replica once when two survivors race to do it', async () => {
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
