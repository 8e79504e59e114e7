// The TEXT argument shared by parse, validate and tasks record: given inline, or on stdin.

import { LiteError } from '../../errors.js';
import type { Context } from '../context.js';
import { readStdin } from '../input.js';

/** Returns TEXT from the arguments, else all of stdin; a terminal on stdin is a usage error. */
export async function messageText(command: string, positionals: string[], context: Context): Promise<string> {
  if (positionals.length > 1) {
    throw new LiteError('USAGE', `${command}: give the message as one argument (quote it) or on stdin`);
  }
  const [text] = positionals;
  if (text !== undefined && text !== '-') return text;
  if (context.stdin.isTTY) throw new LiteError('USAGE', `${command}: give the message as an argument or pipe it on stdin`);
  return readStdin(context, 'the message');
}
