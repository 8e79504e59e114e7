// Tokens in files (`--token-file NAME=PATH`, `--auth-bearer-file NAME=PATH`,
// `--auth-api-key-file NAME=PATH`): each file holds one token of the principal NAME, and is read
// again on SIGHUP, so that a token can be rotated or withdrawn without a restart. A file that
// cannot be read at start is a usage error naming it; on a reread, that name keeps the token it
// had. An emptied file withdraws its token. A file's content is never printed.

import { resolve } from 'node:path';
import type { Credential } from '../a2a/server/auth.js';
import { LiteError } from '../errors.js';
import { readOperatorFile } from '../operator-file.js';

/** A file bigger than this is no token file. */
export const MAX_TOKEN_FILE_BYTES = 4096;

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

export interface TokenFile {
  /** The principal. */
  name: string;
  /** Absolute. */
  path: string;
  /** The option that named it, for messages: `--token-file`. */
  option: string;
}

/** Reads `NAME=PATH` pairs, each NAME once; PATH relative to `cwd`. */
export function parseTokenFiles(command: string, option: string, pairs: readonly string[] | undefined, cwd: string): TokenFile[] {
  const files: TokenFile[] = [];
  for (const pair of pairs ?? []) {
    const at = pair.indexOf('=');
    const name = at === -1 ? '' : pair.slice(0, at);
    const path = at === -1 ? '' : pair.slice(at + 1);
    if (at === -1 || path === '') throw new LiteError('USAGE', `${command}: ${option} takes NAME=PATH (the principal, then its token file), not ${JSON.stringify(pair.slice(0, 60))}`);
    if (!NAME.test(name)) throw new LiteError('USAGE', `${command}: ${option} ${JSON.stringify(name.slice(0, 60))}=…: a principal's name is 1 to 64 letters, digits, '_', '.' or '-'`);
    if (path.includes('\u0000')) throw new LiteError('USAGE', `${command}: ${option} ${name}=…: the path holds a NUL character`);
    if (files.some((file) => file.name === name)) throw new LiteError('USAGE', `${command}: ${option} names ${name} twice; one principal has one token file`);
    files.push({ name, path: resolve(cwd, path), option });
  }
  return files;
}

/** A token as read from its file: '' when the file is empty; whether others may read the file. */
export interface ReadToken {
  token: string;
  /** Readable by the file's group or by others (mode & 0o044). */
  shared: boolean;
  mode: number;
}

/**
 * Reads the token in `file`: one token, trimmed, of characters a header can carry. Throws
 * LiteError naming the file and what is wrong with it, never its content: FILE_NOT_FOUND for
 * a file that is not there, IO_ERROR for one the system will not let us read, USAGE for
 * anything else (a folder, a pipe, too big, two tokens).
 */
export function readTokenFile(file: TokenFile): ReadToken {
  const where = `the token file ${file.path} (${file.option} ${file.name})`;
  const { text, mode } = readOperatorFile(file.path, { label: where, maxBytes: MAX_TOKEN_FILE_BYTES, tooLargeHint: 'a token file holds one token' });
  const token = text.trim();
  if (/\s/.test(token)) throw new LiteError('USAGE', `${where} holds more than one word; a token file holds one token`);
  if (token.includes(',')) throw new LiteError('USAGE', `${where} holds a comma; a token file holds one token`);
  if (token !== '' && !/^[\x21-\x7e]+$/.test(token)) throw new LiteError('USAGE', `${where} holds characters a request header cannot carry`);
  return { token, shared: (mode & 0o044) !== 0, mode };
}

/** The warning for a token file that others may read, or undefined. */
export function sharedWarning(file: TokenFile, read: ReadToken): string | undefined {
  if (!read.shared) return undefined;
  return `a2a-lite: warning: the token file ${file.path} (${file.name}) is readable by its group or by others (mode ${read.mode.toString(8).padStart(4, '0')}); chmod 600 it`;
}

/** A credential per file, read at start: any file that cannot be read, or is empty, is USAGE. */
export function firstRead(command: string, files: readonly TokenFile[], warn: (line: string) => void): Credential[] {
  return files.map((file) => {
    let read: ReadToken;
    try {
      read = readTokenFile(file);
    } catch (error) {
      throw error instanceof LiteError && error.code !== 'USAGE' ? new LiteError('USAGE', `${command}: ${error.message}`) : prefixed(command, error);
    }
    if (read.token === '') throw new LiteError('USAGE', `${command}: the token file ${file.path} (${file.option} ${file.name}) is empty`);
    const warning = sharedWarning(file, read);
    if (warning !== undefined) warn(warning);
    return { principal: file.name, secret: read.token };
  });
}

function prefixed(command: string, error: unknown): LiteError {
  return error instanceof LiteError ? new LiteError(error.code, `${command}: ${error.message}`) : new LiteError('USAGE', `${command}: ${String(error)}`);
}
