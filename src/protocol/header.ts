// Reads one `[A2A:<type> k=v …]` header: the tag, the type and the parameters, with quoted
// values. Scans characters once; no regular expression can backtrack on hostile input.

import type { ParseWarning } from './types.js';

/** What `readHeader` found on a header line. */
export interface Header {
  type: string;
  params: Record<string, string>;
  /** Text after the closing bracket on the same line: the first line of the body. */
  rest: string;
}

type Warn = (warning: ParseWarning) => void;

const FULLWIDTH_SPACE = '\u3000';

const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === FULLWIDTH_SPACE;
const isClose = (c: string | undefined): boolean => c === ']' || c === '］';
const isEquals = (c: string | undefined): boolean => c === '=' || c === '＝';

/** Quote pairs a value may be wrapped in; the curly ones are a repair. */
const CLOSING_QUOTE: Readonly<Record<string, string>> = { '"': '"', '“': '”', '”': '”', '「': '」' };

/**
 * Reads the header that starts at `line[start]` (an opening bracket). The caller has already
 * checked that `[A2A:` (in some spelling) follows. Never throws.
 */
export function readHeader(line: string, start: number, warn: Warn): Header {
  let i = start;
  const fullwidth = new Set<string>();
  if (line[i] === '［') fullwidth.add('［');
  i += 1;
  let spaced = false;
  const skipSpaces = (): void => {
    const from = i;
    while (isSpace(line[i])) i += 1;
    if (i > from) spaced = true;
  };
  skipSpaces();
  const tag = line.slice(i, i + 3);
  if (tag !== 'A2A') {
    warn({ code: 'TAG_CASE_NORMALIZED', message: `tag "${tag}" read as "A2A"` });
  }
  i += 3;
  skipSpaces();
  if (line[i] === '：') fullwidth.add('：');
  i += 1;
  skipSpaces();

  const typeStart = i;
  while (i < line.length && !isSpace(line[i]) && !isClose(line[i])) i += 1;
  const rawType = line.slice(typeStart, i);
  const type = rawType.toLowerCase();
  if (type !== rawType) {
    warn({ code: 'TYPE_CASE_NORMALIZED', message: `type "${rawType}" read as "${type}"` });
  }

  const params: Record<string, string> = {};
  let closed = false;
  while (i < line.length) {
    const c = line[i];
    if (isSpace(c)) {
      if (c === FULLWIDTH_SPACE) fullwidth.add(FULLWIDTH_SPACE);
      i += 1;
      continue;
    }
    if (isClose(c)) {
      if (c === '］') fullwidth.add('］');
      closed = true;
      i += 1;
      break;
    }
    const keyStart = i;
    while (i < line.length && !isSpace(line[i]) && !isClose(line[i]) && !isEquals(line[i])) i += 1;
    const key = line.slice(keyStart, i);
    let value = '';
    if (isEquals(line[i])) {
      if (line[i] === '＝') fullwidth.add('＝');
      i += 1;
      const read = readValue(line, i, warn);
      value = read.value;
      i = read.end;
    } else {
      warn({ code: 'PARAM_WITHOUT_VALUE', message: `parameter "${key}" has no "=value"; read as empty` });
    }
    if (Object.hasOwn(params, key)) {
      warn({
        code: 'DUPLICATE_PARAM',
        message: `parameter "${key}" appears twice; kept "${params[key]}", set aside "${value}"`,
      });
    } else {
      // defineProperty, not assignment: a key such as "__proto__" must stay an ordinary param.
      Object.defineProperty(params, key, { value, enumerable: true, writable: true, configurable: true });
    }
  }

  if (!closed) warn({ code: 'UNCLOSED_HEADER', message: 'the header has no closing "]"; read to the end of the line' });
  if (spaced) warn({ code: 'WHITESPACE_TRIMMED', message: 'spaces inside the "[A2A:" tag were ignored' });
  if (fullwidth.size > 0) {
    warn({
      code: 'FULLWIDTH_NORMALIZED',
      message: `full-width ${[...fullwidth].map((c) => (c === FULLWIDTH_SPACE ? 'space' : `"${c}"`)).join(', ')} read as ASCII`,
    });
  }
  return { type, params, rest: line.slice(i).trimStart() };
}

/** Reads a parameter value at `line[i]`: quoted (with `\"` and `\\` escapes) or bare. */
function readValue(line: string, i: number, warn: Warn): { value: string; end: number } {
  const open = line[i];
  const close = open === undefined ? undefined : CLOSING_QUOTE[open];
  if (close === undefined) {
    const start = i;
    while (i < line.length && !isSpace(line[i]) && !isClose(line[i])) i += 1;
    return { value: line.slice(start, i), end: i };
  }
  if (open !== '"') {
    warn({ code: 'SMART_QUOTES_NORMALIZED', message: `value quoted with ${open}…${close} read as "…"` });
  }
  let value = '';
  let j = i + 1;
  while (j < line.length) {
    const c = line[j];
    if (c === '\\' && (line[j + 1] === '"' || line[j + 1] === '\\')) {
      value += line[j + 1];
      j += 2;
      continue;
    }
    if (c === close || (open !== '"' && c === '"')) return { value, end: j + 1 };
    value += c;
    j += 1;
  }
  // No closing quote: take the rest of the line, less a final bracket that closes the header.
  warn({ code: 'UNTERMINATED_QUOTE', message: 'a quoted value has no closing quote; read to the end of the line' });
  let k = line.length;
  while (k > i + 1 && isSpace(line[k - 1])) k -= 1;
  const stop = k > i + 1 && isClose(line[k - 1]) ? k - 1 : line.length;
  return { value: line.slice(i + 1, stop).replace(/\\(["\\])/g, '$1'), end: stop };
}
