// Reads one `[A2A:<type> k=v …]` header: the tag, the type and the parameters, with quoted
// values. Scans character codes once; no regular expression can backtrack on hostile input.

import type { ParseWarning } from './types.js';

/** What `readHeader` found on a header line. */
export interface Header {
  type: string;
  params: Record<string, string>;
  /** Text after the closing bracket on the same line: the first line of the body. */
  rest: string;
}

type Warn = (warning: ParseWarning) => void;

const SPACE = 32;
const TAB = 9;
const FULL_SPACE = 0x3000;
const CLOSE = 93; // ]
const FULL_CLOSE = 0xff3d; // ］
const EQUALS = 61; // =
const FULL_EQUALS = 0xff1d; // ＝
const FULL_OPEN = 0xff3b; // ［
const FULL_COLON = 0xff1a; // ：
const QUOTE = 34; // "
const BACKSLASH = 92;

const isSpace = (c: number): boolean => c === SPACE || c === TAB || c === FULL_SPACE;
const isClose = (c: number): boolean => c === CLOSE || c === FULL_CLOSE;
const isEquals = (c: number): boolean => c === EQUALS || c === FULL_EQUALS;

/** Quote pairs a value may be wrapped in; all but the ASCII one are a repair. */
const CLOSING_QUOTE: ReadonlyMap<number, number> = new Map([
  [QUOTE, QUOTE],
  [0x201c, 0x201d], // “ ”
  [0x201d, 0x201d], // ” ”
  [0x300c, 0x300d], // 「 」
]);

/**
 * A whole line that is one canonical header, as `format` writes it. Linear: a bare value holds
 * no space or bracket, a quoted one ends at its first unescaped quote, so nothing can backtrack.
 */
const CANONICAL = /^\[A2A:([a-z][a-z0-9_-]*)((?: [A-Za-z][A-Za-z0-9_.-]*=(?:"(?:[^"\\]|\\[^])*"|[^\s"“”「\]］][^\s\]］]*))*)\]$/;
const CANONICAL_PARAM = / ([A-Za-z][A-Za-z0-9_.-]*)=(?:"((?:[^"\\]|\\[^])*)"|([^\s\]］]+))/g;

/**
 * Reads the header that starts at `line[start]` (an opening bracket). The caller has already
 * checked that `[A2A:` (in some spelling) follows. Never throws.
 */
export function readHeader(line: string, start: number, warn: Warn): Header {
  return (start === 0 ? readCanonical(line) : undefined) ?? readAnyHeader(line, start, warn);
}

/**
 * The fast path for canonical text: the same result the general reader gives, or undefined
 * (then the general reader runs) for anything it does not cover, such as a repeated key.
 */
function readCanonical(line: string): Header | undefined {
  const match = CANONICAL.exec(line);
  if (match === null) return undefined;
  const params: Record<string, string> = {};
  const list = match[2] as string;
  if (list !== '') {
    CANONICAL_PARAM.lastIndex = 0;
    for (let param = CANONICAL_PARAM.exec(list); param !== null; param = CANONICAL_PARAM.exec(list)) {
      const key = param[1] as string;
      // A repeated key, or one an object inherits (constructor, toString): the general reader decides.
      if (params[key] !== undefined) return undefined;
      const quoted = param[2];
      params[key] = quoted === undefined ? (param[3] as string) : quoted.includes('\\') ? quoted.replace(/\\(["\\])/g, '$1') : quoted;
    }
  }
  return { type: match[1] as string, params, rest: '' };
}

/** The general reader: every spelling chat clients and models produce, each repair reported. */
export function readAnyHeader(line: string, start: number, warn: Warn): Header {
  const end = line.length;
  const fullwidth: string[] = [];
  let spaced = false;
  const skipSpaces = (from: number): number => {
    let at = from;
    while (at < end && isSpace(line.charCodeAt(at))) at += 1;
    if (at > from) spaced = true;
    return at;
  };
  let i = start;
  if (line.charCodeAt(i) === FULL_OPEN) fullwidth.push('"［"');
  i = skipSpaces(i + 1);
  if (line.charCodeAt(i) !== 65 || line.charCodeAt(i + 1) !== 50 || line.charCodeAt(i + 2) !== 65) {
    warn({ code: 'TAG_CASE_NORMALIZED', message: `tag "${line.slice(i, i + 3)}" read as "A2A"` });
  }
  i = skipSpaces(i + 3);
  if (line.charCodeAt(i) === FULL_COLON) fullwidth.push('"："');
  i = skipSpaces(i + 1);

  const typeStart = i;
  while (i < end && !isSpace(line.charCodeAt(i)) && !isClose(line.charCodeAt(i))) i += 1;
  const rawType = line.slice(typeStart, i);
  const type = rawType.toLowerCase();
  if (type !== rawType) warn({ code: 'TYPE_CASE_NORMALIZED', message: `type "${rawType}" read as "${type}"` });

  const params: Record<string, string> = {};
  let closed = false;
  while (i < end) {
    const c = line.charCodeAt(i);
    if (isSpace(c)) {
      if (c === FULL_SPACE && !fullwidth.includes('space')) fullwidth.push('space');
      i += 1;
      continue;
    }
    if (isClose(c)) {
      if (c === FULL_CLOSE) fullwidth.push('"］"');
      closed = true;
      i += 1;
      break;
    }
    const keyStart = i;
    while (i < end) {
      const k = line.charCodeAt(i);
      if (isSpace(k) || isClose(k) || isEquals(k)) break;
      i += 1;
    }
    const key = line.slice(keyStart, i);
    let value = '';
    // `id = 1` reads as `id=1`: look past spaces for the "=", and past spaces after it.
    let equals = i;
    while (equals < end && isSpace(line.charCodeAt(equals))) equals += 1;
    if (equals < end && isEquals(line.charCodeAt(equals))) {
      if (line.charCodeAt(equals) === FULL_EQUALS && !fullwidth.includes('"＝"')) fullwidth.push('"＝"');
      let start = equals + 1;
      while (start < end && isSpace(line.charCodeAt(start))) start += 1;
      if (start === end || isClose(line.charCodeAt(start))) start = equals + 1;
      if (equals > i || start > equals + 1) warn({ code: 'WHITESPACE_TRIMMED', message: `spaces around "=" after "${key}" were ignored` });
      const read = readValue(line, start, warn);
      value = read.value;
      i = read.end;
    } else {
      warn({ code: 'PARAM_WITHOUT_VALUE', message: `parameter "${key}" has no "=value"; read as empty` });
    }
    if (Object.hasOwn(params, key)) {
      warn({ code: 'DUPLICATE_PARAM', message: `parameter "${key}" appears twice; kept "${params[key]}", set aside "${value}"` });
    } else if (key === '__proto__') {
      // Assignment would set the prototype and drop the param: define it as an own property.
      Object.defineProperty(params, key, { value, enumerable: true, writable: true, configurable: true });
    } else {
      params[key] = value;
    }
  }

  if (!closed) warn({ code: 'UNCLOSED_HEADER', message: 'the header has no closing "]"; read to the end of the line' });
  if (spaced) warn({ code: 'WHITESPACE_TRIMMED', message: 'spaces inside the "[A2A:" tag were ignored' });
  if (fullwidth.length > 0) warn({ code: 'FULLWIDTH_NORMALIZED', message: `full-width ${fullwidth.join(', ')} read as ASCII` });
  let restStart = i;
  while (restStart < end && isSpace(line.charCodeAt(restStart))) restStart += 1;
  return { type, params, rest: restStart === end ? '' : line.slice(restStart).trimStart() };
}

/** Reads a parameter value at `line[i]`: quoted (with `\"` and `\\` escapes) or bare. */
function readValue(line: string, i: number, warn: Warn): { value: string; end: number } {
  const end = line.length;
  const open = line.charCodeAt(i);
  const close = CLOSING_QUOTE.get(open);
  if (close === undefined) {
    const start = i;
    while (i < end) {
      const c = line.charCodeAt(i);
      if (isSpace(c) || isClose(c)) break;
      i += 1;
    }
    return { value: line.slice(start, i), end: i };
  }
  if (open !== QUOTE) {
    warn({ code: 'SMART_QUOTES_NORMALIZED', message: `value quoted with ${line[i]}…${String.fromCharCode(close)} read as "…"` });
  }
  let value = '';
  let from = i + 1;
  for (let j = i + 1; j < end; j += 1) {
    const c = line.charCodeAt(j);
    if (c === BACKSLASH) {
      const next = line.charCodeAt(j + 1);
      if (next === QUOTE || next === BACKSLASH) {
        value += line.slice(from, j);
        from = j + 1;
        j += 1;
      }
      continue;
    }
    if (c === close || (open !== QUOTE && c === QUOTE)) return { value: value + line.slice(from, j), end: j + 1 };
  }
  // No closing quote: take the rest of the line, less a final bracket that closes the header.
  warn({ code: 'UNTERMINATED_QUOTE', message: 'a quoted value has no closing quote; read to the end of the line' });
  let k = end;
  while (k > i + 1 && isSpace(line.charCodeAt(k - 1))) k -= 1;
  const stop = k > i + 1 && isClose(line.charCodeAt(k - 1)) ? k - 1 : end;
  return { value: line.slice(i + 1, stop).replace(/\\(["\\])/g, '$1'), end: stop };
}
