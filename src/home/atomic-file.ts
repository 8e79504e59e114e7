// Crash-safe file writes: write a temporary file beside the target, flush it to disk, then
// rename (replace) or link (create only if absent) it into place. Readers never see half a file.

import { writeFile, rename } from 'node:fs/promises';
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { LiteError } from '../errors.js';

let counter = 0;

/**
 * `durable: false` leaves out the flush to disk: the file is still whole or absent after the
 * process is killed (the rename is atomic), and only a power cut may lose the newest version.
 * For state rewritten many times a second, where a flush per write would cost more than the work.
 */
export interface WriteOptions {
  durable?: boolean;
}

function writeTemp(target: string, data: string, options: WriteOptions = {}): string {
  const dir = dirname(target);
  counter += 1;
  const temp = join(dir, `.tmp-${process.pid}-${Date.now().toString(36)}-${counter}`);
  let fd: number;
  try {
    mkdirSync(dir, { recursive: true });
    fd = openSync(temp, 'wx', 0o600);
  } catch (error) {
    throw ioError('write', target, error);
  }
  try {
    writeSync(fd, data);
    if (options.durable !== false) fsyncSync(fd);
  } catch (error) {
    safeUnlink(temp);
    throw ioError('write', target, error);
  } finally {
    closeSync(fd);
  }
  return temp;
}

/** Replaces `target` with `data` atomically (last writer wins). */
export function writeFileAtomic(target: string, data: string, options: WriteOptions = {}): void {
  const temp = writeTemp(target, data, options);
  try {
    renameSync(temp, target);
  } catch (error) {
    safeUnlink(temp);
    throw ioError('write', target, error);
  }
}

/**
 * Replaces `target` with `data` atomically without blocking the event loop and without a flush
 * to disk (see WriteOptions): for state many tasks write at once. The folder must exist.
 */
export async function replaceFileSoon(target: string, data: string): Promise<void> {
  counter += 1;
  const temp = join(dirname(target), `.tmp-${process.pid}-${Date.now().toString(36)}-${counter}`);
  try {
    await writeFile(temp, data, { flag: 'wx', mode: 0o600 });
    await rename(temp, target);
  } catch (error) {
    safeUnlink(temp);
    throw ioError('write', target, error);
  }
}

/**
 * Creates `target` with `data` only if no file is there yet; returns false when another
 * writer created it first. The ledger's compare-and-swap.
 */
export function createFileAtomic(target: string, data: string, options: WriteOptions = {}): boolean {
  const temp = writeTemp(target, data, options);
  try {
    linkSync(temp, target);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw ioError('write', target, error);
  } finally {
    safeUnlink(temp);
  }
}

/** Reads and parses a JSON file; a missing file is `undefined`, a broken one `LEDGER_CORRUPT`. */
export function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw ioError('read', path, error);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new LiteError('LEDGER_CORRUPT', `${path} is not valid JSON; move it aside to continue`, { path });
  }
}

export function safeUnlink(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone: nothing to clean up.
  }
}

export function ioError(action: 'read' | 'write' | 'remove', path: string, error: unknown): LiteError {
  const code = (error as NodeJS.ErrnoException).code ?? 'unknown';
  return new LiteError('IO_ERROR', `could not ${action} ${path} (${code})`, { path, errno: code }, { cause: error });
}
