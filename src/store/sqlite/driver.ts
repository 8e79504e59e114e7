// The SQLite driver under the task store: better-sqlite3 where its native addon is built, else
// Node's own `node:sqlite` (Node ≥ 22.13 and 24, which OpenClaw requires), so that a package
// installed with `--ignore-scripts` still keeps its tasks. Both are seen through the small
// synchronous interface below, which is what the store uses of better-sqlite3.

import { createRequire } from 'node:module';
import { LiteError } from '../../errors.js';

export interface SqliteStatement {
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  /** Rows as their first column's value. */
  pluck(): SqliteStatement;
}

export interface SqliteTransaction<A extends unknown[], R> {
  (...args: A): R;
  /** Takes the write lock at BEGIN, so that two writers cannot both read and then both write. */
  immediate(...args: A): R;
}

export interface SqliteDatabase {
  readonly memory: boolean;
  readonly open: boolean;
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  /** `PRAGMA source`: its rows, or with `simple` the first column of the first row. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction<A extends unknown[], R>(run: (...args: A) => R): SqliteTransaction<A, R>;
  close(): void;
}

export type DriverName = 'better-sqlite3' | 'node:sqlite';

export interface Driver {
  name: DriverName;
  /** What the checkpointer thread loads: a module path, or `node:sqlite`. */
  module: string;
  open(path: string): SqliteDatabase;
}

/**
 * The driver to use: `$A2A_LITE_SQLITE` (`better-sqlite3` or `node:sqlite`) when set, else
 * better-sqlite3 if its addon loads, else node:sqlite if this Node has it. Throws IO_ERROR
 * saying how to get one when neither loads.
 */
export async function loadDriver(env: NodeJS.ProcessEnv = process.env): Promise<Driver> {
  const wanted = env.A2A_LITE_SQLITE;
  if (wanted !== undefined && wanted !== '' && wanted !== 'better-sqlite3' && wanted !== 'node:sqlite') {
    throw new LiteError('USAGE', `A2A_LITE_SQLITE is "${wanted}"; it names the SQLite driver: better-sqlite3 or node:sqlite`);
  }
  const reasons: string[] = [];
  for (const name of wanted ? [wanted] : (['better-sqlite3', 'node:sqlite'] as const)) {
    try {
      return name === 'better-sqlite3' ? await betterSqlite3() : await nodeSqlite();
    } catch (cause) {
      reasons.push(`${name}: ${cause instanceof Error ? cause.message.split('\n')[0] : String(cause)}`);
    }
  }
  throw new LiteError(
    'IO_ERROR',
    'the SQLite task store needs node:sqlite (built into Node 22.13 and later) or the native module better-sqlite3, and neither loads here; ' +
      'run Node 22.13 or later, reinstall a2a-lite without --ignore-scripts, or use --store memory',
    { reasons },
  );
}

async function betterSqlite3(): Promise<Driver> {
  const { default: Database } = await import('better-sqlite3');
  // The addon loads on the first open: do it on a throwaway database, so that a missing addon
  // is told apart from a file that cannot be opened.
  new Database(':memory:').close();
  return {
    name: 'better-sqlite3',
    module: createRequire(import.meta.url).resolve('better-sqlite3'),
    open: (path) => new Database(path) as unknown as SqliteDatabase,
  };
}

/** The part of `node:sqlite` used here (this package's @types/node is Node 20's, which has none). */
interface NodeSqliteModule {
  DatabaseSync: new (path: string) => NodeDatabase;
}
interface NodeDatabase {
  readonly isOpen: boolean;
  exec(sql: string): void;
  prepare(sql: string): NodeStatement;
  close(): void;
}
interface NodeStatement {
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  setAllowUnknownNamedParameters(enabled: boolean): void;
}

async function nodeSqlite(): Promise<Driver> {
  const specifier = 'node:sqlite';
  const { DatabaseSync } = (await import(specifier)) as NodeSqliteModule;
  return { name: 'node:sqlite', module: specifier, open: (path) => new NodeSqlite(new DatabaseSync(path), path) };
}

/** node:sqlite seen as better-sqlite3: plucked rows, `pragma`, and transactions that nest. */
class NodeSqlite implements SqliteDatabase {
  private depth = 0;

  constructor(
    private readonly db: NodeDatabase,
    private readonly path: string,
  ) {}

  get memory(): boolean {
    return this.path === ':memory:' || this.path === '';
  }

  get open(): boolean {
    return this.db.isOpen;
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }

  prepare(sql: string): SqliteStatement {
    const statement = this.db.prepare(sql);
    // As better-sqlite3 does: one params object may serve statements that use part of it.
    statement.setAllowUnknownNamedParameters(true);
    return wrap(statement, false);
  }

  pragma(source: string, options: { simple?: boolean } = {}): unknown {
    const rows = this.db.prepare(`PRAGMA ${source}`).all();
    return options.simple ? firstColumn(rows[0]) : rows;
  }

  transaction<A extends unknown[], R>(run: (...args: A) => R): SqliteTransaction<A, R> {
    const within = (begin: string) => (...args: A): R => {
      // Inside another transaction a savepoint stands for it, as better-sqlite3 does.
      const savepoint = this.depth > 0 ? `a2a_lite_${this.depth}` : undefined;
      this.db.exec(savepoint ? `SAVEPOINT ${savepoint}` : begin);
      this.depth += 1;
      try {
        const result = run(...args);
        this.db.exec(savepoint ? `RELEASE ${savepoint}` : 'COMMIT');
        return result;
      } catch (error) {
        try {
          this.db.exec(savepoint ? `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}` : 'ROLLBACK');
        } catch {
          // SQLite rolled back on its own (it does after some errors): the first error is the news.
        }
        throw error;
      } finally {
        this.depth -= 1;
      }
    };
    return Object.assign(within('BEGIN'), { immediate: within('BEGIN IMMEDIATE') });
  }

  close(): void {
    this.db.close();
  }
}

function wrap(statement: NodeStatement, plucked: boolean): SqliteStatement {
  return {
    run: (...params) => statement.run(...params),
    get: (...params) => (plucked ? firstColumn(statement.get(...params)) : statement.get(...params)),
    all: (...params) => (plucked ? statement.all(...params).map(firstColumn) : statement.all(...params)),
    pluck: () => wrap(statement, true),
  };
}

function firstColumn(row: unknown): unknown {
  return row === undefined || row === null ? undefined : Object.values(row as Record<string, unknown>)[0];
}
