// Finds A2A-Lite messages in chat text: splits the text at header lines, reads each header,
// separates the body from its attachment lines, and reports every repair as a warning.
// Never throws: text that holds no header is a `plain` message.

import { splitBody } from './body.js';
import { readHeader } from './header.js';
import { closesFence, FENCE_LINE, headerStart, isBlank, isHeaderLine, isMentionsOnly, mayBeFence, mayStartHeader, normalizeLineEnds } from './lines.js';
import type { ParsedMessage, ParseWarning } from './types.js';

interface Fence {
  marker: string;
}

interface Segment {
  start: number;
  end: number;
  header: boolean;
  fenced: boolean;
}

/**
 * Parses the first A2A-Lite message in `text`. Text before it and messages after it are
 * reported as warnings (`LEADING_TEXT`, `MORE_MESSAGES`); use `parseAll` to get every one.
 *
 * @example
 * parse('[A2A:task id=research-001 skill=research]\n帮我调研一下…')
 * // → { type: 'task', params: { id: 'research-001', skill: 'research' }, body: '帮我调研一下…', … }
 */
export function parse(text: string): ParsedMessage {
  const messages = parseAll(text);
  const index = messages.findIndex((m) => m.type !== 'plain');
  if (index === -1) return messages[0] ?? plainMessage('', []);
  const chosen = messages[index] as ParsedMessage;
  const before = messages.slice(0, index);
  const after = messages.length - index - 1;
  if (before.length > 0) {
    const leading = before.map((m) => m.body).join('\n');
    chosen.warnings.push({ code: 'LEADING_TEXT', message: `text before the header was set aside: ${quote(leading)}` });
  }
  if (after > 0) {
    chosen.warnings.push({
      code: 'MORE_MESSAGES',
      message: `the text holds ${after} more message${after === 1 ? '' : 's'} after this one; parse them all with parseAll (CLI: --all)`,
    });
  }
  return chosen;
}

/**
 * Parses every message in `text`, in order. A chat message may carry several protocol
 * messages, and plain text between them comes back as `plain` messages, so nothing is lost.
 */
export function parseAll(text: string): ParsedMessage[] {
  const shared: ParseWarning[] = [];
  let source = text;
  if (source.includes('\r\n')) {
    source = normalizeLineEnds(source);
    shared.push({ code: 'CRLF_NORMALIZED', message: 'CRLF line endings read as LF' });
  }
  const lines = source.split('\n');
  const out: ParsedMessage[] = [];
  let mentionsBefore = false;
  for (const part of segment(lines)) {
    if (!part.header) {
      const raw = lines.slice(part.start, part.end).join('\n');
      if (raw.trim() === '') continue;
      if (isMentionsOnly(raw)) {
        mentionsBefore = true;
        continue;
      }
      out.push(plainMessage(raw, []));
      continue;
    }
    const message = headerMessage(lines, part, shared.length === 0 ? [] : [...shared]);
    if (mentionsBefore) {
      message.warnings.unshift({ code: 'MENTION_STRIPPED', message: 'a leading @mention was removed' });
      mentionsBefore = false;
    }
    out.push(message);
  }
  if (out.length === 0 && text.trim() !== '') out.push(plainMessage(source, []));
  noteSurroundingSpace(source, out);
  return out;
}

/** Whitespace around the whole text is harmless but still a repair: say so on the nearest message. */
function noteSurroundingSpace(source: string, messages: ParsedMessage[]): void {
  const first = messages[0];
  const last = messages.at(-1);
  if (first !== undefined && first.type !== 'plain' && startsWithBlankLine(source)) {
    first.warnings.push({ code: 'WHITESPACE_TRIMMED', message: 'blank lines before the header were ignored' });
  }
  if (last !== undefined && last.type !== 'plain' && source.length > 0 && isBlank(source[source.length - 1] as string)) {
    last.warnings.push({ code: 'WHITESPACE_TRIMMED', message: 'whitespace after the message was ignored' });
  }
}

function startsWithBlankLine(source: string): boolean {
  if (source.charCodeAt(0) === 91) return false; // "[": the usual case, decided at once
  const newline = source.indexOf('\n');
  return newline !== -1 && isBlank(source.slice(0, newline));
}

/** Splits lines into runs that each start at a header line (or hold plain text). */
function segment(lines: string[]): Segment[] {
  const segments: Segment[] = [];
  let current: Segment = { start: 0, end: lines.length, header: false, fenced: false };
  let body: Fence | null = null;
  let wrap: Fence | null = null;
  const open = (start: number, header: boolean, fenced: boolean, endOfPrevious: number): void => {
    current.end = endOfPrevious;
    if (current.end > current.start || current.header) segments.push(current);
    current = { start, end: lines.length, header, fenced };
  };

  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] as string;
    const first = line.charCodeAt(0);
    if (body !== null) {
      if (mayBeFence(first) && closesFence(line, body.marker)) body = null;
      continue;
    }
    if (mayBeFence(first)) {
      const fence = FENCE_LINE.exec(line);
      if (fence !== null) {
        const marker = fence[1] as string;
        if (wrap !== null && closesFence(line, wrap.marker)) {
          open(i + 1, false, false, i);
          wrap = null;
          continue;
        }
        // A fence inside a message body belongs to that body (it may quote a header as an
        // example); only a fence before any header, or after plain text, wraps a message.
        const next = wrap === null && !current.header ? nextFilledLine(lines, i + 1) : -1;
        if (next !== -1 && isHeaderLine(lines[next] as string)) {
          open(next, true, true, i);
          wrap = { marker };
          i = next;
          continue;
        }
        body = { marker };
        continue;
      }
    }
    if (mayStartHeader(first) && isHeaderLine(line)) {
      open(i, true, wrap !== null, i);
    }
  }
  segments.push(current);
  return segments;
}

function headerMessage(lines: string[], segment: Segment, warnings: ParseWarning[]): ParsedMessage {
  const line = lines[segment.start] as string;
  const start = headerStart(line) as NonNullable<ReturnType<typeof headerStart>>;
  const indent = line.slice(0, start.mentions);
  const mentions = line.slice(start.mentions, start.bracket);
  if (mentions !== '') warnings.push({ code: 'MENTION_STRIPPED', message: `leading ${quote(mentions.trim())} was removed` });
  if (indent !== '') warnings.push({ code: 'WHITESPACE_TRIMMED', message: 'whitespace before the header was ignored' });
  if (segment.fenced) warnings.push({ code: 'CODE_FENCE_STRIPPED', message: 'the message was inside a Markdown code block' });
  const header = readHeader(line, start.bracket, (w) => warnings.push(w));
  const bodyLines = header.rest === '' ? lines.slice(segment.start + 1, segment.end) : [header.rest, ...lines.slice(segment.start + 1, segment.end)];
  const { body, attachments } = splitBody(bodyLines);
  return { type: header.type, params: header.params, body, attachments, warnings };
}

function plainMessage(raw: string, warnings: ParseWarning[]): ParsedMessage {
  const { body, attachments } = splitBody(raw.split('\n'));
  return { type: 'plain', params: {}, body, attachments, warnings };
}

function nextFilledLine(lines: readonly string[], from: number): number {
  for (let i = from; i < lines.length; i += 1) if (!isBlank(lines[i] as string)) return i;
  return -1;
}

function quote(text: string): string {
  const short = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return JSON.stringify(short);
}
