// Names for files that arrive from peers, and the check that files sent out lie inside the
// task's folder. A peer's name never chooses a directory, a device, or a hidden file.

import { lstatSync, realpathSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import { LiteError } from '../errors.js';

const RESERVED = /^(?:con|prn|aux|nul|com\d|lpt\d)(?:\..*)?$/i;
/** Controls, bidirectional overrides and zero-width characters that disguise a name. */
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
const MAX_NAME = 200;

/**
 * A safe file name for `name` as a peer gave it: the last path segment, without invisible or
 * reserved characters, not hidden, not a device name, at most 200 characters.
 *
 * @example
 * safeFileName('../../etc/passwd')  // 'passwd'
 * safeFileName('CON.txt')           // '_CON.txt'
 */
export function safeFileName(name: string): string {
  // NFKC first: full-width dots and slashes, and their look-alikes, become the characters they
  // stand for, so that no later conversion can turn a name into a path.
  let safe = name.normalize('NFKC').replace(INVISIBLE, '');
  safe = basename(safe.replace(/\\/g, '/'));
  safe = safe.replace(/[<>:"|?*]/g, '_').replace(/^[.\s]+|[.\s]+$/g, '');
  if (safe === '') safe = 'file';
  if (RESERVED.test(safe)) safe = `_${safe}`;
  if (safe.length > MAX_NAME) {
    const dot = safe.lastIndexOf('.');
    const extension = dot > 0 && safe.length - dot <= 16 ? safe.slice(dot) : '';
    safe = safe.slice(0, MAX_NAME - extension.length) + extension;
  }
  return safe;
}

/**
 * Resolves `name`, as a handler wrote it in a result, to a file inside `folder`. Refuses
 * absolute paths, paths that climb out, and symbolic links that lead out.
 */
export function fileInside(folder: string, name: string): string {
  if (name.includes('\0')) throw outside(name);
  if (isAbsolute(name)) throw outside(name);
  const root = realpathSync(folder);
  const candidate = resolve(root, name);
  const rel = relative(root, candidate);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw outside(name);
  let real: string;
  try {
    real = realpathSync(candidate);
  } catch {
    throw new LiteError('FILE_NOT_FOUND', `the result names ${JSON.stringify(name)}, which is not in the task folder`);
  }
  // A symbolic link inside the folder may still lead out of it: judge where it really goes.
  if (!real.startsWith(root + sep)) throw outside(name);
  if (!lstatSync(real).isFile()) throw new LiteError('FILE_NOT_FOUND', `${JSON.stringify(name)} is not a regular file`);
  return real;
}

function outside(name: string): LiteError {
  return new LiteError('INVALID_PARAMS', `the result names ${JSON.stringify(name)}, which lies outside the task folder`);
}
