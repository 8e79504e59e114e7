// What replicas do once for all of them: a send retried under one Idempotency-Key starts the work
// once, a push notification is sent once, retention runs on one replica, and a dead replica's
// tasks are ended by a survivor, whose subscribers hear of it. Run on the in-process bus and on NATS,
// on one MemoryTaskStore or on PostgreSQL (`stores`).
import { afterEach, describe, expect, it } from 'vitest';
import { jiajiaCard } from '../../src/card/examples.js';
import { createAgent } from '../../src/runtime/agent.js';
import { REPLICA_STOPPED } from '../../src/runtime/replica.js';
import { startPushSender, type PushSender } from '../../src/serve/push-sender.js';
import { MemoryTaskStore } from '../../src/store/task-store.js';
import { textOf, type Task } from '../../src/model/task.js';
import { makeTask } from '../contracts/task-store.js';
import { eventually, startWebhook } from '../fixtures/webhook.js';
import { clusterFixture, collect, message, shown, until, type Connect, type Replica, type ReplicaStore, type SharedStores } from './replica-fixture.js';

export function replicaDuties(name: string, connect: Connect, stores?: SharedStores): void {
  describe(`replicas on ${name}: done once for all`, () => {
    const cluster = clusterFixture(connect, stores);
    const senders: PushSender[] = [];
    afterEach(async () => {
      await Promise.all(senders.splice(0).map((push) => push.close()));
    });
    const pushFor = async (replica: Replica, claimLeaseMs?: number): Promise<PushSender> => {
      const push = await startPushSender({ agent: replica.agent, store: replica.agent.store as ReplicaStore, allowPrivateNetworks: true, retryBaseMs: 100, maxAttempts: 50, random: () => 0, ...(claimLeaseMs === undefined ? {} : { claimLeaseMs }) });
      senders.push(push);
      return push;
    };

    it('starts the work once for one Idempotency-Key sent to two replicas at the same instant', async () => {
      const [a, b] = [await cluster.replica('a'), await cluster.replica('b')];
      const sent = message('steps k1 1');
      const both = Promise.all([a.agent.send(sent, { idempotencyKey: 'order-1', owner: 'alice' }), b.agent.send({ ...sent, messageId: 'retry' }, { idempotencyKey: 'order-1', owner: 'alice' })]);
      await eventually(() => expect(cluster.runs).toHaveLength(1));
      const streamed = collect(await b.agent.stream({ ...sent, messageId: 'retry-2' }, { idempotencyKey: 'order-1', owner: 'alice' }));
      // The stream opens with the task as stored when it is read (on PostgreSQL, a moment later).
      await eventually(() => expect(streamed.events).toHaveLength(1));
      cluster.steps.go('k1#1');
      const [first, second] = await both;
      expect(first.id).toBe(second.id);
      expect([first.status.state, second.status.state]).toEqual(['completed', 'completed']);
      expect(second.artifacts).toEqual(first.artifacts);
      expect((await streamed.done).map(shown).at(-1)).toBe('status:completed@3');
      expect((await b.agent.send({ ...sent, messageId: 'later' }, { idempotencyKey: 'order-1', owner: 'alice' })).id).toBe(first.id);
      await expect(a.agent.send(message('something else'), { idempotencyKey: 'order-1', owner: 'alice' })).rejects.toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
      expect(cluster.runs).toHaveLength(1);
    });

    it('makes the task on B after all when the send on A that claimed the key is refused before it starts', async () => {
      const [a, b] = [await cluster.replica('a'), await cluster.replica('b')];
      const sent = message('plain work');
      let refuse: (error: Error) => void = () => undefined;
      const first = a.agent.send(sent, { idempotencyKey: 'order-2', beforeStart: () => new Promise((_, reject) => (refuse = reject)) });
      await eventually(async () => expect(await cluster.store().findIdempotent('key:order-2')).toBeDefined());
      const second = b.agent.send({ ...sent, messageId: 'retry' }, { idempotencyKey: 'order-2' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      refuse(new Error('no push config for you'));
      await expect(first).rejects.toThrow('no push config for you');
      const made = await second;
      expect(made.status.state).toBe('completed');
      expect(cluster.runs).toEqual(['b:plain work']);
      expect(await cluster.store().findIdempotent('key:order-2')).toMatchObject({ taskId: made.id });
    });

    it('makes the task on B for a key A claimed and died holding before it saved the task', async () => {
      const a = await cluster.replica('a', { leaseMs: 300 });
      const b = await cluster.replica('b', { leaseMs: 300 });
      const sent = message('plain work');
      // A's send never returns: A dies in beforeStart, between its claim and its task's first save.
      void a.agent.send(sent, { idempotencyKey: 'order-3', beforeStart: () => new Promise(() => undefined) });
      await eventually(async () => expect(await cluster.store().findIdempotent('key:order-3')).toBeDefined());
      await a.kill();
      const made = await b.agent.send({ ...sent, messageId: 'retry' }, { idempotencyKey: 'order-3' });
      expect(made.status.state).toBe('completed');
      expect(cluster.runs).toEqual(['b:plain work']);
      expect(await cluster.store().findIdempotent('key:order-3')).toMatchObject({ taskId: made.id });
    });

    it('sends each push notification once, though every replica sends what the outbox holds', async () => {
      const hook = await startWebhook((n) => (n < 2 ? 500 : 200));
      const a = await cluster.replica('a');
      const pushA = await pushFor(a);
      const task = await a.agent.send(message('done at once'), { beforeStart: async (t) => void (await pushA.save({ taskId: t.id, version: '1.0', url: hook.url })) });
      // A is still trying the first one when B starts with the same outbox.
      expect(hook.delivered).toHaveLength(0);
      await pushFor(await cluster.replica('b'));
      // The task, its artifact, its end: each once.
      await eventually(() => expect(hook.delivered).toHaveLength(3));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(hook.delivered).toHaveLength(3);
      expect(new Set(hook.delivered.map((d) => d.body)).size).toBe(3);
      expect(hook.delivered.every((d) => d.body.includes(task.id))).toBe(true);
    });

    it('sends, from a survivor, the push notifications a dead replica had claimed', async () => {
      const hook = await startWebhook(() => 500);
      const a = await cluster.replica('a');
      const pushA = await pushFor(a, 300);
      await a.agent.send(message('done at once'), { beforeStart: async (t) => void (await pushA.save({ taskId: t.id, version: '1.0', url: hook.url })) });
      await eventually(() => expect(hook.requests.length).toBeGreaterThan(0));
      await a.kill();
      // A dead replica's sender is never closed: it waits on its store for ever.
      senders.splice(senders.indexOf(pushA), 1);
      hook.answer = () => 200;
      await pushFor(await cluster.replica('b'), 300);
      await eventually(() => expect(hook.delivered).toHaveLength(3));
      expect(new Set(hook.delivered.map((d) => d.body)).size).toBe(3);
    });

    it('runs retention on the replica that leads it only', async () => {
      const rules = { taskTtlMs: 60_000 };
      const a = await cluster.replica('a', { retention: rules, leaseMs: 60_000 });
      // A's first pass (as it starts) takes the lead before B starts; B's finds it taken.
      expect(await a.agent.retention?.prune()).toEqual({ ended: 0, deleted: 0 });
      const b = await cluster.replica('b', { retention: rules, leaseMs: 60_000 });
      expect(await b.agent.retention?.prune()).toEqual({ ended: 0, deleted: 0 });
      const old = (id: string) => cluster.store().save(makeTask({ id, state: 'completed', at: '2020-01-01T00:00:00.000Z' }));
      await old('old-1');
      expect(await a.agent.retention?.prune()).toEqual({ ended: 0, deleted: 1 });
      await old('old-2');
      expect(await b.agent.retention?.prune()).toEqual({ ended: 0, deleted: 0 });
      expect(await cluster.store().get('old-2')).toBeDefined();
      expect(await a.agent.retention?.prune()).toEqual({ ended: 0, deleted: 1 });
    });

    it('ends a task waiting too long on another replica where it runs: its handler’s ask gives up', async () => {
      // B's clock is an hour ahead: to B, a task that has just asked has waited an hour. Its
      // passes are 10 minutes apart: the one it makes as it starts, and then the test's.
      const b = await cluster.replica('b', { retention: { inputTimeoutMs: 600_000 }, leaseMs: 60_000, now: () => new Date(Date.now() + 3_600_000) });
      expect(await b.agent.retention?.prune()).toEqual({ ended: 0, deleted: 0 });
      const a = await cluster.replica('a');
      const asked = await a.agent.send(message('ask'));
      expect(await b.agent.retention?.prune()).toEqual({ ended: 1, deleted: 0 });
      const ended = await a.agent.getTask(asked.id);
      expect(ended.status.state).toBe('failed');
      expect(textOf(ended.status.message as Task['history'][number])).toMatch(/^Waited 10m for a reply/);
      expect(a.agent.subscribers(asked.id)).toBe(0);
      await expect(b.agent.send(message('too late', { taskId: asked.id }))).rejects.toMatchObject({ code: 'UNSUPPORTED_OPERATION' });
    });

    it('ends a dead replica’s tasks from a survivor, and a subscriber on a third replica is told', async () => {
      const a = await cluster.replica('a', { leaseMs: 300 });
      const [b, c] = [await cluster.replica('b', { leaseMs: 300 }), await cluster.replica('c', { leaseMs: 300 })];
      const task = await a.agent.send(message('hold'), { returnImmediately: true });
      await until(() => c.agent.getTask(task.id), 'working');
      const followed = collect(await c.agent.subscribe(task.id));
      await a.kill();
      const events = await followed.done;
      expect(shown(events.at(-1) as never)).toMatch(/^status:failed@/);
      const ended = await b.agent.getTask(task.id);
      expect(ended.status.message?.parts).toEqual([{ kind: 'text', text: REPLICA_STOPPED }]);
      expect(cluster.runs).toEqual(['a:hold']);
    });

    it('answers CLUSTER_UNAVAILABLE for a cancel while the runner neither answers nor has been found dead', async () => {
      const a = await cluster.replica('a', { leaseMs: 10_000 });
      const b = await cluster.replica('b', { leaseMs: 60_000 });
      const task = await a.agent.send(message('hold'), { returnImmediately: true });
      await until(() => b.agent.getTask(task.id), 'working');
      await a.kill();
      await expect(b.agent.cancel(task.id)).rejects.toMatchObject({ code: 'CLUSTER_UNAVAILABLE', details: { task: task.id } });
      expect((await b.agent.getTask(task.id)).status.state).toBe('working');
    });

    it('cancels, as stored, a task whose runner is dead, and tells its subscribers', async () => {
      const a = await cluster.replica('a', { leaseMs: 100 });
      // B heartbeats too seldom to have ended A's tasks by then.
      const b = await cluster.replica('b', { leaseMs: 60_000 });
      const asked = await a.agent.send(message('ask'));
      const held = await a.agent.send(message('hold'), { returnImmediately: true });
      await until(() => b.agent.getTask(held.id), 'working');
      const followed = collect(await b.agent.subscribe(held.id));
      await a.kill();
      await eventually(async () => expect(await cluster.store().deadReplicas()).toEqual(['a']));
      expect((await b.agent.cancel(held.id)).status.state).toBe('cancelled');
      expect((await followed.done).map(shown).at(-1)).toMatch(/^status:cancelled@/);
      await expect(b.agent.send(message('1999', { taskId: asked.id }))).rejects.toMatchObject({ code: 'UNSUPPORTED_OPERATION', message: expect.stringContaining('the replica running it stopped') });
    });

    it('refuses a cluster on a store its replicas cannot share', () => {
      const plain = new MemoryTaskStore();
      const { save, get, events, findIdempotent, saveIdempotentAnswer, list, recoverInterrupted, close } = plain;
      const store = { save, get, events, findIdempotent, saveIdempotentAnswer, list, recoverInterrupted, close };
      const bus = { prefix: 'x' } as never;
      expect(() => createAgent({ card: jiajiaCard(), store, onTask: () => 'x', cluster: { replica: 'a', bus } })).toThrow(expect.objectContaining({ code: 'USAGE' }));
      expect(() => createAgent({ card: jiajiaCard(), onTask: () => 'x', cluster: { replica: '', bus } })).toThrow(expect.objectContaining({ code: 'USAGE' }));
    });
  });
}
