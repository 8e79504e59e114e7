import { describe, expect, it } from 'vitest';
import { HubEvents, type HubEvent } from './hub-events.js';
import { TaskWatch, UNREAD_BYTES } from './task-watch.js';

const answer = (id: string, state = 'TASK_STATE_COMPLETED'): { status: number; headers: Record<string, string>; body: string } => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, result: { task: { id, contextId: 'c', status: { state } } } }),
});

describe('the task watch', () => {
  it('keeps answers unread while nobody follows, and lists the tasks of the newest when asked', () => {
    const events = new HubEvents();
    const published: HubEvent[] = [];
    events.listen((event) => published.push(event));
    const watch = new TaskWatch(events);
    for (let i = 0; i < 1500; i += 1) watch.tap('a', i % 2 === 0 ? 'alice' : 'bob', answer(`t${i}`));
    // Nothing was read yet: the in-process listener did not ask for tasks.
    expect(published).toEqual([]);
    const alices = watch.list('alice');
    // The newest 500 tasks, read in order from the last 1000 answers kept: half of them Alice's, newest first.
    expect(alices).toHaveLength(250);
    expect(alices[0]).toMatchObject({ taskId: 't1498', state: 'completed', progress: 100 });
    expect(alices.at(-1)?.taskId).toBe('t1000');
    expect(watch.list('bob').map((task) => task.taskId).slice(0, 2)).toEqual(['t1499', 't1497']);
    // Reading them published them, as they would have been live.
    expect(published).toHaveLength(1000);
    events.close();
  });

  it('reads each answer as it passes while someone follows the tasks', () => {
    const events = new HubEvents();
    const published: HubEvent[] = [];
    events.listen((event) => published.push(event), { tasks: true });
    const watch = new TaskWatch(events);
    watch.tap('a', 'alice', answer('t1', 'TASK_STATE_WORKING'));
    expect(published).toMatchObject([{ type: 'task', task: { taskId: 't1', state: 'working', principal: 'alice' } }]);
    events.close();
  });

  it('keeps no more than its byte budget of large answers unread, and loses none of their tasks', () => {
    const events = new HubEvents();
    const watch = new TaskWatch(events);
    // 200 answers of half a MiB each: 100 MiB if each were kept whole.
    const padding = 'x'.repeat(512 * 1024);
    const big = (id: string): ReturnType<typeof answer> => ({ ...answer(id), body: JSON.stringify({ jsonrpc: '2.0', id: 1, result: { task: { id, contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' }, metadata: { padding } } } }) });
    let most = 0;
    for (let i = 0; i < 200; i += 1) {
      watch.tap('a', 'alice', big(`t${i}`));
      most = Math.max(most, watch.keptText);
    }
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(UNREAD_BYTES);
    const listed = watch.list('alice');
    expect(listed).toHaveLength(200);
    expect(listed[0]?.taskId).toBe('t199');
    expect(watch.keptText).toBe(0);
    events.close();
  });
});
