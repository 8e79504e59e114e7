// What a client sees of replicas behind a load balancer: a task started on one replica is read,
// listed, followed, resumed, cancelled and continued on another, as on one server. Run on the
// in-process bus and on NATS (`connect`), on one MemoryTaskStore or on PostgreSQL (`stores`).
import { describe, expect, it } from 'vitest';
import { textOf } from '../../src/model/task.js';
import { clusterFixture, collect, message, shown, until, type Connect, type SharedStores } from './replica-fixture.js';
import { eventually } from '../fixtures/webhook.js';

export function replicaScenarios(name: string, connect: Connect, stores?: SharedStores): void {
  describe(`replicas on ${name}: one task, any replica`, () => {
    const cluster = clusterFixture(connect, stores);

    it('reads and lists on B a task running on A, as stored', async () => {
      const [a, b] = [await cluster.replica('a'), await cluster.replica('b')];
      const task = await a.agent.send(message('hold'), { returnImmediately: true, owner: 'alice' });
      const seen = await until(() => b.agent.getTask(task.id, { owner: 'alice' }), 'working');
      expect(seen.history[0]?.parts).toEqual([{ kind: 'text', text: 'hold' }]);
      expect((await b.agent.listTasks({ owner: 'alice' })).tasks.map((t) => t.id)).toEqual([task.id]);
      await expect(b.agent.getTask(task.id, { owner: 'bob' })).rejects.toMatchObject({ code: 'TASK_NOT_FOUND' });
      expect(await cluster.store().runnerOf(task.id)).toBe('a');
    });

    it('streams on B every event of a task running on A, each once and in order, until it ends', async () => {
      const [a, b] = [await cluster.replica('a'), await cluster.replica('b')];
      const task = await a.agent.send(message('steps s1 3'), { returnImmediately: true });
      cluster.steps.go('s1#1');
      await until(() => b.agent.getTask(task.id), 'working');
      const followed = collect(await b.agent.subscribe(task.id));
      cluster.steps.go('s1#2');
      cluster.steps.go('s1#3');
      const events = await followed.done;
      const { events: logged } = await cluster.store().events(task.id, 0);
      const first = events[0];
      expect(first?.kind).toBe('task');
      const from = first?.kind === 'task' ? (first.seq ?? 0) : 0;
      expect(events.slice(1).map(shown)).toEqual(logged.filter((e) => (e.seq ?? 0) > from).map(shown));
      expect(events.at(-1)).toMatchObject({ kind: 'status', status: { state: 'completed' } });
      expect(b.agent.subscribers(task.id)).toBe(0);
    });

    it('resumes on B after the last event a client saw on A, with exactly the missed events', async () => {
      const [a, b] = [await cluster.replica('a'), await cluster.replica('b')];
      const stream = (await a.agent.stream(message('steps s2 3')))[Symbol.asyncIterator]();
      const opening = (await stream.next()).value;
      const id = opening.kind === 'task' ? opening.task.id : '';
      cluster.steps.go('s2#1');
      const seen = (await stream.next()).value;
      expect(shown(seen)).toBe('status:working@1');
      await stream.return?.();
      cluster.steps.go('s2#2');
      await eventually(async () => expect((await cluster.store().events(id, 0)).last).toBe(2));
      const resumed = collect(await b.agent.subscribe(id, {}, 1));
      cluster.steps.go('s2#3');
      expect((await resumed.done).map(shown)).toEqual(['status:working@2', 'status:working@3', 'artifact@4', 'status:completed@5']);
      expect((await collect(await b.agent.subscribe(id, {}, 3)).done).map(shown)).toEqual(['artifact@4', 'status:completed@5']);
      await expect(b.agent.subscribe(id, {}, 9)).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    });

    it('cancels on B a task running on A: A’s handler stops, and B answers with the task cancelled', async () => {
      const [a, b] = [await cluster.replica('a'), await cluster.replica('b')];
      const task = await a.agent.send(message('hold'), { returnImmediately: true });
      await until(() => b.agent.getTask(task.id), 'working');
      const followed = collect(await b.agent.subscribe(task.id));
      const cancelled = await b.agent.cancel(task.id);
      expect(cancelled.status.state).toBe('cancelled');
      expect(a.agent.subscribers(task.id)).toBe(0);
      expect((await a.agent.getTask(task.id)).status.state).toBe('cancelled');
      expect((await followed.done).map(shown).at(-1)).toMatch(/^status:cancelled@/);
      await expect(b.agent.cancel(task.id)).resolves.toMatchObject({ status: { state: 'cancelled' } });
    });

    it('takes on B the reply to a question A’s handler waits in, and A’s handler goes on with it', async () => {
      const [a, b] = [await cluster.replica('a'), await cluster.replica('b')];
      const asked = await a.agent.send(message('ask'));
      expect(asked.status.state).toBe('input-required');
      const done = await b.agent.send(message('1999', { taskId: asked.id }));
      expect(done.status.state).toBe('completed');
      expect(textOf(done.status.message ?? { messageId: '', role: 'agent', parts: [] })).toBe('report for 1999');
      expect(cluster.runs).toEqual(['a:ask']);
      expect(done.history.map((m) => textOf(m))).toEqual(['ask', 'Which year?', '1999', 'report for 1999']);
    });

    it('streams on B the reply to a task A runs, until it ends', async () => {
      const [a, b] = [await cluster.replica('a'), await cluster.replica('b')];
      const asked = await a.agent.send(message('ask r1'));
      const streamed = collect(await b.agent.stream(message('2001', { taskId: asked.id })));
      await eventually(() => expect(streamed.events.map(shown)).toEqual(['task:working@2']));
      cluster.steps.go('r1#1');
      expect((await streamed.done).map(shown)).toEqual(['task:working@2', 'status:working@3', 'artifact@4', 'status:completed@5']);
      expect((await b.agent.getTask(asked.id)).status.message?.parts).toEqual([{ kind: 'text', text: 'report for 2001' }]);
      await expect(b.agent.send(message('again', { taskId: asked.id }))).rejects.toMatchObject({ code: 'UNSUPPORTED_OPERATION' });
    });

    it('catches up on the next notice when one is lost', async () => {
      const [a, b] = [await cluster.replica('a'), await cluster.replica('b')];
      const task = await a.agent.send(message('steps s3 2'), { returnImmediately: true });
      const followed = collect(await b.agent.subscribe(task.id));
      const publish = a.bus.publish.bind(a.bus);
      let lost = 0;
      a.bus.publish = (subject, notice) => (lost++ === 0 ? undefined : publish(subject, notice));
      cluster.steps.go('s3#1');
      await eventually(async () => expect((await cluster.store().events(task.id, 0)).last).toBe(1));
      expect(followed.events.map(shown)).toEqual(['task:submitted@0']);
      cluster.steps.go('s3#2');
      expect((await followed.done).map(shown)).toEqual(['task:submitted@0', 'status:working@1', 'status:working@2', 'artifact@3', 'status:completed@4']);
      expect(lost).toBeGreaterThan(1);
    });

    it('catches up from the store, now and then, when every notice is lost', async () => {
      const a = await cluster.replica('a');
      const b = await cluster.replica('b', { checkMs: 50 });
      a.bus.publish = () => undefined;
      const task = await a.agent.send(message('steps s4 2'), { returnImmediately: true });
      const followed = collect(await b.agent.subscribe(task.id));
      cluster.steps.go('s4#1');
      cluster.steps.go('s4#2');
      expect((await followed.done).map(shown)).toEqual(['task:submitted@0', 'status:working@1', 'status:working@2', 'artifact@3', 'status:completed@4']);
    });
  });
}
