// The SQLite TaskStore, the default store of `a2a-lite serve`: one `tasks` table in WAL mode,
// its schema versioned by `user_version`. better-sqlite3 is native and loaded only on open, so
// a CLI installed with --ignore-scripts still parses, formats and reads cards without it.

import type BetterSqlite3 from 'better-sqlite3';
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { LiteError } from '../errors.js';
import { INITIAL_STATE, WIRE_STATES, isTerminal, type TaskState } from '../protocol/states.js';
import type { Task } from '../runtime/task-model.js';
import {
  decodeCursor,
  encodeCursor,
  failInterrupted,
  pageSizeOf,
  type TaskPage,
  type TaskQuery,
  type TaskStore,
  type TaskStoreOptions,
} from './task-store.js';

type Database = BetterSqlite3.Database;
type Statement = BetterSqlite3.Statement;

/** How long a write waits for another process's write before giving up with LEDGER_BUSY. */
const BUSY_TIMEOUT_MS = 5_000;

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
export async function openSqliteTaskStore(path: string, options: TaskStoreOptions = {}): Promise<SqliteTaskStore> {
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
    return new SqliteTaskStore(db, path, options.now ?? (() => new Date()));
  } catch (err) {
    db.close();
    throw storeError(err, path, 'be opened');
  }
}

/** Tasks in a SQLite file; they survive restarts. Open one with `openSqliteTaskStore`. */
export class SqliteTaskStore implements TaskStore {
  private readonly upsert: Statement;
  private readonly selectOne: Statement;
  private readonly selectUnfinished: Statement;
  /** List statements by filter shape, prepared on first use. */
  private readonly listing = new Map<string, { count: Statement; rows: Statement }>();

  /** @internal Use `openSqliteTaskStore`, which configures and migrates `db` first. */
  constructor(
    private readonly db: Database,
    private readonly path: string,
    private readonly now: () => Date,
  ) {
    this.upsert = db.prepare(
      `INSERT INTO tasks (id, context_id, state, status_timestamp, created_at, json)
       VALUES (@id, @contextId, @state, @timestamp, @createdAt, @json)
       ON CONFLICT (id) DO UPDATE SET context_id = excluded.context_id, state = excluded.state,
         status_timestamp = excluded.status_timestamp, json = excluded.json`,
    );
    this.selectOne = db.prepare('SELECT json FROM tasks WHERE id = ?').pluck();
    this.selectUnfinished = db
      // By id: the order newestFirst gives them once they all share the recovery timestamp.
      .prepare(`SELECT json FROM tasks WHERE state NOT IN (${TERMINAL_STATES.map(() => '?').join(', ')}) ORDER BY id`)
      .pluck();
  }

  async save(task: Task): Promise<void> {
    this.guard('save a task', () => this.write(task, this.now().toISOString()));
  }

  async get(id: string): Promise<Task | undefined> {
    const json = this.guard('read a task', () => this.selectOne.get(key(id)) as string | undefined);
    return json === undefined ? undefined : (JSON.parse(json) as Task);
  }

  /** Filters and orders in SQL; the page token is the memory store's, a keyset cursor. */
  async list(query: TaskQuery = {}): Promise<TaskPage> {
    const size = pageSizeOf(query.pageSize);
    const after = query.pageToken ? decodeCursor(query.pageToken) : undefined;
    const params: Record<string, unknown> = { limit: size + 1 };
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
          for (const task of failed) this.write(task, timestamp);
          return failed;
        })
        .immediate(),
    );
  }

  async close(): Promise<void> {
    this.db.close();
  }

  private write(task: Task, createdAt: string): void {
    this.upsert.run({
      id: key(task.id),
      contextId: key(task.contextId),
      state: task.status.state,
      timestamp: key(task.status.timestamp),
      createdAt,
      json: JSON.stringify(task),
    });
  }

  private listStatements(query: TaskQuery): { count: Statement; rows: Statement } {
    const where: string[] = [];
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

/** A string as UTF-16BE bytes, whose byte order is JavaScript's string order. */
function key(text: string): Buffer {
  return Buffer.from(text, 'utf16le').swap16();
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
  } catch (err) {
    throw new LiteError('IO_ERROR', `cannot create the folder for the task store "${path}"`, { path }, { cause: err });
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
