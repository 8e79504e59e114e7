// The body of a message: separating attachment lines from it, its canonical form, and the
// one-backslash escape that keeps header-like body lines from being read as headers.

import { LiteError } from '../errors.js';
import { ATTACHMENT_LINE, isBlank, isSpecialLine, mayBeAttachment, normalizeLineEnds } from './lines.js';
import type { Message } from './types.js';

/** Separates attachment lines from the body and undoes the escape `format` puts on body lines. */
export function splitBody(lines: readonly string[]): Pick<Message, 'body' | 'attachments'> {
  const kept: string[] = [];
  const attachments: string[] = [];
  for (const line of lines) {
    const first = line.charCodeAt(0);
    if (mayBeAttachment(first)) {
      const match = ATTACHMENT_LINE.exec(line);
      if (match !== null) {
        // A loop, not push(...names): a hostile line may hold more names than a call takes arguments.
        for (const name of splitNames(match[1] as string)) attachments.push(name);
        continue;
      }
    }
    kept.push(first === 92 && isSpecialLine(line) ? line.slice(1) : line);
  }
  return { body: canonicalLines(kept), attachments };
}

/** The body as `parse` returns it: LF line ends, no leading blank lines, no trailing whitespace. */
export function canonicalBody(body: string): string {
  return canonicalLines(normalizeLineEnds(body).split('\n'));
}

/** Body lines as `format` writes them: header-like and attachment-like lines escaped. */
export function escapeBody(body: string): string[] {
  if (body === '') return [];
  return body.split('\n').map((line) => (isSpecialLine(line) ? `\\${line}` : line));
}

function canonicalLines(lines: readonly string[]): string {
  let start = 0;
  while (start < lines.length && isBlank(lines[start] as string)) start += 1;
  return (start === 0 ? lines : lines.slice(start)).join('\n').trimEnd();
}

/** Splits `a.md, "b, c.pdf"、d.png` into names; double quotes protect separators. */
export function splitNames(list: string): string[] {
  const names: string[] = [];
  let current = '';
  let quoted = false;
  const flush = (): void => {
    const name = current.trim();
    if (name !== '') names.push(name);
    current = '';
  };
  for (let i = 0; i < list.length; i += 1) {
    const c = list[i] as string;
    if (quoted) {
      if (c === '\\' && (list[i + 1] === '"' || list[i + 1] === '\\')) {
        current += list[i + 1];
        i += 1;
      } else if (c === '"') quoted = false;
      else current += c;
    } else if (c === '"') quoted = true;
    else if (c === ',' || c === '，' || c === '、' || c === ';' || c === '；') flush();
    else current += c;
  }
  flush();
  return names;
}

/** Writes one attachment name, quoted when it holds a separator or a quote. */
export function formatName(name: string): string {
  if (name.trim() === '' || /[\r\n]/.test(name) || name !== name.trim()) {
    throw new LiteError('INVALID_MESSAGE', `attachment name ${JSON.stringify(name)} must be one trimmed, non-empty line`);
  }
  if (!/[,，、;；"]/.test(name)) return name;
  return `"${name.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
