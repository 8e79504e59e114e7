import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTask } from '../../test/contracts/task-store.js';
import { tempHome } from '../../test/fixtures/home.js';
import { jiajiaCard } from '../card/examples.js';
import { LiteError } from '../errors.js';
import type { RetentionRules } from '../model/retention.js';
import type { TaskEvent, TaskMessage } from '../model/task.js';
import { openSqliteTaskStore } from '../store/sqlite/task-store.js';
import { MemoryTaskStore, type TaskStore } from '../store/task-store.js';
import { createAgent, type AgentOptions } from './agent.js';
import { intervalFor } from './retention.js';

const T0 = Date.parse('2026-11-21T08:00:00.000Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** A clock the test moves by hand. */
function clock() {
  let now = T0;
  return { now: () => new Date(now), at: (ms: number) => void (now = T0 + ms) };
}

let counter = 0;
const say = (text: string, extra: Partial<TaskMessage> = {}): TaskMessage => ({ messageId: `m-${(counter += 1)}`, role: 'user', parts: [{ kind: 'text', text }], ...extra });

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: LiteError) => error.code,
  );

/** A handler that completes, asks, asks for auth, or keeps working until stopped, as its text says. */
const onTask: AgentOptions['onTask'] = async (task, ctx) => {
  if (task.text === 'ask') return `answer: ${(await ctx.ask('Which week?')).parts.map((p) => (p.kind === 'text' ? p.text : '')).join('')}`;
  if (task.text === 'ask twice') {
    await ctx.ask('Which week?');
    await ctx.ask('Which day?');
    return 'done';
  }
  if (task.text === 'auth') await ctx.status('auth-required', { message: 'log in first' });
  if (task.text === 'auth' || task.text === 'work') await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
  return 'done';
};

function agentOn(rules: RetentionRules, store: TaskStore = new MemoryTaskStore(), options: Partial<AgentOptions> = {}) {
  const time = clock();
  const errors: string[] = [];
  const agent = createAgent({ card: jiajiaCard(), store, onTask, now: time.now, retention: rules, onError: (_error, what) => errors.push(what), ...options });
  return { agent, time, errors };
}

async function collect(events: AsyncIterable<TaskEvent>): Promise<TaskEvent[]> {
  const out: TaskEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('retention: the TTL of ended tasks', () => {
  it('deletes an ended task once its status is older than the TTL, and nothing else', async () => {
    const { agent, time } = agentOn({ taskTtlMs: HOUR });
    const deleted: string[][] = [];
    agent.retention?.onDelete((ids) => deleted.push([...ids]));
    const first = await agent.send(say('one'));
    time.at(30 * MINUTE);
    const second = await agent.send(say('two'));
    const working = await agent.send(say('work'), { returnImmediately: true });
    const waiting = await agent.send(say('ask'));

    time.at(HOUR);
    expect(await agent.retention?.prune()).toEqual({ ended: 0, deleted: 0 });
    time.at(HOUR + 1);
    expect(await agent.retention?.prune()).toEqual({ ended: 0, deleted: 1 });
    expect(await codeOf(agent.getTask(first.id))).toBe('TASK_NOT_FOUND');
    expect((await agent.getTask(second.id)).status.state).toBe('completed');
    expect(deleted).toEqual([[first.id]]);

    time.at(24 * HOUR);
    expect(await agent.retention?.prune()).toEqual({ ended: 0, deleted: 1 });
    expect((await agent.listTasks()).tasks.map((t) => t.id).sort()).toEqual([working.id, waiting.id].sort());
    await agent.shutdown();
  });

  it('deletes on time a task that ended before a restart, from its stored timestamp', async () => {
    const path = join(tempHome('retention'), 'tasks.db');
    const before = agentOn({ taskTtlMs: HOUR }, await openSqliteTaskStore(path));
    const ended = await before.agent.send(say('one'));
    await before.agent.shutdown();

    const after = agentOn({ taskTtlMs: HOUR }, await openSqliteTaskStore(path));
    after.time.at(50 * MINUTE);
    expect(await after.agent.retention?.prune()).toEqual({ ended: 0, deleted: 0 });
    after.time.at(HOUR + MINUTE);
    expect(await after.agent.retention?.prune()).toEqual({ ended: 0, deleted: 1 });
    expect(await codeOf(after.agent.getTask(ended.id))).toBe('TASK_NOT_FOUND');
    await after.agent.shutdown();
  });

  it('runs a pass when the agent starts, without being asked', async () => {
    const store = new MemoryTaskStore();
    for (let i = 0; i < 5; i += 1) await store.save(makeTask({ id: `old-${i}`, state: 'completed', at: '2026-11-01T00:00:00.000Z' }));
    const { agent } = agentOn({ taskTtlMs: HOUR }, store);
    for (let turns = 0; turns < 1_000 && (await store.countTasks()) > 0; turns += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(await store.countTasks()).toBe(0);
    await agent.shutdown();
  });
});

describe('retention: tasks left waiting for an answer', () => {
  it('fails a task that has waited past the input timeout, saying why; its handler’s ask throws and its signal fires', async () => {
    let caught: unknown;
    let aborted = false;
    const { agent, time } = agentOn({ inputTimeoutMs: HOUR }, new MemoryTaskStore(), {
      onTask: async (_task, ctx) => {
        try {
          return await ctx.ask('Which week?');
        } catch (error) {
          caught = error;
          aborted = ctx.signal.aborted;
          throw error;
        }
      },
    });
    const asked = await agent.send(say('research'));
    expect(asked.status.state).toBe('input-required');
    const following = collect(await agent.subscribe(asked.id));

    time.at(HOUR);
    expect(await agent.retention?.prune()).toEqual({ ended: 0, deleted: 0 });
    time.at(HOUR + 1);
    expect(await agent.retention?.prune()).toEqual({ ended: 1, deleted: 0 });

    const reason = 'Waited 1h for a reply, the longest this agent waits; the task has ended. Send a new message to start again.';
    const task = await agent.getTask(asked.id);
    expect(task.status.state).toBe('failed');
    expect(task.status.message?.parts).toEqual([{ kind: 'text', text: reason }]);
    expect(task.status.timestamp).toBe(new Date(T0 + HOUR + 1).toISOString());
    expect(caught).toBeInstanceOf(LiteError);
    expect(caught).toMatchObject({ code: 'TASK_TERMINAL', message: `task "${asked.id}" ended: ${reason}` });
    expect(aborted).toBe(true);
    const events = await following;
    expect(events.at(-1)).toMatchObject({ kind: 'status', status: { state: 'failed' } });
    expect(await agent.store.get(asked.id)).toEqual(task);
    expect(await codeOf(agent.send(say('the last one', { taskId: asked.id })))).toBe('UNSUPPORTED_OPERATION');
    await agent.shutdown();
  });

  it('counts the wait from the latest question, not the first', async () => {
    const { agent, time } = agentOn({ inputTimeoutMs: HOUR });
    const asked = await agent.send(say('ask twice'));
    time.at(50 * MINUTE);
    expect((await agent.send(say('this week', { taskId: asked.id }))).status.state).toBe('input-required');
    time.at(HOUR + 20 * MINUTE);
    expect(await agent.retention?.prune()).toEqual({ ended: 0, deleted: 0 });
    time.at(HOUR + 51 * MINUTE);
    expect(await agent.retention?.prune()).toEqual({ ended: 1, deleted: 0 });
    await agent.shutdown();
  });

  it('fails a task waiting for auth the same way, saying what it waited for', async () => {
    const { agent, time } = agentOn({ inputTimeoutMs: 15 * MINUTE });
    const auth = await agent.send(say('auth'));
    expect(auth.status.state).toBe('auth-required');
    time.at(16 * MINUTE);
    expect(await agent.retention?.prune()).toEqual({ ended: 1, deleted: 0 });
    const task = await agent.getTask(auth.id);
    expect(task.status.message?.parts).toEqual([{ kind: 'text', text: 'Waited 15m for authorization, the longest this agent waits; the task has ended. Send a new message to start again.' }]);
    await agent.shutdown();
  });

  it('fails a task an earlier process left waiting, and tells the observers', async () => {
    const store = new MemoryTaskStore();
    await store.save(makeTask({ id: 'left', state: 'input-required', at: new Date(T0).toISOString() }));
    const { agent, time } = agentOn({ inputTimeoutMs: HOUR }, store);
    const told: string[] = [];
    agent.observe((event, task) => void (event.kind === 'status' && told.push(`${task.id}:${event.status.state}`)));
    time.at(2 * HOUR);
    expect(await agent.retention?.prune()).toEqual({ ended: 1, deleted: 0 });
    expect((await agent.getTask('left')).status.state).toBe('failed');
    expect(told).toEqual(['left:failed']);
    await agent.shutdown();
  });
});

describe('retention: the cap on stored tasks', () => {
  it('deletes the oldest ended task to make room for a new one', async () => {
    const { agent, time } = agentOn({ maxTasks: 3 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      time.at(i * MINUTE);
      ids.push((await agent.send(say(`task ${i}`))).id);
    }
    expect((await agent.listTasks()).tasks.map((t) => t.id)).toEqual(ids.slice(2).reverse());
    await agent.shutdown();
  });

  it('refuses a new task with STORE_FULL when none of the tasks kept has ended, and still takes replies', async () => {
    const { agent } = agentOn({ maxTasks: 2 });
    const first = await agent.send(say('ask'));
    await agent.send(say('ask'));
    const refused = agent.send(say('one more'));
    await expect(refused).rejects.toMatchObject({ code: 'STORE_FULL', message: 'this agent keeps at most 2 tasks, and none of them has ended; try again once one has' });
    expect((await agent.listTasks()).totalSize).toBe(2);
    // A reply is no new task; once it ends the task, there is room again.
    expect((await agent.send(say('this week', { taskId: first.id }))).status.state).toBe('completed');
    expect((await agent.send(say('one more'))).status.state).toBe('completed');
    expect((await agent.listTasks()).totalSize).toBe(2);
    await agent.shutdown();
  });

  it('gives back the place of a task that beforeStart refused', async () => {
    const { agent } = agentOn({ maxTasks: 1 });
    const refusal = new LiteError('INVALID_PARAMS', 'no such webhook');
    await expect(agent.send(say('one'), { beforeStart: () => Promise.reject(refusal) })).rejects.toBe(refusal);
    expect((await agent.send(say('ask'))).status.state).toBe('input-required');
    await expect(agent.send(say('two'))).rejects.toMatchObject({ code: 'STORE_FULL' });
    await agent.shutdown();
  });

  it('makes room for tasks started together, each deleting one ended task', async () => {
    const store = new MemoryTaskStore();
    for (let i = 0; i < 5; i += 1) await store.save(makeTask({ id: `old-${i}`, state: 'completed', at: `2026-11-20T0${i}:00:00.000Z` }));
    const { agent } = agentOn({ maxTasks: 5 }, store);
    const sent = await Promise.all([1, 2, 3].map((i) => agent.send(say(`new ${i}`))));
    expect(sent.map((t) => t.status.state)).toEqual(['completed', 'completed', 'completed']);
    expect((await agent.listTasks()).tasks.map((t) => t.id).filter((id) => id.startsWith('old-'))).toEqual(['old-4', 'old-3']);
    await agent.shutdown();
  });

  it('brings a store over the cap (the cap was lowered) down to it on the next pass, oldest ended first', async () => {
    const store = new MemoryTaskStore();
    for (let i = 0; i < 8; i += 1) await store.save(makeTask({ id: `t${i}`, state: i < 2 ? 'working' : 'failed', at: `2026-11-20T0${i}:00:00.000Z` }));
    const { agent } = agentOn({ maxTasks: 4 }, store);
    await agent.retention?.prune();
    expect((await agent.listTasks()).tasks.map((t) => t.id)).toEqual(['t7', 't6', 't1', 't0']);
    await agent.shutdown();
  });
});

describe('retention: rules and failures', () => {
  it.each([
    [{ taskTtlMs: 0 }, 'retention.taskTtlMs is a whole number of milliseconds from 1 to 315360000000, not 0'],
    [{ inputTimeoutMs: 1.5 }, 'retention.inputTimeoutMs is a whole number of milliseconds from 1 to 315360000000, not 1.5'],
    [{ maxTasks: -3 }, 'retention.maxTasks is a whole number from 1 to 1000000000, not -3'],
  ])('refuses %j, naming the rule', (rules, message) => {
    expect(() => createAgent({ card: jiajiaCard(), onTask, retention: rules })).toThrow(expect.objectContaining({ code: 'USAGE', message }));
  });

  it('refuses a store that cannot delete tasks', () => {
    const store: TaskStore = { save: async () => {}, get: async () => undefined, list: async () => ({ tasks: [], nextPageToken: '', totalSize: 0 }), recoverInterrupted: async () => [], close: async () => {}, events: async () => ({ events: [], last: 0 }), findIdempotent: async () => undefined, saveIdempotentAnswer: async () => {} };
    expect(() => createAgent({ card: jiajiaCard(), onTask, store, retention: { maxTasks: 1 } })).toThrow(expect.objectContaining({ code: 'USAGE' }));
  });

  it('tells onError what failed, and never rejects', async () => {
    const store = await openSqliteTaskStore(join(tempHome('retention'), 'tasks.db'));
    await store.close();
    const { agent, errors } = agentOn({ taskTtlMs: HOUR, inputTimeoutMs: HOUR, maxTasks: 10 }, store);
    expect(await agent.retention?.prune()).toEqual({ ended: 0, deleted: 0 });
    await agent.retention?.close();
    expect(new Set(errors)).toEqual(new Set(['ending tasks that waited too long for an answer', 'deleting ended tasks past their TTL', 'deleting the oldest ended tasks over the cap']));
  });

  it.each([
    [{}, 60_000],
    [{ maxTasks: 5 }, 60_000],
    [{ taskTtlMs: 7 * 24 * HOUR, inputTimeoutMs: HOUR }, 60_000],
    [{ inputTimeoutMs: 5 * MINUTE }, 30_000],
    [{ inputTimeoutMs: 1_000 }, 1_000],
  ])('passes %j every %d ms', (rules, ms) => {
    expect(intervalFor(rules)).toBe(ms);
  });
});
