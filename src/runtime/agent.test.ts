import { describe, expect, it } from 'vitest';
import { jiajiaCard } from '../card/examples.js';
import { LiteError } from '../errors.js';
import { MemoryTaskStore } from '../store/task-store.js';
import { createAgent, type AgentOptions } from './agent.js';
import { FINAL_WORDS_LIMIT } from './task-context.js';
import { textOf, type TaskEvent, type TaskMessage } from '../model/task.js';

let counter = 0;
const userMessage = (text: string, extra: Partial<TaskMessage> = {}): TaskMessage => ({
  messageId: `m-${(counter += 1)}`,
  role: 'user',
  parts: [{ kind: 'text', text }],
  ...extra,
});

const agentWith = (onTask: AgentOptions['onTask'], card = jiajiaCard()) => createAgent({ card, onTask });

async function collect(events: AsyncIterable<TaskEvent>): Promise<TaskEvent[]> {
  const out: TaskEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

const describeEvents = (events: TaskEvent[]) =>
  events.map((e) => (e.kind === 'status' ? `status:${e.status.state}` : e.kind === 'task' ? `task:${e.task.status.state}` : e.kind));

const codeOf = async (run: () => Promise<unknown>): Promise<string | undefined> => {
  try {
    await run();
    return undefined;
  } catch (error) {
    return (error as LiteError).code;
  }
};

describe('the agent runtime', () => {
  it('runs a task to completion, keeps the result as an artifact and says it on the final status', async () => {
    const agent = agentWith(async (task, ctx) => {
      await ctx.status('working', { message: '正在收集资料', progress: 50 });
      await ctx.complete({ text: `report on ${task.text}` });
    });
    const task = await agent.send(userMessage('AI agents'));
    expect(task.status.state).toBe('completed');
    expect(task.artifacts[0]?.parts).toEqual([{ kind: 'text', text: 'report on AI agents' }]);
    expect(task.status.message?.parts).toEqual([{ kind: 'text', text: 'report on AI agents' }]);
    expect(task.history.map((m) => m.role)).toEqual(['user', 'agent', 'agent']);
    expect(task.history[1]?.metadata).toEqual({ a2aLite: { progress: 50 } });
    expect(await agent.store.get(task.id)).toEqual(task);
  });

  it.each([
    ['a short text, said on the final status too', { text: 'x'.repeat(FINAL_WORDS_LIMIT) }, 'x'.repeat(FINAL_WORDS_LIMIT)],
    ['a longer text, left to the artifact', { text: 'x'.repeat(FINAL_WORDS_LIMIT + 1) }, undefined],
    ['a short text with its own words', { text: 'the report', message: 'Report done.' }, 'Report done.'],
    ['a short text and no words, asked for', { text: 'the report', message: '' }, undefined],
    ['only data', { data: { rows: 3 } }, undefined],
    ['nothing at all', {}, undefined],
  ])('ends with %s', async (_what, result, words) => {
    const task = await agentWith(async (_task, ctx) => ctx.complete(result)).send(userMessage('x'));
    expect(task.status.state).toBe('completed');
    expect(task.status.message === undefined ? undefined : textOf(task.status.message)).toEqual(words);
  });

  it('says a returned string on the final status, as ctx.complete({ text }) does', async () => {
    const task = await agentWith(() => 'pong').send(userMessage('ping'));
    expect(task.artifacts[0]?.parts).toEqual([{ kind: 'text', text: 'pong' }]);
    expect(task.status.message?.parts).toEqual([{ kind: 'text', text: 'pong' }]);
  });

  it('streams the task, then each update as it happens, then ends', async () => {
    const agent = agentWith(async (_task, ctx) => {
      await ctx.status('accepted');
      await ctx.status('working');
      await ctx.complete({ text: 'done' });
    });
    const events = await collect(await agent.stream(userMessage('go')));
    expect(describeEvents(events)).toEqual(['task:submitted', 'status:accepted', 'status:working', 'artifact', 'status:completed']);
  });

  it('asks for input, returns, and resumes on the reply in the same task', async () => {
    const agent = agentWith(async (task, ctx) => {
      const answer = await ctx.ask('时间范围？');
      return `${task.text} over ${answer.parts[0]?.kind === 'text' ? answer.parts[0].text : ''}`;
    });
    const asked = await agent.send(userMessage('research'));
    expect(asked.status.state).toBe('input-required');
    expect(asked.status.message?.parts).toEqual([{ kind: 'text', text: '时间范围？' }]);
    const done = await agent.send(userMessage('last week', { taskId: asked.id, contextId: asked.contextId }));
    expect(done.id).toBe(asked.id);
    expect(done.status.state).toBe('completed');
    expect(done.artifacts[0]?.parts[0]).toEqual({ kind: 'text', text: 'research over last week' });
  });

  it('asks for credentials (auth-required) and takes the requester’s reply as the answer', async () => {
    const agent = agentWith(async (_task, ctx) => {
      const login = await ctx.ask('Sign in to the calendar first.', { state: 'auth-required' });
      return `signed in as ${login.parts[0]?.kind === 'text' ? login.parts[0].text : ''}`;
    });
    const asked = await agent.send(userMessage('book a room'));
    expect(asked.status.state).toBe('auth-required');
    expect(asked.status.message?.parts).toEqual([{ kind: 'text', text: 'Sign in to the calendar first.' }]);
    const done = await agent.send(userMessage('rui@example.org', { taskId: asked.id, contextId: asked.contextId }));
    expect(done.status.state).toBe('completed');
    expect(done.artifacts[0]?.parts[0]).toEqual({ kind: 'text', text: 'signed in as rui@example.org' });
  });

  it('cancels a running task: the signal fires, the state is cancelled, cancelling again is harmless', async () => {
    let aborted = false;
    const agent = agentWith(async (_task, ctx) => {
      await ctx.status('working');
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
      aborted = true;
    });
    const started = await agent.send(userMessage('long job'), { returnImmediately: true });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const cancelled = await agent.cancel(started.id);
    expect(cancelled.status.state).toBe('cancelled');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(aborted).toBe(true);
    expect((await agent.cancel(started.id)).status.state).toBe('cancelled');
    expect((await agent.getTask(started.id)).status.state).toBe('cancelled');
  });

  it('refuses to cancel a task that already ended', async () => {
    const agent = agentWith(() => 'done');
    const task = await agent.send(userMessage('quick'));
    expect(await codeOf(() => agent.cancel(task.id))).toBe('TASK_TERMINAL');
  });

  it('rejects a task beyond card.limits.maxConcurrentTasks, with a reason', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const agent = agentWith(
      async () => {
        await gate;
        return 'ok';
      },
      jiajiaCard({ limits: { maxConcurrentTasks: 1 } }),
    );
    const first = await agent.send(userMessage('one'), { returnImmediately: true });
    const second = await agent.send(userMessage('two'));
    expect(second.status.state).toBe('rejected');
    expect(second.status.message?.parts[0]).toEqual({ kind: 'text', text: 'Busy: this agent works on at most 1 task at once. Try again later.' });
    release();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await agent.getTask(first.id)).status.state).toBe('completed');
    expect((await agent.send(userMessage('three'))).status.state).toBe('completed');
  });

  it.each([
    ['throws', () => Promise.reject(new Error('no access to source X')), 'failed', 'no access to source X'],
    ['returns a string', () => 'plain answer', 'completed', undefined],
    ['returns nothing', () => undefined, 'failed', 'the agent stopped without a result'],
  ])('ends the task when the handler %s', async (_what, onTask, state, reason) => {
    const task = await agentWith(onTask).send(userMessage('x'));
    expect(task.status.state).toBe(state);
    if (reason !== undefined) expect(task.status.message?.parts[0]).toEqual({ kind: 'text', text: reason });
  });

  it('fails a task whose handler breaks the state machine', async () => {
    const task = await agentWith(async (_t, ctx) => {
      await ctx.status('working');
      await ctx.status('accepted');
    }).send(userMessage('x'));
    expect(task.status.state).toBe('failed');
    expect(task.status.message?.parts[0]).toEqual({ kind: 'text', text: `task "${task.id}" cannot go from working to accepted` });
  });

  it('subscribes to a running task and refuses ended or unknown ones', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const agent = agentWith(async (_t, ctx) => {
      await ctx.status('working');
      await gate;
      await ctx.complete({ text: 'late' });
    });
    const task = await agent.send(userMessage('x'), { returnImmediately: true });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const events = await agent.subscribe(task.id);
    release();
    expect(describeEvents(await collect(events))).toEqual(['task:working', 'artifact', 'status:completed']);
    expect(await codeOf(() => agent.subscribe(task.id))).toBe('UNSUPPORTED_OPERATION');
    expect(await codeOf(() => agent.subscribe('nope'))).toBe('TASK_NOT_FOUND');
  });

  it.each([
    ['an ended task', 'UNSUPPORTED_OPERATION'],
    ['an unknown task', 'TASK_NOT_FOUND'],
  ])('refuses a follow-up message to %s', async (what, code) => {
    const agent = agentWith(() => 'done');
    const task = await agent.send(userMessage('x'));
    const taskId = what === 'an ended task' ? task.id : 'nope';
    expect(await codeOf(() => agent.send(userMessage('more', { taskId })))).toBe(code);
  });

  it('refuses a follow-up to a task that is not waiting for input', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const agent = agentWith(async () => {
      await gate;
      return 'ok';
    });
    const task = await agent.send(userMessage('x'), { returnImmediately: true });
    expect(await codeOf(() => agent.send(userMessage('more', { taskId: task.id })))).toBe('UNSUPPORTED_OPERATION');
    release();
  });

  it('keeps a subscription to a task waiting for input open until the task ends (§3.1.6)', async () => {
    const agent = agentWith(async (_task, ctx) => {
      const answer = await ctx.ask('which city?');
      return `report on ${answer.parts[0]?.kind === 'text' ? answer.parts[0].text : '?'}`;
    });
    const task = await agent.send(userMessage('a report'));
    expect(task.status.state).toBe('input-required');
    const events = collect(await agent.subscribe(task.id));
    await agent.send(userMessage('Lisbon', { taskId: task.id }));
    expect(describeEvents(await events)).toEqual(['task:input-required', 'status:working', 'artifact', 'status:completed']);
  });

  it('sends artifacts while working, one of them in chunks, and says the final words on the status', async () => {
    const agent = agentWith(async (_task, ctx) => {
      await ctx.status('working');
      await ctx.artifact({ text: 'first findings', name: 'notes' });
      const id = await ctx.artifact({ text: 'chunk one, ', name: 'draft', lastChunk: false });
      await ctx.artifact({ id, text: 'chunk two', append: true, lastChunk: true });
      await ctx.complete({ text: 'the report', message: 'All done: three findings.' });
    });
    const events = await collect(await agent.stream(userMessage('x')));
    const artifacts = events.flatMap((e) => (e.kind === 'artifact' ? [[e.artifact.name ?? '', e.append, e.lastChunk, e.artifact.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('')]] : []));
    expect(artifacts).toEqual([
      ['notes', false, true, 'first findings'],
      ['draft', false, false, 'chunk one, '],
      ['', true, true, 'chunk two'],
      ['result', false, true, 'the report'],
    ]);
    const done = events.at(-1);
    expect(done?.kind === 'status' && done.status.message?.parts).toEqual([{ kind: 'text', text: 'All done: three findings.' }]);
    const task = await agent.getTask(events[0]?.kind === 'task' ? events[0].task.id : '');
    expect(task.artifacts.map((a) => [a.name, a.parts.length])).toEqual([['notes', 1], ['draft', 2], ['result', 1]]);
    // A chunk that names no artifact is the handler's mistake: the task fails with the reason.
    const broken = await agentWith(async (_t, ctx) => void (await ctx.artifact({ text: 'x', append: true }))).send(userMessage('y'));
    expect(broken.status.state).toBe('failed');
  });

  it('gives each of several subscribers every event in the same order', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const agent = agentWith(async (_t, ctx) => {
      await ctx.status('working');
      await gate;
      for (let i = 1; i <= 5; i += 1) await ctx.status('working', { progress: i * 10 });
      return 'done';
    });
    const task = await agent.send(userMessage('x'), { returnImmediately: true });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const streams = await Promise.all([agent.subscribe(task.id), agent.subscribe(task.id), agent.subscribe(task.id)]);
    release();
    const seen = await Promise.all(streams.map(collect));
    expect(seen[0]).toHaveLength(8);
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[2]).toEqual(seen[0]);
  });
});

describe('shutdown', () => {
  it('fails running tasks with the reason, fires their signals and keeps ended ones', async () => {
    let aborted = false;
    const agent = agentWith(async (task, ctx) => {
      if (task.text === 'quick') return 'done';
      await ctx.status('working');
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
      aborted = true;
    });
    const quick = await agent.send(userMessage('quick'));
    const slow = await agent.send(userMessage('slow'), { returnImmediately: true });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const store = agent.store;
    const saved = new Map<string, unknown>();
    const originalSave = store.save.bind(store);
    store.save = async (task) => {
      saved.set(task.id, task.status.state);
      return originalSave(task);
    };
    await agent.shutdown('the server is shutting down');
    expect(aborted).toBe(true);
    expect(saved.get(slow.id)).toBe('failed');
    expect(saved.has(quick.id)).toBe(false);
  });
});

describe('observers and beforeStart', () => {
  it('tell observers of every event of every task, with the task as it then is', async () => {
    const agent = agentWith(async (task, ctx) => {
      await ctx.status('working');
      return `done: ${task.text}`;
    });
    const seen: string[] = [];
    const stop = agent.observe((event, task) => {
      const what = event.kind === 'status' ? `status:${event.status.state}` : event.kind === 'task' ? `task:${event.task.status.state}` : event.kind;
      seen.push(`${task.history[0]?.parts[0]?.kind === 'text' ? (task.history[0].parts[0] as { text: string }).text : '?'} ${what} ${task.status.state} ${task.artifacts.length}`);
    });
    await agent.send(userMessage('a'));
    await agent.send(userMessage('b'));
    stop();
    await agent.send(userMessage('c'));
    expect(seen).toEqual([
      'a task:submitted submitted 0',
      'a status:working working 0',
      'a artifact working 1',
      'a status:completed completed 1',
      'b task:submitted submitted 0',
      'b status:working working 0',
      'b artifact working 1',
      'b status:completed completed 1',
    ]);
  });

  it('wait for the work an observer returns before the store closes, and survive one that throws', async () => {
    const agent = agentWith(() => 'ok');
    let written = 0;
    agent.observe(() => {
      throw new Error('a broken observer');
    });
    agent.observe(() => new Promise<void>((resolve) => setTimeout(() => resolve(void (written += 1)), 20)));
    const task = await agent.send(userMessage('x'));
    expect(task.status.state).toBe('completed');
    await agent.close();
    // The task, its artifact and its completion.
    expect(written).toBe(3);
  });

  it('tell observers of a cancel of a task no process runs any more', async () => {
    const agent = agentWith(() => 'never');
    await agent.store.save({ id: 'old', contextId: 'c', status: { state: 'working', timestamp: '2026-01-01T00:00:00.000Z' }, history: [], artifacts: [] });
    const states: string[] = [];
    agent.observe((event) => void (event.kind === 'status' && states.push(event.status.state)));
    await agent.cancel('old');
    expect(states).toEqual(['cancelled']);
  });

  it('run beforeStart before the first event, and refuse the message when it throws', async () => {
    const agent = agentWith(() => 'ok');
    const order: string[] = [];
    agent.observe((event) => void order.push(event.kind));
    await agent.send(userMessage('x'), { beforeStart: async (task) => void order.push(`before:${task.status.state}`) });
    expect(order[0]).toBe('before:submitted');
    const refused = agent.send(userMessage('y'), {
      beforeStart: async () => {
        throw new LiteError('WEBHOOK_REFUSED', 'no');
      },
    });
    await expect(refused).rejects.toMatchObject({ code: 'WEBHOOK_REFUSED' });
    expect((await agent.listTasks()).tasks).toHaveLength(1);
  });

  it('run beforeStart for a reply too, on the task it continues', async () => {
    const agent = agentWith(async (_task, ctx) => {
      const answer = await ctx.ask('which?');
      return `got ${answer.parts[0]?.kind}`;
    });
    const asked = await agent.send(userMessage('start'));
    let seenBy = '';
    const done = await agent.send(userMessage('this one', { taskId: asked.id }), { beforeStart: async (task) => void (seenBy = `${task.id}:${task.status.state}`) });
    expect(seenBy).toBe(`${asked.id}:input-required`);
    expect(done.status.state).toBe('completed');
  });
});

describe('saving before telling', () => {
  /** A memory store that records each state it saved, and can hold saves back until released. */
  function recordingStore() {
    const store = new MemoryTaskStore();
    const save = store.save.bind(store);
    const saved: string[] = [];
    let gate: Promise<void> = Promise.resolve();
    store.save = async (task) => {
      const state = task.status.state;
      await gate;
      await save(task);
      saved.push(state);
    };
    const hold = (): (() => void) => {
      let release = (): void => {};
      gate = new Promise((resolve) => (release = resolve));
      return release;
    };
    return { store, saved, hold };
  }

  it('streams each state only after the store has it', async () => {
    const { store, saved } = recordingStore();
    const agent = createAgent({
      card: jiajiaCard(),
      store,
      async onTask(_task, ctx) {
        await ctx.status('working', { progress: 10 });
        await ctx.status('working', { progress: 90 });
        return 'done';
      },
    });
    const seen: string[][] = [];
    for await (const event of await agent.stream(userMessage('go'))) {
      const state = event.kind === 'status' ? event.status.state : event.kind === 'task' ? event.task.status.state : undefined;
      if (state !== undefined) seen.push([state, saved.at(-1) ?? 'nothing']);
    }
    expect(seen).toEqual([
      ['submitted', 'submitted'],
      ['working', 'working'],
      ['working', 'working'],
      ['completed', 'completed'],
    ]);
  });

  it('answers a blocking send only once the final state is saved, and writes a quick task once', async () => {
    const { store, saved, hold } = recordingStore();
    const release = hold();
    const agent = createAgent({ card: jiajiaCard(), store, onTask: (task) => `echo ${task.text}` });
    let answered = false;
    const sent = agent.send(userMessage('hi')).then((task) => ((answered = true), task));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(answered).toBe(false);
    release();
    const task = await sent;
    expect(task.status.state).toBe('completed');
    // Submitted and completed in one turn: one write, of the ended task.
    expect(saved).toEqual(['completed']);
    expect(await store.get(task.id)).toEqual(task);
  });

  it('tells a blocking requester when the final state could not be saved', async () => {
    const store = new MemoryTaskStore();
    const save = store.save.bind(store);
    store.save = async (task) => {
      if (task.status.state === 'completed') throw new Error('disk full');
      return save(task);
    };
    const agent = createAgent({
      card: jiajiaCard(),
      store,
      onError: () => {},
      async onTask(_task, ctx) {
        await ctx.status('working');
        return 'done';
      },
    });
    const error = await agent.send(userMessage('x')).catch((e: unknown) => e as LiteError);
    expect(error).toBeInstanceOf(LiteError);
    expect((error as LiteError).code).toBe('IO_ERROR');
    expect((error as LiteError).message).toMatch(/is completed, but that could not be saved \(disk full\)/);
  });

  it('makes time-ordered ids: tasks made later sort later', async () => {
    const agent = agentWith(() => 'ok');
    const first = await agent.send(userMessage('a'));
    await new Promise((resolve) => setTimeout(resolve, 3));
    const second = await agent.send(userMessage('b'));
    expect(first.id < second.id).toBe(true);
    expect(first.contextId < second.contextId).toBe(true);
    expect(second.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('store failures and hostile messages', () => {
  it('keeps running when saves fail, reports them, and saves the newest state once it can', async () => {
    const store = new MemoryTaskStore();
    const save = store.save.bind(store);
    let failures = 0;
    store.save = async (task) => {
      if (task.status.state === 'working' && failures < 2) {
        failures += 1;
        throw new Error('database is locked');
      }
      return save(task);
    };
    const reported: string[] = [];
    const agent = createAgent({
      card: jiajiaCard(),
      store,
      onError: (error, what) => reported.push(`${what}: ${(error as Error).message}`),
      async onTask(_task, ctx) {
        await ctx.status('working');
        return 'done';
      },
    });
    const task = await agent.send(userMessage('x'));
    expect(task.status.state).toBe('completed');
    expect(reported[0]).toBe(`saving task ${task.id}: database is locked`);
    for (let waited = 0; (await store.get(task.id))?.status.state !== 'completed' && waited < 200; waited += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await store.get(task.id))?.status.state).toBe('completed');
  });

  it('hands out no task id when the first save fails', async () => {
    const store = new MemoryTaskStore();
    store.save = async () => {
      throw new Error('disk full');
    };
    const agent = createAgent({ card: jiajiaCard({ limits: { maxConcurrentTasks: 1 } }), store, onError: () => {}, onTask: () => 'done' });
    expect(await codeOf(() => agent.send(userMessage('x')))).toBe('IO_ERROR');
    expect(await codeOf(() => agent.send(userMessage('y')))).toBe('IO_ERROR');
  });

  it('refuses a message nested beyond reason and keeps nothing of it', async () => {
    const agent = agentWith(() => 'done', jiajiaCard({ limits: { maxConcurrentTasks: 1 } }));
    let metadata: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 20_000; i += 1) metadata = { deeper: metadata };
    for (let i = 0; i < 3; i += 1) expect(await codeOf(() => agent.send(userMessage('deep', { metadata })))).toBe('INVALID_PARAMS');
    expect((await agent.send(userMessage('normal'))).status.state).toBe('completed');
  });
});

describe('the agent runtime with owners', () => {
  const notFound = (id: string) => ({ code: 'TASK_NOT_FOUND', message: `no task "${id}"` });

  it('lets only a task’s owner reach it, running or ended, and anyone when no owner is named', async () => {
    const agent = agentWith(async (_task, ctx) => {
      const reply = await ctx.ask('时间范围？');
      return `range ${reply.parts[0]?.kind === 'text' ? reply.parts[0].text : ''}`;
    });
    const alice = { owner: 'A2A_ALICE' };
    const bob = { owner: 'A2A_BOB' };
    const asked = await agent.send(userMessage('research'), alice);
    expect(asked.status.state).toBe('input-required');

    await expect(agent.getTask(asked.id, bob)).rejects.toMatchObject(notFound(asked.id));
    await expect(agent.subscribe(asked.id, bob)).rejects.toMatchObject(notFound(asked.id));
    await expect(agent.send(userMessage('2025', { taskId: asked.id }), bob)).rejects.toMatchObject(notFound(asked.id));
    await expect(agent.cancel(asked.id, bob)).rejects.toMatchObject(notFound(asked.id));
    expect(await agent.listTasks(bob)).toEqual({ tasks: [], nextPageToken: '', totalSize: 0 });

    expect((await agent.getTask(asked.id, alice)).status.state).toBe('input-required');
    expect((await agent.getTask(asked.id)).status.state).toBe('input-required');
    expect((await agent.listTasks(alice)).tasks.map((t) => t.id)).toEqual([asked.id]);
    const done = await agent.send(userMessage('2025', { taskId: asked.id }), alice);
    expect(done.status.state).toBe('completed');

    // Ended and read back from the store: the same answers.
    await expect(agent.getTask(asked.id, bob)).rejects.toMatchObject(notFound(asked.id));
    await expect(agent.cancel(asked.id, bob)).rejects.toMatchObject(notFound(asked.id));
    await expect(agent.send(userMessage('again', { taskId: asked.id }), bob)).rejects.toMatchObject(notFound(asked.id));
    expect(await codeOf(() => agent.cancel(asked.id, alice))).toBe('TASK_TERMINAL');
    expect(await codeOf(() => agent.send(userMessage('again', { taskId: asked.id }), alice))).toBe('UNSUPPORTED_OPERATION');
  });

  it('lets the owner cancel and follow a running task', async () => {
    const agent = agentWith((_task, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', resolve)));
    const running = await agent.send(userMessage('slow'), { owner: 'A2A_ALICE', returnImmediately: true });
    await expect(agent.cancel(running.id, { owner: 'A2A_BOB' })).rejects.toMatchObject(notFound(running.id));
    const events = await agent.subscribe(running.id, { owner: 'A2A_ALICE' });
    expect((await agent.cancel(running.id, { owner: 'A2A_ALICE' })).status.state).toBe('cancelled');
    expect(describeEvents(await collect(events)).at(-1)).toBe('status:cancelled');
  });

  it('keeps the owner in the store, beside the task and not in it', async () => {
    const agent = agentWith(() => 'done');
    const task = await agent.send(userMessage('x'), { owner: 'A2A_ALICE' });
    expect(await agent.store.get(task.id, 'A2A_ALICE')).toEqual(task);
    expect(await agent.store.get(task.id, 'A2A_BOB')).toBeUndefined();
    expect(JSON.stringify(task)).not.toContain('A2A_ALICE');
  });
});
