// Replicas of one agent in one process, on one MemoryTaskStore and the in-process bus: every
// promise of "any replica answers for any task" (replica-scenarios.ts, replica-duties.ts).
import { describe, expect, it } from 'vitest';
import { MemoryNetwork, type MemoryBus } from '../../src/cluster/memory-bus.js';
import { eventually } from '../fixtures/webhook.js';
import { clusterFixture, collect, message, shown } from './replica-fixture.js';
import { replicaDuties } from './replica-duties.js';
import { replicaScenarios } from './replica-scenarios.js';

const network = new MemoryNetwork();
replicaScenarios('the in-process bus', async (prefix) => network.connect(prefix));
replicaDuties('the in-process bus', async (prefix) => network.connect(prefix));

describe('replicas on the in-process bus, when the bus comes back from a loss', () => {
  const cluster = clusterFixture(async (prefix) => network.connect(prefix));

  it('reads the store at once for every follower: what was published meanwhile is not waited for', async () => {
    const [a, b] = [await cluster.replica('a'), await cluster.replica('b')];
    a.bus.publish = () => undefined;
    const task = await a.agent.send(message('steps s5 1'), { returnImmediately: true });
    const followed = collect(await b.agent.subscribe(task.id));
    cluster.steps.go('s5#1');
    await eventually(async () => expect((await cluster.store().events(task.id, 0)).last).toBe(3));
    expect(followed.events.map(shown)).toEqual(['task:submitted@0']);
    (b.bus as MemoryBus).simulateReconnect();
    expect((await followed.done).map(shown)).toEqual(['task:submitted@0', 'status:working@1', 'artifact@2', 'status:completed@3']);
  });
});
