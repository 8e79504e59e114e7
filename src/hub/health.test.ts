import { describe, expect, it } from 'vitest';
import { HealthBoard } from './health.js';
import { HubEvents, type AgentHealth, type HubEvent } from './hub-events.js';

/** A board whose clock moves only when told, and the health events it published. */
function board(): { health: HealthBoard; at: (ms: number) => void; published: AgentHealth[]; changes: [string, boolean][] } {
  const events = new HubEvents();
  const published: AgentHealth[] = [];
  events.listen((event: HubEvent) => {
    if (event.type === 'agent.health') published.push(event.health);
  });
  let now = 1_000;
  const health = new HealthBoard(events, () => new Date(now));
  const changes: [string, boolean][] = [];
  health.onChange = (agentId, live) => changes.push([agentId, live]);
  return { health, at: (ms) => (now = ms), published, changes };
}

const up = (changedAt: number, activeTasks = 0): { health: AgentHealth; changedAt: number } => ({ health: { up: true, activeTasks, failures: 0, lastSeen: new Date(changedAt).toISOString() }, changedAt });
const down = (changedAt: number, reason: string): { health: AgentHealth; changedAt: number } => ({ health: { up: false, activeTasks: 0, failures: 1, reason }, changedAt });

describe('HealthBoard across a cluster', () => {
  it('takes the latest word on whether an agent is up, from any instance', () => {
    const { health, at } = board();
    health.report('b', 'x', up(2_000));
    expect(health.of('x')).toMatchObject({ up: true });
    at(3_000);
    health.failed('x', 'its connection to the hub closed');
    expect(health.of('x')).toMatchObject({ up: false, reason: 'its connection to the hub closed' });
    health.report('c', 'x', up(4_000));
    expect(health.of('x')).toMatchObject({ up: true });
    expect(health.of('x').reason).toBeUndefined();
  });

  it('adds up the load of every instance', () => {
    const { health } = board();
    health.report('b', 'x', up(2_000, 2));
    health.report('c', 'x', up(1_500, 3));
    health.busy('x', 1);
    expect(health.of('x')).toMatchObject({ up: true, activeTasks: 6 });
    health.forgetInstance('c');
    expect(health.of('x').activeTasks).toBe(3);
  });

  it('does not take a failure short of the limit, nor a load alone, for word that the agent is down', () => {
    const { health, at } = board();
    health.report('b', 'x', up(2_000));
    at(3_000);
    health.busy('x', 1);
    health.failed('x', 'it did not answer a relayed request (HTTP 502)', 3);
    expect(health.of('x')).toMatchObject({ up: true, activeTasks: 1 });
    health.failed('x', 'it did not answer a relayed request (HTTP 502)', 3);
    health.failed('x', 'it did not answer a relayed request (HTTP 502)', 3);
    expect(health.of('x')).toMatchObject({ up: false });
  });

  it('publishes a view sent again only when it is news, and tells the cluster of its own changes', () => {
    const { health, published, changes } = board();
    health.report('b', 'x', down(2_000, 'gone'));
    health.report('b', 'x', down(2_000, 'gone'));
    expect(published).toHaveLength(1);
    health.report('b', 'x', up(2_500));
    expect(published).toHaveLength(2);
    expect(changes).toEqual([]);
    health.up('y', 12);
    expect(changes).toEqual([['y', true]]);
    expect(health.own('y')).toMatchObject({ health: { up: true, latencyMs: 12 }, changedAt: 1_000 });
    expect(health.own('x')).toBeUndefined();
  });

  it('forgets an agent removed, in every instance’s view', () => {
    const { health } = board();
    health.report('b', 'x', up(2_000, 1));
    health.up('x');
    health.forget('x');
    expect(health.of('x')).toMatchObject({ up: false, activeTasks: 0, reason: 'not seen since the hub started' });
  });
});
