// The SQLite TaskStore and PushStore, the default store of `a2a-lite serve`: tasks, push configs
// and the push outbox in one file in WAL mode, its schema versioned by `user_version`. better-sqlite3 is native and loaded only on open, so
// a CLI installed with --ignore-scripts still parses, formats and reads cards without it.

import type BetterSqlite3 from 'better-sqlite3';
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { LiteError } from '../../errors.js';
import { INITIAL_STATE, WIRE_STATES, isTerminal, type TaskState } from '../../protocol/states.js';
import type { PushConfig } from '../../model/push-config.js';
import type { Task } from '../../model/task.js';
import type { NewDelivery, PendingDelivery, PushStore } from '../push-store.js';
import { Checkpointer } from './checkpointer.js';
import {
  decodeCursor,
  encodeCursor,
  failInterrupted,
  pageSizeOf,
  type TaskPage,
  type TaskQuery,
  type TaskStore,
  type TaskStoreOptions,
} from '../task-store.js';

type Database = BetterSqlite3.Database;
type Statement = BetterSqlite3.Statement;

/** How long a write waits for another process's write before giving up with LEDGER_BUSY. */
const BUSY_TIMEOUT_MS = 5_000;

/** WAL pages (estimated) written between checkpoints made by the checkpointer thread. */
const CHECKPOINT_AFTER_PAGES = 4_500;
/** SQLite's own checkpoint interval, in pages: what the main connection uses on its own. */
const DEFAULT_AUTOCHECKPOINT = 1_000;
/**
 * The main connection's interval while the checkpointer thread does the work: only reached if
 * the thread falls far behind.
 */
const FALLBACK_AUTOCHECKPOINT = 20_000;

export interface SqliteTaskStoreOptions extends TaskStoreOptions {
  /** @internal WAL pages between checkpoints on the checkpointer thread (tests make it small). */
  checkpointAfterPages?: number;
}

// Ids, context ids and timestamps are stored as UTF-16BE bytes (see `key`), not TEXT: SQLite
// compares TEXT as UTF-8 bytes and turns lone surrogates into U+FFFD, while the memory store
// and page tokens compare JavaScript strings by UTF-16 code unit. As BLOBs, SQL order and
// equality are exactly JavaScript's, so both stores list alike. `json` holds the whole task;
// read ids from it (`json ->> '$.id'`) when poking at the file by hand.
//
// Migration n (1-based) takes the schema from version n-1 to n; never edit one that shipped.
const MIGRATIONS: readonly string[] = [
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
];

const TERMINAL_STATES = ([INITIAL_STATE, ...WIRE_STATES] as readonly TaskState[]).filter(isTerminal);

/** The newest-first order of the memory store's `newestFirst`, as SQL. */
const NEWEST_FIRST = 'ORDER BY status_timestamp DESC, id ASC';

/**
 * Opens (creating if needed) the SQLite task store at `path`, with its parent folders.
 * Throws IO_ERROR when better-sqlite3 cannot load or the file cannot be opened, and
 * LEDGER_CORRUPT when the file is not a task store this version can read.
 *
 * @example
 * const store = await openSqliteTaskStore(join(home, 'tasks.db'));
 * await store.recoverInterrupted('the agent restarted while this task was running');
 */
export async function openSqliteTaskStore(path: string, options: SqliteTaskStoreOptions = {}): Promise<SqliteTaskStore> {
  const Driver = await loadDriver();
  prepareLocation(path);
  let db: Database;
  try {
    db = new Driver(path);
  } catch (err) {
    throw storeError(err, path, 'be opened');
  }
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // WAL lets another process read while `serve` writes; NORMAL survives a process crash, the
    // failure restart recovery is about (a power cut may lose the last commits, never corrupt).
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    migrate(db, path);
    return new SqliteTaskStore(db, path, options.now ?? (() => new Date()), options.checkpointAfterPages ?? CHECKPOINT_AFTER_PAGES);
  } catch (err) {
    db.close();
    throw storeError(err, path, 'be opened');
  }
}

/** Tasks and push configs in a SQLite file; they survive restarts. Open one with `openSqliteTaskStore`. */
export class SqliteTaskStore implements TaskStore, PushStore {
  private readonly upsert: Statement;
  private readonly selectOne: Statement;
  private readonly selectOwned: Statement;
  private readonly selectUnfinished: Statement;
  private readonly push: Record<
    'saveConfig' | 'getConfig' | 'listConfigs' | 'deleteConfig' | 'deleteDeliveries' | 'addDelivery' | 'pending' | 'attempt' | 'remove',
    Statement
  >;
  /** List statements by filter shape, prepared on first use. */
  private readonly listing = new Map<string, { count: Statement; rows: Statement }>();

  /** Checkpoints the WAL off the event loop once writes pile up; none for a file in memory. */
  private readonly checkpointer: Checkpointer | undefined;

  /** @internal Use `openSqliteTaskStore`, which configures and migrates `db` first. */
  constructor(
    private readonly db: Database,
    private readonly path: string,
    private readonly now: () => Date,
    checkpointAfterPages = CHECKPOINT_AFTER_PAGES,
  ) {
    this.upsert = db.prepare(
      // Positional parameters (see `Row`): binding them is cheaper than binding by name.
      `INSERT INTO tasks (id, context_id, state, status_timestamp, json, owner, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET context_id = excluded.context_id, state = excluded.state,
         status_timestamp = excluded.status_timestamp, json = excluded.json`,
    );
    this.selectOne = db.prepare('SELECT json FROM tasks WHERE id = ?').pluck();
    this.selectOwned = db.prepare('SELECT json FROM tasks WHERE id = ? AND owner = ?').pluck();
    this.selectUnfinished = db
      // By id: the order newestFirst gives them once they all share the recovery timestamp.
      .prepare(`SELECT json FROM tasks WHERE state NOT IN (${TERMINAL_STATES.map(() => '?').join(', ')}) ORDER BY id`)
      .pluck();
    this.push = {
      saveConfig: db.prepare(
        `INSERT INTO push_configs (task_id, id, json) VALUES (@taskId, @id, @json)
         ON CONFLICT (task_id, id) DO UPDATE SET json = excluded.json`,
      ),
      getConfig: db.prepare('SELECT json FROM push_configs WHERE task_id = ? AND id = ?').pluck(),
      listConfigs: db.prepare('SELECT json FROM push_configs WHERE task_id = ? ORDER BY rowid').pluck(),
      deleteConfig: db.prepare('DELETE FROM push_configs WHERE task_id = ? AND id = ?'),
      deleteDeliveries: db.prepare('DELETE FROM push_outbox WHERE task_id = ? AND config_id = ?'),
      addDelivery: db.prepare('INSERT INTO push_outbox (task_id, config_id, body) VALUES (?, ?, ?)'),
      pending: db.prepare('SELECT seq, task_id AS taskId, config_id AS configId, body, attempts FROM push_outbox ORDER BY seq'),
      attempt: db.prepare('UPDATE push_outbox SET attempts = ? WHERE seq = ?'),
      remove: db.prepare('DELETE FROM push_outbox WHERE seq = ?'),
    };
    if (db.memory) return;
    let raised = false;
    this.checkpointer = new Checkpointer({
      path,
      busyTimeoutMs: BUSY_TIMEOUT_MS,
      afterPages: checkpointAfterPages,
      onCheckpoint: () => {
        if (!this.db.open) return;
        // The thread works: the main connection need not checkpoint itself any more.
        if (!raised) this.db.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT}`);
        raised = true;
        // What was committed while the thread worked: a few commits' worth, copied here so
        // that the WAL is wholly in the database file and the next commit starts it over.
        // Nothing writes meanwhile on this thread, which the checkpointer cannot count on.
        this.catchUp();
      },
      onFailure: () => {
        if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
      },
    });
  }

  /**
   * Snapshots the task now; saves made in the same turn of the event loop are committed
   * together in one transaction (a group commit), and each promise settles after that commit.
   * A busy server thus pays one commit per batch instead of one per change.
   */
  save(task: Task, owner?: string): Promise<void> {
    // A task saved twice in one turn is written once, with the owner of its first save.
    const earlier = this.pending.get(task.id);
    this.pending.set(task.id, rowOf(task, earlier === undefined ? ownerKey(owner) : earlier[5]));
    this.committing ??= new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        const rows = [...this.pending.values()];
        this.pending.clear();
        this.committing = undefined;
        try {
          // One clock reading per batch: created_at is the time of the commit that made the row.
          this.guard('save tasks', () => this.writeAll(rows, this.now().toISOString()));
          resolve();
          this.checkpointer?.wrote(walPagesOf(rows));
        } catch (error) {
          reject(error);
        }
      });
    });
    return this.committing;
  }

  async get(id: string, owner?: string): Promise<Task | undefined> {
    await this.settled();
    const json = this.guard('read a task', () =>
      (owner === undefined ? this.selectOne.get(key(id)) : this.selectOwned.get(key(id), key(owner))) as string | undefined,
    );
    return json === undefined ? undefined : (JSON.parse(json) as Task);
  }

  /** Filters and orders in SQL; the page token is the memory store's, a keyset cursor. */
  async list(query: TaskQuery = {}): Promise<TaskPage> {
    await this.settled();
    const size = pageSizeOf(query.pageSize);
    const after = query.pageToken ? decodeCursor(query.pageToken) : undefined;
    const params: Record<string, unknown> = { limit: size + 1 };
    if (query.owner !== undefined) params.owner = key(query.owner);
    if (query.contextId) params.contextId = key(query.contextId);
    if (query.state) params.state = query.state;
    if (query.updatedAfter) params.updatedAfter = key(query.updatedAfter);
    if (after) Object.assign(params, { afterTimestamp: key(after.timestamp), afterId: key(after.id) });
    const { count, rows } = this.listStatements(query);
    // One read transaction, so the total and the page come from the same snapshot.
    const [totalSize, json] = this.guard('list tasks', () =>
      this.db.transaction((): [number, string[]] => [count.get(params) as number, rows.all(params) as string[]])(),
    );
    const tasks = json.slice(0, size).map((j) => JSON.parse(j) as Task);
    const last = tasks.at(-1);
    const more = json.length > size && last !== undefined;
    return { tasks, nextPageToken: more ? encodeCursor(last.status.timestamp, last.id) : '', totalSize };
  }

  async recoverInterrupted(reason: string): Promise<Task[]> {
    const timestamp = this.now().toISOString();
    return this.guard('recover interrupted tasks', () =>
      this.db
        .transaction(() => {
          const unfinished = this.selectUnfinished.all(...TERMINAL_STATES) as string[];
          const failed = unfinished.map((json) => failInterrupted(JSON.parse(json) as Task, reason, timestamp));
          // The rows exist: the upsert keeps their owners.
          for (const task of failed) this.write(task, timestamp);
          return failed;
        })
        .immediate(),
    );
  }

  async savePushConfig(config: PushConfig): Promise<void> {
    this.guard('save a push config', () => this.push.saveConfig.run({ taskId: key(config.taskId), id: key(config.id), json: JSON.stringify(config) }));
  }

  async getPushConfig(taskId: string, id: string): Promise<PushConfig | undefined> {
    const json = this.guard('read a push config', () => this.push.getConfig.get(key(taskId), key(id)) as string | undefined);
    return json === undefined ? undefined : (JSON.parse(json) as PushConfig);
  }

  async listPushConfigs(taskId: string): Promise<PushConfig[]> {
    const rows = this.guard('list push configs', () => this.push.listConfigs.all(key(taskId)) as string[]);
    return rows.map((json) => JSON.parse(json) as PushConfig);
  }

  async deletePushConfig(taskId: string, id: string): Promise<boolean> {
    return this.guard('delete a push config', () =>
      this.db.transaction(() => {
        this.push.deleteDeliveries.run(key(taskId), key(id));
        return this.push.deleteConfig.run(key(taskId), key(id)).changes > 0;
      })(),
    );
  }

  async addDeliveries(deliveries: readonly NewDelivery[]): Promise<PendingDelivery[]> {
    return this.guard('queue push deliveries', () =>
      this.db.transaction(() =>
        deliveries.map((d) => {
          const { lastInsertRowid } = this.push.addDelivery.run(key(d.taskId), key(d.configId), d.body);
          return { ...d, seq: Number(lastInsertRowid), attempts: 0 };
        }),
      )(),
    );
  }

  async pendingDeliveries(): Promise<PendingDelivery[]> {
    const rows = this.guard('read the push outbox', () => this.push.pending.all() as (Omit<PendingDelivery, 'taskId' | 'configId'> & { taskId: Buffer; configId: Buffer })[]);
    return rows.map((row) => ({ ...row, taskId: unkey(row.taskId), configId: unkey(row.configId) }));
  }

  async recordAttempt(seq: number, attempts: number): Promise<void> {
    this.guard('record a push attempt', () => this.push.attempt.run(attempts, seq));
  }

  async removeDelivery(seq: number): Promise<void> {
    this.guard('remove a push delivery', () => this.push.remove.run(seq));
  }

  async close(): Promise<void> {
    await this.settled();
    await this.checkpointer?.close();
    this.db.close();
  }

  /** @internal Checkpoints made on the checkpointer thread so far (for tests). */
  get backgroundCheckpoints(): number {
    return this.checkpointer?.done ?? 0;
  }

  private catchUp(): void {
    try {
      this.db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // As SQLite's own checkpoints after a commit: a failure here loses nothing, and the
      // next one tries again.
    }
  }

  private write(task: Task, createdAt: string): void {
    this.upsert.run(...rowOf(task, null), createdAt);
  }

  /** Saves queued in this turn, keyed by id: a task saved twice keeps only its newest row. */
  private readonly pending = new Map<string, Row>();
  private committing: Promise<void> | undefined;
  private writeAllRows: ((rows: Row[], createdAt: string) => void) | undefined;

  /** Reads wait for a batch in flight, so a reader sees every save made before it. */
  private async settled(): Promise<void> {
    if (this.committing !== undefined) await this.committing.catch(() => {});
  }

  private writeAll(rows: Row[], createdAt: string): void {
    this.writeAllRows ??= this.db.transaction((batch: Row[], at: string) => {
      for (const row of batch) this.upsert.run(...row, at);
    });
    this.writeAllRows(rows, createdAt);
  }

  private listStatements(query: TaskQuery): { count: Statement; rows: Statement } {
    const where: string[] = [];
    if (query.owner !== undefined) where.push('owner = @owner');
    if (query.contextId) where.push('context_id = @contextId');
    if (query.state) where.push('state = @state');
    if (query.updatedAfter) where.push('status_timestamp >= @updatedAfter');
    const shape = `${where.join(' AND ')}|${query.pageToken ? 'after' : ''}`;
    let statements = this.listing.get(shape);
    if (statements === undefined) {
      const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
      // Strictly after the cursor in newest-first order. The `<=` is implied by the OR, and
      // is there so that SQLite can seek the index instead of scanning to the cursor.
      const page = query.pageToken
        ? `${filter ? `${filter} AND` : 'WHERE'} status_timestamp <= @afterTimestamp
           AND (status_timestamp < @afterTimestamp OR id > @afterId)`
        : filter;
      statements = {
        count: this.db.prepare(`SELECT count(*) FROM tasks ${filter}`).pluck(),
        rows: this.db.prepare(`SELECT json FROM tasks ${page} ${NEWEST_FIRST} LIMIT @limit`).pluck(),
      };
      this.listing.set(shape, statements);
    }
    return statements;
  }

  private guard<T>(doing: string, run: () => T): T {
    try {
      return run();
    } catch (err) {
      throw storeError(err, this.path, doing);
    }
  }
}

/** A task row but for created_at: id, context_id, state, status_timestamp, json, owner. */
type Row = [Buffer, Buffer, TaskState, Buffer, string, Buffer | null];

/** The task's row, its JSON a snapshot taken now. */
function rowOf(task: Task, owner: Buffer | null): Row {
  return [key(task.id), key(task.contextId), task.status.state, key(task.status.timestamp), JSON.stringify(task), owner];
}

function ownerKey(owner: string | undefined): Buffer | null {
  return owner === undefined ? null : key(owner);
}

/**
 * About how many WAL pages committing `rows` writes: a few index and table pages per row (ids
 * are random, so each lands on pages of its own), and the JSON itself.
 */
function walPagesOf(rows: readonly Row[]): number {
  let pages = 0;
  for (const row of rows) pages += 3 + (row[4].length >>> 12);
  return pages;
}

/** A string as UTF-16BE bytes, whose byte order is JavaScript's string order. */
function key(text: string): Buffer {
  return Buffer.from(text, 'utf16le').swap16();
}

/** The string `key` made the bytes of. */
function unkey(bytes: Buffer): string {
  return Buffer.from(bytes).swap16().toString('utf16le');
}

async function loadDriver(): Promise<typeof BetterSqlite3> {
  try {
    const { default: Driver } = await import('better-sqlite3');
    // The native addon loads on the first open; do it on a throwaway database, so that a
    // missing addon is told apart from a file that cannot be opened.
    new Driver(':memory:').close();
    return Driver;
  } catch (cause) {
    throw new LiteError(
      'IO_ERROR',
      'the SQLite task store needs the native module better-sqlite3, which is missing or failed to load; ' +
        'run with --store memory, or reinstall a2a-lite without --ignore-scripts',
      { reason: cause instanceof Error ? cause.message : String(cause) },
      { cause },
    );
  }
}

/** Refuses a folder by name (SQLite's own error is "unable to open"), and creates parents. */
function prepareLocation(path: string): void {
  if (path === ':memory:' || path === '') return;
  if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) {
    throw new LiteError('IO_ERROR', `the task store "${path}" is a folder; give the path of a file`, { path });
  }
  try {
    mkdirSync(dirname(path), { recursive: true });
    // Owner-only: tasks and webhook credentials are private. SQLite gives the -wal and -shm
    // files the mode of the database file, so creating it 0600 covers all three.
    closeSync(openSync(path, 'a', 0o600));
    chmodSync(path, 0o600);
  } catch (err) {
    throw new LiteError('IO_ERROR', `cannot create the task store "${path}"`, { path }, { cause: err });
  }
}

function migrate(db: Database, path: string): void {
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

/** SQLite's failures as LiteErrors; anything else (a bug, a LiteError) passes through. */
function storeError(err: unknown, path: string, doing: string): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return err;
  const message = `the task store "${path}" could not ${doing}: ${(err as Error).message}`;
  const details = { path, sqlite: code };
  if (/^SQLITE_(BUSY|LOCKED)/.test(code)) return new LiteError('LEDGER_BUSY', message, details, { cause: err });
  if (/^SQLITE_(CORRUPT|NOTADB)/.test(code)) return new LiteError('LEDGER_CORRUPT', message, details, { cause: err });
  return new LiteError('IO_ERROR', message, details, { cause: err });
}
