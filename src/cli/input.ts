// Reading input: standard input (with a size limit) and files named on the command line.

import { fstatSync, readFileSync } from 'node:fs';
export { parseJson } from '../json-text.js';
import { LiteError } from '../errors.js';
import type { Context } from './context.js';

/** The most a command reads from stdin or a file: chat messages and cards are small. */
export const INPUT_LIMIT = 4 * 1024 * 1024;

/** Reads all of stdin as UTF-8, less one final newline (the shell's, not the message's). */
export async function readStdin(context: Context, what: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of context.stdin) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > INPUT_LIMIT) throw new LiteError('INPUT_TOO_LARGE', `${what} on stdin is over ${INPUT_LIMIT} bytes`);
    chunks.push(buffer);
  }
  return dropFinalNewline(Buffer.concat(chunks).toString('utf8'));
}

/**
 * True when stdin is a shell pipe or a redirected file. Sockets (a parent process's pipe),
 * terminals and /dev/null are not read unless asked for with `-`: an agent's shell may
 * leave such a stdin open forever.
 */
export function stdinIsPiped(context: Context): boolean {
  if (context.stdin.isTTY) return false;
  try {
    const stat = fstatSync(context.stdin.fd ?? 0);
    return stat.isFIFO() || stat.isFile();
  } catch {
    return false;
  }
}

/** Reads a text file named on the command line, or stdin for `-`. */
export async function readInput(context: Context, path: string, what: string): Promise<string> {
  if (path === '-') return readStdin(context, what);
  try {
    const buffer = readFileSync(path);
    if (buffer.length > INPUT_LIMIT) throw new LiteError('INPUT_TOO_LARGE', `${path} is over ${INPUT_LIMIT} bytes`);
    return buffer.toString('utf8');
  } catch (error) {
    if (error instanceof LiteError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new LiteError('FILE_NOT_FOUND', `${what}: no file ${path}`);
    throw new LiteError('IO_ERROR', `${what}: could not read ${path} (${code ?? 'unknown'})`);
  }
}

function dropFinalNewline(text: string): string {
  if (text.endsWith('\r\n')) return text.slice(0, -2);
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}
