// An agent on the PostgreSQL store: database round trips of a blocking send, counted by the
// store (every statement sent is one; the goal is at most 2 per blocking SendMessage, shared
// across concurrent sends as the SQLite store shares its commits), and hostile sends answered
// and kept exactly.
import { describe, expect, it } from 'vitest';
import { jiajiaCard } from '../src/card/examples.js';
import type { TaskMessage } from '../src/model/task.js';
import { createAgent } from '../src/runtime/agent.js';
import { openPostgresTaskStore, type PostgresTaskStore } from '../src/store/postgres/task-store.js';
import { withStores } from './contracts/with-stores.js';
import { needsPostgres, uniqueName, useTestDatabase } from './postgres.js';

const noPostgres = needsPostgres('round trips of a blocking send on PostgreSQL (test/postgres-round-trips.test.ts)');

const message = (n: number): TaskMessage => ({ messageId: `m-${n}`, role: 'user', parts: [{ kind: 'text', text: `question ${n}` }] });

describe.skipIf(noPostgres)('a blocking send on the PostgreSQL store', () => {
  const db = useTestDatabase();
  const stores = withStores(() => openPostgresTaskStore(db.url(), { schema: uniqueName('s') }));

  /** The round trips `sends` cost an agent on `store`, after a first send has warmed the pool. */
  async function roundTrips(store: PostgresTaskStore, sends: (agent: ReturnType<typeof createAgent>) => Promise<unknown>): Promise<number> {
    const agent = createAgent({ card: jiajiaCard(), store, onTask: async (task, context) => {
      if (task.text.includes('think')) await context.status('working', { message: 'thinking' });
      return `answer to ${task.text}`;
    } });
    await agent.send(message(0));
    const before = store.roundTrips;
    await sends(agent);
    return store.roundTrips - before;
  }

  it('costs one round trip without an idempotency key, two with one', async () => {
    const store = await stores.open();
    expect(await roundTrips(store, (agent) => agent.send(message(1)))).toBe(1);
    expect(await roundTrips(store, (agent) => agent.send(message(2), { idempotencyKey: 'key-2' }))).toBe(2);
    expect((await store.findIdempotent('key:key-2'))?.taskId).toBeDefined();
  });

  it('shares round trips between sends made at the same time', async () => {
    const store = await stores.open();
    const sends = 40;
    const trips = await roundTrips(store, (agent) => Promise.all(Array.from({ length: sends }, (_, i) => agent.send(message(100 + i), { idempotencyKey: `key-${i}` }))));
    // One lookup of the forty keys and one batch of the forty tasks.
    expect(trips).toBeLessThanOrEqual(2);
    expect((await store.list({ state: 'completed' })).totalSize).toBe(sends + 1);
  });

  it('answers and keeps hostile sends exactly: NUL, lone surrogates, quotes, a megabyte of context id and message id', async () => {
    const store = await stores.open();
    const agent = createAgent({ card: jiajiaCard(), store, onTask: (task) => `got ${task.text.length}` });
    const odd = `NUL\u0000 lone \ud800 quote "' back\\slash $1 😀`;
    const hostile: TaskMessage = { messageId: `${odd}${'m'.repeat(1024 * 1024)}`, contextId: `${odd}${'c'.repeat(1024 * 1024)}`, role: 'user', parts: [{ kind: 'text', text: odd }] };
    const first = await agent.send(hostile, { owner: odd, messageIdKeys: true });
    expect(first.status.state).toBe('completed');
    expect(await store.get(first.id, odd)).toEqual(first);
    expect((await store.list({ contextId: hostile.contextId!, owner: odd })).tasks.map((t) => t.id)).toEqual([first.id]);
    // The same message again is the same send: the first task answers it.
    expect((await agent.send(hostile, { owner: odd, messageIdKeys: true })).id).toBe(first.id);
    expect((await agent.send({ ...hostile, messageId: `${hostile.messageId}!` }, { owner: odd, messageIdKeys: true })).id).not.toBe(first.id);
  });
});
