// The task store's schema: its tables and indexes, built by numbered migrations that the file's
// `user_version` counts, so that an older file is brought up to date when it is opened.

import { LiteError } from '../../errors.js';
import type { SqliteDatabase } from './driver.js';

// Ids, context ids and timestamps are stored as UTF-16BE bytes (see `key`), not TEXT: SQLite
// compares TEXT as UTF-8 bytes and turns lone surrogates into U+FFFD, while the memory store
// and page tokens compare JavaScript strings by UTF-16 code unit. As BLOBs, SQL order and
// equality are exactly JavaScript's, so both stores list alike. `json` holds the whole task;
// read ids from it (`json ->> '$.id'`) when poking at the file by hand.
//
// Migration n (1-based) takes the schema from version n-1 to n; never edit one that shipped.
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE tasks (
     id BLOB PRIMARY KEY,
     context_id BLOB NOT NULL,
     state TEXT NOT NULL,
     status_timestamp BLOB NOT NULL,
     created_at TEXT NOT NULL,
     json TEXT NOT NULL
   );
   CREATE INDEX tasks_newest ON tasks (status_timestamp DESC, id);
   CREATE INDEX tasks_by_context ON tasks (context_id, status_timestamp DESC, id);
   CREATE INDEX tasks_by_state ON tasks (state, status_timestamp DESC, id);`,
  // Push configs (listed in rowid order, which an upsert keeps) and the outbox of deliveries not
  // yet made. AUTOINCREMENT: a seq is never reused, so the outbox order is the order of events
  // even after deliveries are removed.
  `CREATE TABLE push_configs (
     task_id BLOB NOT NULL,
     id BLOB NOT NULL,
     json TEXT NOT NULL,
     PRIMARY KEY (task_id, id)
   );
   CREATE TABLE push_outbox (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     task_id BLOB NOT NULL,
     config_id BLOB NOT NULL,
     body TEXT NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0
   );
   CREATE INDEX push_outbox_by_config ON push_outbox (task_id, config_id);`,
  // The principal that made a task (see TaskStore): a credential's name, never the credential,
  // as UTF-16BE bytes like the other keys. NULL for a task made without auth or before this
  // column existed: with auth on, no principal sees it. Set by the insert; updates keep it.
  `ALTER TABLE tasks ADD COLUMN owner BLOB;
   CREATE INDEX tasks_by_owner ON tasks (owner, status_timestamp DESC, id);`,
  // Only owned tasks in the owner index: a lookup by owner never asks for NULL, and a server
  // without auth (every owner NULL) then pays for no index entry per task.
  `DROP INDEX tasks_by_owner;
   CREATE INDEX tasks_by_owner ON tasks (owner, status_timestamp DESC, id) WHERE owner IS NOT NULL;`,
  // Each task's numbered events, one row per save (the events a save covers, as a JSON array,
  // and the numbers they span), for replay to a client that lost its stream; and the
  // idempotency keys of sends, by owner (an empty blob for none) and key, with the task or the
  // direct answer each was first given (indexed by task, so that keys go with their task).
  `CREATE TABLE task_events (
     task_id BLOB NOT NULL,
     last_seq INTEGER NOT NULL,
     first_seq INTEGER NOT NULL,
     json TEXT NOT NULL,
     PRIMARY KEY (task_id, last_seq)
   ) WITHOUT ROWID;
   CREATE TABLE idempotency_keys (
     owner BLOB NOT NULL,
     key BLOB NOT NULL,
     fingerprint TEXT NOT NULL,
     task_id BLOB,
     message TEXT,
     created_at TEXT NOT NULL,
     PRIMARY KEY (owner, key)
   ) WITHOUT ROWID;
   CREATE INDEX idempotency_by_task ON idempotency_keys (task_id) WHERE task_id IS NOT NULL;`,
  // What the server remembers beside its tasks, by name, as JSON: the retention rules, so that
  // a restart without them keeps them (see RetentionStore).
  `CREATE TABLE settings (
     name TEXT PRIMARY KEY,
     json TEXT NOT NULL
   );`,
];

/** Brings the file up to the newest schema; refuses one made by a newer a2a-lite. */
export function migrate(db: SqliteDatabase, path: string): void {
  // IMMEDIATE: two processes opening a new file at once must not both create the table.
  db.transaction(() => {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > MIGRATIONS.length) {
      throw new LiteError(
        'LEDGER_CORRUPT',
        `the task store "${path}" has schema version ${version}, newer than this a2a-lite reads (${MIGRATIONS.length}); upgrade a2a-lite`,
        { path, version },
      );
    }
    for (const step of MIGRATIONS.slice(version)) db.exec(step);
    db.pragma(`user_version = ${MIGRATIONS.length}`);
  }).immediate();
}
