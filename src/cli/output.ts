// Printing: results on stdout (readable text, or JSON with --json), notes and errors on
// stderr as one line each, never a stack trace for a user's mistake.

import { ERROR_TABLE, LiteError } from '../errors.js';
import type { Context } from './context.js';

export function printLine(context: Context, text = ''): void {
  context.stdout.write(`${text}\n`);
}

export function printJson(context: Context, value: unknown): void {
  context.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A remark that is not the result: goes to stderr so stdout stays clean for piping. */
export function note(context: Context, text: string): void {
  context.stderr.write(`note: ${text}\n`);
}

/** Prints `error` and returns the exit code it maps to. */
export function reportError(context: Context, error: unknown, json: boolean): number {
  const lite =
    error instanceof LiteError
      ? error
      : new LiteError('INTERNAL', `${(error as Error)?.message ?? String(error)} (please report this with the command that caused it)`);
  if (json) context.stderr.write(`${JSON.stringify({ error: lite.toJSON() })}\n`);
  else context.stderr.write(`a2a-lite: ${lite.code}: ${lite.message}\n`);
  if (!(error instanceof LiteError) && context.env.A2A_LITE_DEBUG) context.stderr.write(`${(error as Error)?.stack ?? ''}\n`);
  return ERROR_TABLE[lite.code].exit;
}

/** Pads columns for a plain-text table. */
export function table(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, displayWidth(cell))));
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - displayWidth(cell))))
      .join('  ')
      .trimEnd(),
  );
}

/** Width on a terminal: CJK and full-width characters take two columns. */
function displayWidth(text: string): number {
  let width = 0;
  for (const char of text) width += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u.test(char) ? 2 : 1;
  return width;
}
