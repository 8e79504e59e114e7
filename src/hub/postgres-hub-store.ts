// The hub's registry and task owners in PostgreSQL (`hub --store postgres://…`), so that every
// hub instance of a cluster sees the same agents and the same owner of each task; in a schema
// of its own (default a2a_lite_hub), migrated as the task store's is.

import { LiteError } from '../errors.js';
import { openPool, type PgDatabase, type PoolOptions } from '../store/postgres/connection.js';
import { indexKey, key, unkey } from '../store/postgres/keys.js';
import { DEFAULT_HUB_SCHEMA, postgresLocation, schemaOf } from '../store/postgres/location.js';
import { migrate } from '../store/postgres/migrate.js';
import type { HubDirectory } from './cluster/directory.js';
import { DIRECTORY_MIGRATION, PostgresHubDirectory } from './cluster/postgres-directory.js';
import type { HubAgent, HubStore } from './hub-store.js';

// Ids, backends and task ids are compared only, as `indexKey`s (see store/postgres/keys.ts): an
// agent's task id can be as long and as odd as the agent likes. The agent is its JSON; an owner
// is read back from its UTF-16BE bytes. Migration n takes the schema from version n-1 to n. The
// second adds each agent's owner as a column of its own (compared when an id is claimed; NULL in
// rows saved before it, whose owner is then read from their JSON) and the cluster's directory.
export const HUB_MIGRATIONS: readonly string[] = [
  `CREATE TABLE {schema}.hub_agents (
     id bytea PRIMARY KEY,
     body text NOT NULL
   );
   CREATE TABLE {schema}.hub_task_owners (
     backend bytea NOT NULL,
     task_id bytea NOT NULL,
     owner bytea NOT NULL,
     PRIMARY KEY (backend, task_id)
   );`,
  `ALTER TABLE {schema}.hub_agents ADD COLUMN owner bytea;
   ${DIRECTORY_MIGRATION}`,
];

export interface PostgresHubStoreOptions extends PoolOptions {
  /** The schema of the hub's tables (default: the URL's `?schema=`, else `a2a_lite_hub`). */
  schema?: string;
  /** Where the password is read when the URL has none (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** The variable of `env` holding the password when the URL has none (default PGPASSWORD). */
  passwordVariable?: string;
}

export class PostgresHubStore implements HubStore {
  private shared: PostgresHubDirectory | undefined;
  /** @internal Use `openPostgresHubStore`, which migrates the schema first. */
  constructor(
    private readonly db: PgDatabase,
    readonly schema: string,
  ) {}

  async get(id: string): Promise<HubAgent | undefined> {
    const rows = await this.db.query<{ body: string }>('read an agent', `SELECT body FROM ${this.schema}.hub_agents WHERE id = $1`, [indexKey(id)]);
    return rows[0] === undefined ? undefined : this.read(rows[0].body);
  }

  /** In id order: JavaScript's order of the ids (see keys.ts). */
  async list(): Promise<HubAgent[]> {
    const rows = await this.db.query<{ body: string }>('list agents', `SELECT body FROM ${this.schema}.hub_agents ORDER BY id`);
    return rows.map((row) => this.read(row.body));
  }

  async put(agent: HubAgent): Promise<void> {
    await this.db.query(
      'save an agent',
      `INSERT INTO ${this.schema}.hub_agents (id, owner, body) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, body = excluded.body`,
      [indexKey(agent.id), key(agent.owner), JSON.stringify(agent)],
    );
  }

  /**
   * One statement: saved when the id is free or the owner's. Not saved, the owner is read back:
   * a row saved before owners had a column of their own (NULL there) is judged by its JSON.
   */
  async putOwned(agent: HubAgent): Promise<boolean> {
    const rows = await this.db.query<{ saved: boolean; owner: Buffer | null }>(
      'save an agent',
      `WITH saved AS (
         INSERT INTO ${this.schema}.hub_agents (id, owner, body) VALUES ($1, $2, $3)
         ON CONFLICT (id) DO UPDATE SET body = excluded.body WHERE ${this.schema}.hub_agents.owner = excluded.owner
         RETURNING 1
       )
       SELECT true AS saved, NULL::bytea AS owner FROM saved
       UNION ALL
       SELECT false, owner FROM ${this.schema}.hub_agents WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM saved)`,
      [indexKey(agent.id), key(agent.owner), JSON.stringify(agent)],
    );
    const row = rows[0];
    if (row?.saved === true) return true;
    // No row read back: another instance saved the id after this statement's snapshot was taken.
    if (row === undefined || row.owner !== null) return false;
    if ((await this.get(agent.id))?.owner !== agent.owner) return false;
    await this.put(agent);
    return true;
  }

  async remove(id: string): Promise<boolean> {
    const rows = await this.db.query('remove an agent', `DELETE FROM ${this.schema}.hub_agents WHERE id = $1 RETURNING 1`, [indexKey(id)]);
    return rows.length > 0;
  }

  async taskOwner(backend: string, taskId: string): Promise<string | undefined> {
    const rows = await this.db.query<{ owner: Buffer }>(
      'read the owner of a task',
      `SELECT owner FROM ${this.schema}.hub_task_owners WHERE backend = $1 AND task_id = $2`,
      [indexKey(backend), indexKey(taskId)],
    );
    return rows[0] === undefined ? undefined : unkey(rows[0].owner);
  }

  /**
   * The first claim stays: one statement inserts or reads back. Its read shares the statement's
   * snapshot, taken before a rival claim at the same instant committed, so it may find nothing;
   * the owner is then read again.
   */
  async claimTask(backend: string, taskId: string, principal: string): Promise<string> {
    const rows = await this.db.query<{ owner: Buffer }>(
      'record the owner of a task',
      `WITH claimed AS (
         INSERT INTO ${this.schema}.hub_task_owners (backend, task_id, owner) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING owner
       )
       SELECT owner FROM claimed
       UNION ALL
       SELECT owner FROM ${this.schema}.hub_task_owners WHERE backend = $1 AND task_id = $2 AND NOT EXISTS (SELECT 1 FROM claimed)`,
      [indexKey(backend), indexKey(taskId), key(principal)],
    );
    if (rows[0] !== undefined) return unkey(rows[0].owner);
    return (await this.taskOwner(backend, taskId)) ?? principal;
  }

  /** The cluster's directory, in this schema and on this store's connections. */
  directory(): HubDirectory {
    return (this.shared ??= new PostgresHubDirectory(this.db, this.schema));
  }

  async close(): Promise<void> {
    await this.db.close();
  }

  private read(body: string): HubAgent {
    try {
      return JSON.parse(body) as HubAgent;
    } catch (cause) {
      throw new LiteError('LEDGER_CORRUPT', `the hub registry ${this.db.location.shown} (schema "${this.schema}") holds a row that is not JSON`, { store: this.db.location.shown }, { cause });
    }
  }
}

/**
 * Opens the hub's store in the PostgreSQL database at `url`, creating or migrating its schema;
 * the password is the URL's, else `PGPASSWORD` (see store/postgres/location.ts). Throws USAGE
 * for a URL that is not one, IO_ERROR when the database cannot be reached, LEDGER_CORRUPT for a
 * schema a newer a2a-lite made.
 */
export async function openPostgresHubStore(url: string, options: PostgresHubStoreOptions = {}): Promise<PostgresHubStore> {
  const location = postgresLocation(url, options.env, options.passwordVariable);
  const schema = schemaOf(location, options.schema, DEFAULT_HUB_SCHEMA);
  const db = await openPool(location, 'the hub registry', options);
  try {
    await migrate(db, schema, HUB_MIGRATIONS);
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
  return new PostgresHubStore(db, schema);
}
