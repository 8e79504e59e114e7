// The hub's registry in a SQLite file of its own (not the task store's: a hub holds no tasks),
// so that a hub killed and restarted knows every agent and its owner again.

import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { LiteError } from '../errors.js';
import { storeError } from '../store/sqlite/open.js';
import { loadDriver, type SqliteDatabase } from '../store/sqlite/driver.js';
import type { HubAgent, HubStore } from './hub-store.js';

const SCHEMA = `CREATE TABLE IF NOT EXISTS hub_agents (
  id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  body TEXT NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS hub_task_owners (
  backend TEXT NOT NULL,
  task_id TEXT NOT NULL,
  owner TEXT NOT NULL,
  PRIMARY KEY (backend, task_id)
) STRICT, WITHOUT ROWID`;

export class SqliteHubStore implements HubStore {
  /** @internal Use `openSqliteHubStore`, which creates the file and its table first. */
  constructor(
    private readonly db: SqliteDatabase,
    private readonly path: string,
  ) {}

  get(id: string): Promise<HubAgent | undefined> {
    const body = this.db.prepare('SELECT body FROM hub_agents WHERE id = ?').pluck().get(id);
    return Promise.resolve(typeof body === 'string' ? this.read(body) : undefined);
  }

  list(): Promise<HubAgent[]> {
    const bodies = this.db.prepare('SELECT body FROM hub_agents ORDER BY id').pluck().all();
    return Promise.resolve(bodies.map((body) => this.read(String(body))));
  }

  put(agent: HubAgent): Promise<void> {
    this.db.prepare('INSERT INTO hub_agents (id, owner, body) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, body = excluded.body').run(agent.id, agent.owner, JSON.stringify(agent));
    return Promise.resolve();
  }

  putOwned(agent: HubAgent): Promise<boolean> {
    const saved = this.db
      .prepare('INSERT INTO hub_agents (id, owner, body) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET body = excluded.body WHERE hub_agents.owner = excluded.owner')
      .run(agent.id, agent.owner, JSON.stringify(agent));
    return Promise.resolve(Number(saved.changes) > 0);
  }

  remove(id: string): Promise<boolean> {
    return Promise.resolve(Number(this.db.prepare('DELETE FROM hub_agents WHERE id = ?').run(id).changes) > 0);
  }

  taskOwner(backend: string, taskId: string): Promise<string | undefined> {
    const owner = this.db.prepare('SELECT owner FROM hub_task_owners WHERE backend = ? AND task_id = ?').pluck().get(backend, taskId);
    return Promise.resolve(typeof owner === 'string' ? owner : undefined);
  }

  claimTask(backend: string, taskId: string, principal: string): Promise<string> {
    // The first claim stays: a later one reads back who made the task.
    this.db.prepare('INSERT INTO hub_task_owners (backend, task_id, owner) VALUES (?, ?, ?) ON CONFLICT DO NOTHING').run(backend, taskId, principal);
    return this.taskOwner(backend, taskId).then((owner) => owner ?? principal);
  }

  close(): Promise<void> {
    if (this.db.open) this.db.close();
    return Promise.resolve();
  }

  private read(body: string): HubAgent {
    try {
      return JSON.parse(body) as HubAgent;
    } catch (cause) {
      throw new LiteError('LEDGER_CORRUPT', `the hub registry "${this.path}" holds a row that is not JSON`, { path: this.path }, { cause });
    }
  }
}

/** Opens (creating if needed, owner-only) the hub registry at `path`. */
export async function openSqliteHubStore(path: string): Promise<SqliteHubStore> {
  const driver = await loadDriver();
  try {
    mkdirSync(dirname(path), { recursive: true });
    closeSync(openSync(path, 'a', 0o600));
    chmodSync(path, 0o600);
  } catch (cause) {
    throw new LiteError('IO_ERROR', `cannot create the hub registry "${path}"`, { path }, { cause });
  }
  let db: SqliteDatabase;
  try {
    db = driver.open(path);
  } catch (error) {
    throw storeError(error, path, 'be opened');
  }
  try {
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(SCHEMA);
  } catch (error) {
    db.close();
    throw storeError(error, path, 'be opened');
  }
  return new SqliteHubStore(db, path);
}
