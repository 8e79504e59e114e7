// Names for files that arrive from peers, unique within their folder, and the check that files
// sent out lie inside the task's folder. A peer's name never chooses a directory, a device, or a
// hidden file, and never replaces a file that is there.

import { lstatSync, realpathSync } from 'node:fs';
import { basename, extname, isAbsolute, relative, resolve, sep } from 'node:path';
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
 * Hands out names not yet taken in one folder: `a.txt`, then `a-1.txt`, `a-2.txt`, … Each name
 * remembers where its last search stopped, so N files of one name cost O(N) in all, not O(N²):
 * a peer sending thousands of parts named alike cannot make the server search for long.
 *
 * @example
 * const names = new UniqueNames(readdirSync(folder));   // what the folder already holds
 * names.take('a.txt');  // 'a.txt', or 'a-1.txt' when the folder held one
 */
export class UniqueNames {
  private readonly taken: Set<string>;
  /** The next suffix to try for each name asked for. */
  private readonly next = new Map<string, number>();
  private readonly first: number;

  /** `taken`: names already in use; `first`: the first suffix to try (1 gives `a-1.txt`). */
  constructor(taken: Iterable<string> = [], first = 1) {
    this.taken = new Set(taken);
    this.first = first;
  }

  /** A name like `name` that no earlier call gave and `taken` did not hold; now taken. */
  take(name: string): string {
    let candidate = name;
    let n = this.next.get(name) ?? this.first;
    while (this.taken.has(candidate)) {
      candidate = withSuffix(name, n);
      n += 1;
    }
    this.next.set(name, n);
    this.taken.add(candidate);
    return candidate;
  }
}

/** `report-2.md` for `report.md` and 2; a dot that starts the name is no extension. */
function withSuffix(name: string, n: number): string {
  const extension = extname(name);
  return `${name.slice(0, name.length - extension.length)}-${n}${extension}`;
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
