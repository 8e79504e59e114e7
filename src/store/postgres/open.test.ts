// Opening a PostgreSQL store: clear errors that never show the password when the database is
// down or missing, migrations run once by whichever replica starts first, a schema made by a
// newer a2a-lite refused by name, and a pool that outlives connections the server closed.
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { makeTask } from '../../../test/contracts/task-store.js';
import { withStores } from '../../../test/contracts/with-stores.js';
import { adminQuery, needsPostgres, uniqueName, useTestDatabase } from '../../../test/postgres.js';
import { openPostgresHubStore } from '../../hub/postgres-hub-store.js';
import { key } from './keys.js';
import { MIGRATIONS } from './schema.js';
import { openPostgresTaskStore } from './task-store.js';

const noPostgres = needsPostgres('opening the PostgreSQL stores (src/store/postgres)');

/** A port on 127.0.0.1 where nothing listens. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('opening a PostgreSQL store that cannot be reached', () => {
  it('gives IO_ERROR naming the place, without the password', async () => {
    const port = await closedPort();
    const error = await openPostgresTaskStore(`postgres://agent:hunter2-secret@127.0.0.1:${port}/agents`, { connectTimeoutMs: 2_000 }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'IO_ERROR',
      message: `the task store postgres://agent@127.0.0.1:${port}/agents could not be opened: connect ECONNREFUSED 127.0.0.1:${port}`,
      details: { store: `postgres://agent@127.0.0.1:${port}/agents`, postgres: 'ECONNREFUSED' },
    });
    expect(JSON.stringify({ ...(error as object), message: (error as Error).message })).not.toContain('hunter2');
    const hub = await openPostgresHubStore(`postgres://agent@127.0.0.1:${port}/agents`, { env: { PGPASSWORD: 'hunter2-secret' }, connectTimeoutMs: 2_000 }).catch((e: unknown) => e);
    expect(hub).toMatchObject({ code: 'IO_ERROR', message: expect.stringMatching(/^the hub registry postgres:\/\/agent@127\.0\.0\.1:\d+\/agents could not be opened: connect ECONNREFUSED/) });
  });
});

describe.skipIf(noPostgres)('opening a PostgreSQL store', () => {
  const db = useTestDatabase();
  const stores = withStores((schema: string) => openPostgresTaskStore(db.url(), { schema }));

  it('gives IO_ERROR for a database that does not exist, without the password', async () => {
    const url = new URL(db.url());
    url.password = 'hunter2-secret';
    url.pathname = '/no_such_database';
    const error = await openPostgresTaskStore(url.toString()).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'IO_ERROR', message: expect.stringContaining('could not be opened: database "no_such_database" does not exist'), details: { postgres: '3D000' } });
    expect((error as Error).message).not.toContain('hunter2');
  });

  it('migrates once when several replicas start at the same instant', async () => {
    const schema = uniqueName('s');
    const opened = await Promise.all(Array.from({ length: 4 }, () => stores.open(schema)));
    await opened[0]!.save(makeTask());
    expect(await opened[3]!.get('t-1')).toEqual(makeTask());
    const { rows } = await adminQuery(`SELECT version FROM ${schema}.schema_version`, [], db.name());
    expect(rows).toEqual([{ version: MIGRATIONS.length }]);
  });

  it('refuses a schema a newer a2a-lite made, naming both versions', async () => {
    const schema = uniqueName('s');
    await stores.close(await stores.open(schema));
    await adminQuery(`UPDATE ${schema}.schema_version SET version = 99`, [], db.name());
    await expect(stores.open(schema)).rejects.toMatchObject({
      code: 'LEDGER_CORRUPT',
      message: `the task store ${db.url()} (schema "${schema}") has schema version 99, newer than this a2a-lite reads (${MIGRATIONS.length}); upgrade a2a-lite`,
      details: { version: 99, supported: MIGRATIONS.length },
    });
  });

  it('brings a version 1 schema up to date, keeping its tasks and keys', async () => {
    const schema = uniqueName('s');
    // What an a2a-lite with migration 1 alone left: a task replica alpha runs, and its key.
    await adminQuery(
      `CREATE SCHEMA ${schema};
       CREATE TABLE ${schema}.schema_version (single boolean PRIMARY KEY DEFAULT true CHECK (single), version integer NOT NULL);
       INSERT INTO ${schema}.schema_version (version) VALUES (1);
       ${MIGRATIONS[0]!.replaceAll('{schema}', schema)}`,
      [],
      db.name(),
    );
    const task = makeTask();
    await adminQuery(
      `INSERT INTO ${schema}.tasks (id, context_id, state, status_timestamp, runner, created_at, json) VALUES ($1, $2, 'working', $3, 'alpha', 'then', $4)`,
      [key(task.id), key(task.contextId), key(task.status.timestamp), JSON.stringify(task)],
      db.name(),
    );
    await adminQuery(`INSERT INTO ${schema}.idempotency_keys (owner, key, fingerprint, task_id, created_at) VALUES ('', $1, 'f', $2, 'then')`, [key('k'), key(task.id)], db.name());

    const store = await stores.open(schema);
    const { rows } = await adminQuery(`SELECT version FROM ${schema}.schema_version`, [], db.name());
    expect(rows).toEqual([{ version: MIGRATIONS.length }]);
    expect(await store.get(task.id)).toEqual(task);
    expect(await store.claimKey('k2', undefined, 'f', 't-2', 'alpha')).toEqual({ won: true });
    expect((await store.failTasksOf('alpha', 'gone')).map((t) => t.id)).toEqual([task.id]);
    expect(await store.findIdempotent('k')).toMatchObject({ taskId: task.id, fingerprint: 'f' });
    expect(await store.findIdempotent('k2')).toBeUndefined();
  });

  it('keeps working after the server closed its connections', async () => {
    const store = await stores.open(uniqueName('s'));
    await store.save(makeTask());
    await adminQuery('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [db.name()]);
    // The pool learns of the closed connections as they fail; a read may meet one, never two.
    const read = await store.get('t-1').catch(() => store.get('t-1'));
    expect(read).toEqual(makeTask());
  });
});
