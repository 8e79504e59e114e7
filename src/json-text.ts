// JSON text from a user or a peer, parsed with an error that names the source and the place of
// a syntax error, never the text itself (it may hold a secret).

import { LiteError } from './errors.js';

/** Parses JSON text, naming the source and the position of a syntax error. */
export function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    const where = position === undefined ? '' : ` (${lineAndColumn(text, Number(position))})`;
    throw new LiteError('INVALID_JSON', `${source} is not valid JSON${where}`);
  }
}

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `line ${line}, column ${offset - before.lastIndexOf('\n')}`;
}
