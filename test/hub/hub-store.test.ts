// The hub's registry stores, memory, SQLite and PostgreSQL, held to one contract; the SQLite one
// also across a reopen of its file, the PostgreSQL one across hub instances sharing a database.
// The two that can hold a cluster's directory (memory, PostgreSQL) are held to its contract too.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryHubStore } from '../../src/hub/hub-store.js';
import { openPostgresHubStore, type PostgresHubStore } from '../../src/hub/postgres-hub-store.js';
import { openSqliteHubStore } from '../../src/hub/sqlite-hub-store.js';
import { hubDirectoryContract } from '../contracts/hub-directory.js';
import { hubStoreContract, makeHubAgent } from '../contracts/hub-store.js';
import { withStores } from '../contracts/with-stores.js';
import { tempHome } from '../fixtures/home.js';
import { adminQuery, needsPostgres, uniqueName, useTestDatabase } from '../postgres.js';

const noPostgres = needsPostgres('the hub store on PostgreSQL (test/hub/hub-store.test.ts)');

describe('MemoryHubStore', () => {
  const stores = withStores(() => new MemoryHubStore());
  hubStoreContract(() => stores.open());
  hubDirectoryContract(async () => new MemoryHubStore().directory());
});

describe('SqliteHubStore', () => {
  const stores = withStores((path: string) => openSqliteHubStore(path));
  hubStoreContract(() => stores.open(join(tempHome('hub-store'), 'hub.db')));

  it('gives back every agent and its owner after the file is reopened', async () => {
    const path = join(tempHome('hub-store'), 'nested', 'hub.db');
    const first = await stores.open(path);
    await first.put(makeHubAgent('worker'));
    await stores.close(first);
    const second = await stores.open(path);
    expect(await second.list()).toEqual([makeHubAgent('worker')]);
  });

  it('refuses a folder for its file, naming it', async () => {
    const dir = tempHome('hub-store');
    await expect(openSqliteHubStore(dir)).rejects.toThrow(/the hub registry/);
  });
});

describe.skipIf(noPostgres)('PostgresHubStore', () => {
  const db = useTestDatabase();
  const stores = withStores((schema?: string): Promise<PostgresHubStore> => openPostgresHubStore(db.url(), { schema: schema ?? uniqueName('hub') }));
  hubStoreContract(() => stores.open());
  hubDirectoryContract(async () => (await stores.open()).directory());

  it('gives a new id to exactly one of many principals saving it at once through two instances', async () => {
    const a = await stores.open();
    const b = await stores.open(a.schema);
    for (let round = 0; round < 10; round += 1) {
      const id = `agent-${round}`;
      const saved = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? a : b).putOwned({ ...makeHubAgent(id), owner: `P${i}` })));
      expect(saved.filter(Boolean), id).toHaveLength(1);
      expect((await a.get(id))?.owner).toBe(`P${saved.indexOf(true)}`);
    }
  });

  it('judges a row saved before owners had a column by its JSON', async () => {
    const store = await stores.open();
    await store.put(makeHubAgent('old'));
    await adminQuery(`UPDATE ${store.schema}.hub_agents SET owner = NULL`, [], db.name());
    expect(await store.putOwned({ ...makeHubAgent('old'), owner: 'HUB_BOB' })).toBe(false);
    expect(await store.putOwned(makeHubAgent('old', '2.0.0'))).toBe(true);
    expect(await store.putOwned({ ...makeHubAgent('old'), owner: 'HUB_BOB' })).toBe(false);
  });

  it('shows every instance the same agents and owners', async () => {
    const a = await stores.open();
    const b = await stores.open(a.schema);
    await a.put(makeHubAgent('worker'));
    expect(await b.list()).toEqual([makeHubAgent('worker')]);
    expect(await b.claimTask('http://agent.example/', 'task-1', 'HUB_BOB')).toBe('HUB_BOB');
    expect(await a.taskOwner('http://agent.example/', 'task-1')).toBe('HUB_BOB');
    expect(await b.remove('worker')).toBe(true);
    expect(await a.get('worker')).toBeUndefined();
  });

  it('gives a task to exactly one of many principals claiming it at once through two instances', async () => {
    const a = await stores.open();
    const b = await stores.open(a.schema);
    for (let task = 0; task < 10; task += 1) {
      const principals = Array.from({ length: 6 }, (_, i) => `P${i}`);
      const owners = await Promise.all(principals.map((p, i) => (i % 2 === 0 ? a : b).claimTask('http://agent.example/', `task-${task}`, p)));
      expect(new Set(owners).size, `task-${task}`).toBe(1);
      expect(await a.taskOwner('http://agent.example/', `task-${task}`)).toBe(owners[0]);
    }
  });

  it('keeps ids, task ids and owners exactly, however long or odd', async () => {
    const s = await stores.open();
    const odd = `"quote' NUL\u0000 lone \ud800 😀 ${'x'.repeat(100_000)}`;
    await s.put(makeHubAgent(odd));
    await s.put(makeHubAgent(`${odd}y`));
    expect((await s.get(odd))?.id).toBe(odd);
    expect((await s.list()).map((agent) => agent.id)).toEqual([odd, `${odd}y`]);
    expect(await s.claimTask(odd, odd, `owner ${odd}`)).toBe(`owner ${odd}`);
    expect(await s.claimTask(odd, `${odd}y`, 'other')).toBe('other');
    expect(await s.taskOwner(odd, odd)).toBe(`owner ${odd}`);
    expect(await s.taskOwner(odd, '\ud801')).toBeUndefined();
  });
});
