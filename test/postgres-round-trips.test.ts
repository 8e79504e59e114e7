// Database round trips of a blocking send on the PostgreSQL store, counted by the store (every
// statement sent is one): the goal is at most 2 per blocking SendMessage, shared across
// concurrent sends as the SQLite store shares its commits.
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
});
