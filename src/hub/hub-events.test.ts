import { describe, expect, it } from 'vitest';
import { HubEvents, type TaskSeen } from './hub-events.js';

const task = (principal: string): TaskSeen => ({ agentId: 'a', principal, taskId: 't', state: 'working', updatedAt: '2026-11-23T00:00:00.000Z' });

/** What a watcher's stream holds so far, as `event` names. */
async function names(stream: AsyncIterable<string>): Promise<string[]> {
  const next = await stream[Symbol.asyncIterator]().next();
  return [...String(next.value).matchAll(/^event: (\S+)$/gm)].map((m) => m[1] as string);
}

describe('the hub live feed', () => {
  it('starts a new watcher with the snapshot, then what is published', async () => {
    const events = new HubEvents();
    const stream = events.watch('p', () => ({ agents: [] }));
    events.publish({ type: 'agent.removed', agentId: 'a' });
    expect(await names(stream)).toEqual(['snapshot', 'agent.removed']);
    events.close();
  });

  it('replays what a returning watcher missed, and only tasks of its own principal', async () => {
    const events = new HubEvents();
    events.publish({ type: 'agent.removed', agentId: 'x' });
    events.publish({ type: 'task', task: task('bob'), event: {} });
    events.publish({ type: 'task', task: task('alice'), event: {} });
    events.publish({ type: 'agent.removed', agentId: 'y' });
    expect(await names(events.watch('alice', () => ({}), '1'))).toEqual(['task', 'agent.removed']);
    events.close();
  });

  it('sends a snapshot instead when the watcher has been away longer than the feed remembers', async () => {
    const events = new HubEvents();
    for (let i = 0; i < 1005; i += 1) events.publish({ type: 'agent.removed', agentId: 'x' });
    expect((await names(events.watch('p', () => ({}), '2')))[0]).toBe('snapshot');
    expect((await names(events.watch('p', () => ({}), 'not a number')))[0]).toBe('snapshot');
    events.close();
  });
});
