// Opening the task store's SQLite file: the driver (loaded only here, so that a CLI without one
// parses and formats all the same), an owner-only file in WAL mode at the newest schema, and
// SQLite's failures as the LiteErrors a user can act on.

import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { LiteError } from '../../errors.js';
import { loadDriver, type Driver, type SqliteDatabase } from './driver.js';
import { migrate } from './schema.js';

/** How long a write waits for another process's write before giving up with LEDGER_BUSY. */
export const BUSY_TIMEOUT_MS = 5_000;

/**
 * Opens (creating if needed) the database at `path`, with its parent folders, configured and
 * migrated. Throws IO_ERROR when better-sqlite3 cannot load or the file cannot be opened, and
 * LEDGER_CORRUPT when the file is not a task store this version can read.
 */
export async function openDatabase(path: string): Promise<{ db: SqliteDatabase; driver: Driver }> {
  const driver = await loadDriver();
  prepareLocation(path);
  let db: SqliteDatabase;
  try {
    db = driver.open(path);
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
    return { db, driver };
  } catch (err) {
    db.close();
    throw storeError(err, path, 'be opened');
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

/** node:sqlite names a failure by SQLite's number; these are the ones told apart below. */
const PRIMARY_CODES: Readonly<Record<number, string>> = { 5: 'SQLITE_BUSY', 6: 'SQLITE_LOCKED', 11: 'SQLITE_CORRUPT', 26: 'SQLITE_NOTADB' };

/** SQLite's failures as LiteErrors; anything else (a bug, a LiteError) passes through. */
export function storeError(err: unknown, path: string, doing: string): unknown {
  const failure = err as { code?: unknown; errcode?: unknown } | null;
  const code = failure?.code === 'ERR_SQLITE_ERROR' && typeof failure.errcode === 'number' ? (PRIMARY_CODES[failure.errcode & 0xff] ?? 'SQLITE_ERROR') : failure?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return err;
  const message = `the task store "${path}" could not ${doing}: ${(err as Error).message}`;
  const details = { path, sqlite: code };
  if (/^SQLITE_(BUSY|LOCKED)/.test(code)) return new LiteError('LEDGER_BUSY', message, details, { cause: err });
  if (/^SQLITE_(CORRUPT|NOTADB)/.test(code)) return new LiteError('LEDGER_CORRUPT', message, details, { cause: err });
  return new LiteError('IO_ERROR', message, details, { cause: err });
}
