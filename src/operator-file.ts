// The one reader of the small files an operator names (token files, TLS certificates and keys,
// card signing keys): bounded, never blocking, and with errors that name the file and say what
// is wrong with it, never what it holds (it may be a secret).

import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { LiteError } from './errors.js';

/** What to read and how to speak of it. */
export interface OperatorFileOptions {
  /**
   * The file as the messages name it, path included: `the token file /etc/a2a/alice (--token-file
   * alice)`. Each message is this followed by what is wrong.
   */
  label: string;
  /** A file over this many bytes is refused unread. */
  maxBytes: number;
  /** Said after "is over N bytes", why such a file is wrong: `a token file holds one token`. */
  tooLargeHint?: string;
}

/** A file as read: its text (UTF-8) and its permission bits. */
export interface OperatorFile {
  text: string;
  mode: number;
}

/**
 * Reads the regular file at `path`, at most `maxBytes` of it. Throws LiteError whose message is
 * the label and what is wrong: FILE_NOT_FOUND when it does not exist; USAGE for a folder, a
 * named pipe, a device or a socket (never read: a pipe would hang, a device never end) and a
 * file over the limit (even one that grows while it is read); IO_ERROR when the system refuses
 * the read (its errno named).
 *
 * @example
 * const { text } = readOperatorFile(path, { label: `the key file ${path}`, maxBytes: 64 * 1024 });
 */
export function readOperatorFile(path: string, options: OperatorFileOptions): OperatorFile {
  const { label, maxBytes } = options;
  const tooLarge = (): LiteError => new LiteError('USAGE', `${label} is over ${maxBytes} bytes${options.tooLargeHint === undefined ? '' : `; ${options.tooLargeHint}`}`);
  let fd: number;
  try {
    // Without blocking: opening a named pipe with no writer must not hang the process.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new LiteError('FILE_NOT_FOUND', `${label} does not exist`);
    // A socket cannot be opened at all (ENXIO): say what it is rather than the errno.
    const kind = code === 'ENXIO' ? kindAt(path) : undefined;
    if (kind !== undefined) throw new LiteError('USAGE', `${label} is ${kind}`);
    throw new LiteError('IO_ERROR', `${label} cannot be read (${code ?? 'error'})`);
  }
  try {
    const stat = fstatSync(fd);
    const kind = notRegular(stat);
    if (kind !== undefined) throw new LiteError('USAGE', `${label} is ${kind}`);
    if (stat.size > maxBytes) throw tooLarge();
    // One byte more than the limit: a file that grew since the stat (or a /proc file, whose size
    // says 0) is caught by the read itself.
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    for (;;) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
      if (length > maxBytes) throw tooLarge();
    }
    return { text: buffer.subarray(0, length).toString('utf8'), mode: stat.mode & 0o777 };
  } catch (error) {
    if (error instanceof LiteError) throw error;
    throw new LiteError('IO_ERROR', `${label} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  } finally {
    closeSync(fd);
  }
}

/** What a file that is not a regular file is, in words, or undefined for a regular file. */
function notRegular(stat: Stats): string | undefined {
  if (stat.isFile()) return undefined;
  if (stat.isDirectory()) return 'a folder, not a file';
  if (stat.isFIFO()) return 'a named pipe, not a regular file';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device, not a regular file';
  if (stat.isSocket()) return 'a socket, not a regular file';
  return 'not a regular file';
}

function kindAt(path: string): string | undefined {
  try {
    return notRegular(statSync(path));
  } catch {
    return undefined;
  }
}
