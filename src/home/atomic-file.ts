// Crash-safe file writes: write a temporary file beside the target, flush it to disk, then
// rename (replace) or link (create only if absent) it into place. Readers never see half a file.

import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { LiteError } from '../errors.js';

let counter = 0;

function writeTemp(target: string, data: string): string {
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
    fsyncSync(fd);
  } catch (error) {
    safeUnlink(temp);
    throw ioError('write', target, error);
  } finally {
    closeSync(fd);
  }
  return temp;
}

/** Replaces `target` with `data` atomically (last writer wins). */
export function writeFileAtomic(target: string, data: string): void {
  const temp = writeTemp(target, data);
  try {
    renameSync(temp, target);
  } catch (error) {
    safeUnlink(temp);
    throw ioError('write', target, error);
  }
}

/**
 * Creates `target` with `data` only if no file is there yet; returns false when another
 * writer created it first. The ledger's compare-and-swap.
 */
export function createFileAtomic(target: string, data: string): boolean {
  const temp = writeTemp(target, data);
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
