// The hub's registry stores, memory and SQLite, held to one contract; the SQLite one also
// across a reopen of its file.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryHubStore } from '../../src/hub/hub-store.js';
import { openSqliteHubStore } from '../../src/hub/sqlite-hub-store.js';
import { hubStoreContract, makeHubAgent } from '../contracts/hub-store.js';
import { withStores } from '../contracts/with-stores.js';
import { tempHome } from '../fixtures/home.js';

describe('MemoryHubStore', () => {
  const stores = withStores(() => new MemoryHubStore());
  hubStoreContract(() => stores.open());
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
