// The YAML a plan is written in, read without a dependency: block mappings and lists, plain,
// quoted and block (| and >) scalars, one-line flow lists and mappings, and comments. Anchors,
// aliases, tags and several documents in one file are refused by name rather than misread; a
// plan never needs them. docs/orchestration.md says why this is not the full `yaml` package.

import { LiteError } from '../errors.js';

interface Line {
  /** 1-based, for errors. */
  no: number;
  indent: number;
  text: string;
}

/** The most nesting a plan file may have (a guard against deep input). */
const MAX_DEPTH = 64;

function fail(line: number, problem: string): LiteError {
  return new LiteError('INVALID_PLAN', `plan: line ${line}: ${problem}`, { path: `line ${line}` });
}

/**
 * The value a YAML document holds.
 *
 * @example
 * parseYaml('steps:\n  - id: a\n    text: hi\n'); // { steps: [{ id: 'a', text: 'hi' }] }
 */
export function parseYaml(source: string): unknown {
  const lines: Line[] = [];
  const raw = source.replace(/^\uFEFF/, '').split(/\r?\n/);
  raw.forEach((text, i) => {
    if (/\t/.test(/^[ \t]*/.exec(text)?.[0] ?? '')) throw fail(i + 1, 'indent with spaces, not tabs');
    const indent = text.length - text.trimStart().length;
    lines.push({ no: i + 1, indent, text: text.slice(indent) });
  });
  const reader = new Reader(lines);
  reader.skipBlank();
  if (reader.peek()?.text === '---') {
    reader.index += 1;
    reader.skipBlank();
  }
  const first = reader.peek();
  if (first === undefined) return null;
  const value = reader.block(first.indent, 0);
  reader.skipBlank();
  const rest = reader.peek();
  if (rest !== undefined) throw fail(rest.no, rest.text === '---' ? 'one document per plan file' : 'this line is indented differently from the lines above it');
  return value;
}

class Reader {
  index = 0;
  constructor(private readonly lines: Line[]) {}

  peek(): Line | undefined {
    return this.lines[this.index];
  }

  skipBlank(): void {
    while (this.index < this.lines.length && isBlank((this.lines[this.index] as Line).text)) this.index += 1;
  }

  /** The block starting at the current line, whose lines are indented `indent`. */
  block(indent: number, depth: number): unknown {
    if (depth > MAX_DEPTH) throw fail(this.peek()?.no ?? 0, `nested deeper than ${MAX_DEPTH} levels`);
    const line = this.peek() as Line;
    if (line.text === '-' || line.text.startsWith('- ')) return this.sequence(indent, depth);
    if (keyOf(line.text) !== undefined) return this.mapping(indent, depth);
    this.index += 1;
    return scalar(stripComment(line.text), line.no, depth);
  }

  private sequence(indent: number, depth: number): unknown[] {
    const out: unknown[] = [];
    for (;;) {
      this.skipBlank();
      const line = this.peek();
      if (line === undefined || line.indent < indent) return out;
      if (line.indent > indent) throw fail(line.no, 'this line is indented more than the list item above it');
      if (!(line.text === '-' || line.text.startsWith('- '))) return out;
      const rest = line.text.slice(1).trimStart();
      if (rest === '' || rest.startsWith('#')) {
        this.index += 1;
        out.push(this.nested(indent, depth));
      } else {
        // `- key: value` opens a mapping whose lines line up with `key`.
        const inner = line.indent + (line.text.length - rest.length);
        this.lines[this.index] = { no: line.no, indent: inner, text: rest };
        out.push(this.block(inner, depth + 1));
      }
    }
  }

  private mapping(indent: number, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (;;) {
      this.skipBlank();
      const line = this.peek();
      if (line === undefined || line.indent < indent) return { ...out };
      if (line.indent > indent) throw fail(line.no, 'this line is indented more than the key above it');
      const key = keyOf(line.text);
      if (key === undefined) {
        if (line.text === '-' || line.text.startsWith('- ') || line.text === '---') return { ...out };
        throw fail(line.no, 'expected "key: value"');
      }
      if (Object.hasOwn(out, key.key)) throw fail(line.no, `the key ${JSON.stringify(key.key)} is given twice`);
      this.index += 1;
      const rest = stripComment(key.rest);
      if (rest === '') out[key.key] = this.nested(indent, depth, true);
      else if (/^[|>][+-]?$/.test(rest)) out[key.key] = this.blockScalar(indent, rest);
      else out[key.key] = scalar(rest, line.no, depth);
    }
  }

  /** The value below a `key:` or a lone `-`: a more indented block, or null. */
  private nested(indent: number, depth: number, listMayAlign = false): unknown {
    this.skipBlank();
    const next = this.peek();
    if (next === undefined) return null;
    // YAML lets a list under a key sit at the key's own indent.
    if (next.indent > indent || (listMayAlign && next.indent === indent && (next.text === '-' || next.text.startsWith('- ')))) return this.block(next.indent, depth + 1);
    return null;
  }

  private blockScalar(indent: number, style: string): string {
    const body: string[] = [];
    let inner: number | undefined;
    while (this.index < this.lines.length) {
      const line = this.lines[this.index] as Line;
      if (!isBlankLine(line.text) && line.indent <= indent) break;
      if (!isBlankLine(line.text)) inner ??= line.indent;
      body.push(isBlankLine(line.text) ? '' : ' '.repeat(Math.max(0, line.indent - (inner ?? line.indent))) + line.text);
      this.index += 1;
    }
    while (body.length > 0 && body.at(-1) === '') body.pop();
    let text = style.startsWith('>') ? fold(body) : body.join('\n');
    if (!style.endsWith('-') && text !== '') text += '\n';
    return text;
  }
}

/** Folded lines (`>`): lines next to each other join with a space, an empty line is a line break. */
function fold(lines: readonly string[]): string {
  let out = '';
  lines.forEach((line, i) => {
    if (line === '') out += '\n';
    else out += (i > 0 && lines[i - 1] !== '' ? ' ' : '') + line;
  });
  return out;
}

function isBlank(text: string): boolean {
  return text === '' || text.startsWith('#');
}

function isBlankLine(text: string): boolean {
  return text.trim() === '';
}

/** `key: rest` when the line is a mapping entry (a quoted key allowed). */
function keyOf(text: string): { key: string; rest: string } | undefined {
  const quoted = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*')\s*:(?:\s+|$)(.*)$/.exec(text);
  if (quoted !== null) return { key: String(scalar(quoted[1] as string, 0, 0)), rest: quoted[2] as string };
  const plain = /^([^\s#'"[\]{},&*!|>%@`-][^:#]*?|-[^\s:#][^:#]*?)\s*:(?:\s+|$)(.*)$/.exec(text);
  return plain === null ? undefined : { key: plain[1] as string, rest: plain[2] as string };
}

/** The text before a comment (a `#` after a space, outside quotes). */
function stripComment(text: string): string {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quote !== undefined) {
      if (c === '\\' && quote === '"') i += 1;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || text[i - 1] === ' ')) return text.slice(0, i).trimEnd();
  }
  return text.trimEnd();
}

/** One value on one line: quoted, flow, or plain. */
function scalar(text: string, line: number, depth: number): unknown {
  const flow = new Flow(text, line, depth);
  const value = flow.value();
  flow.end();
  return value;
}

/** Reads a one-line value: `[a, b]`, `{k: v}`, quoted or plain scalars. */
class Flow {
  private at = 0;
  constructor(
    private readonly text: string,
    private readonly line: number,
    private readonly depth: number,
  ) {}

  end(): void {
    this.space();
    if (this.at < this.text.length) throw fail(this.line, `unexpected ${JSON.stringify(this.text.slice(this.at, this.at + 10))} after the value`);
  }

  value(level = 0, inFlow = false): unknown {
    if (this.depth + level > MAX_DEPTH) throw fail(this.line, `nested deeper than ${MAX_DEPTH} levels`);
    this.space();
    const c = this.text[this.at];
    if (c === '&' || c === '*' || c === '!') throw fail(this.line, 'anchors, aliases and tags (&, *, !) are not read in plan files; write the value out');
    if (c === '[') return this.list(level);
    if (c === '{') return this.map(level);
    if (c === '"' || c === "'") return this.quoted(c);
    const stop = inFlow ? /[,\]}]/ : /$^/;
    let end = this.at;
    while (end < this.text.length && !stop.test(this.text[end] as string) && !(inFlow && this.text[end] === ':' && /\s/.test(this.text[end + 1] ?? ' '))) end += 1;
    const word = this.text.slice(this.at, end).trim();
    this.at = end;
    return plain(word);
  }

  private list(level: number): unknown[] {
    this.at += 1;
    const out: unknown[] = [];
    for (;;) {
      this.space();
      if (this.text[this.at] === ']') {
        this.at += 1;
        return out;
      }
      out.push(this.value(level + 1, true));
      this.space();
      if (this.text[this.at] === ',') this.at += 1;
      else if (this.text[this.at] !== ']') throw fail(this.line, 'a flow list [a, b] is not closed on its line');
    }
  }

  private map(level: number): Record<string, unknown> {
    this.at += 1;
    const out: Record<string, unknown> = {};
    for (;;) {
      this.space();
      if (this.text[this.at] === '}') {
        this.at += 1;
        return out;
      }
      const key = String(this.value(level + 1, true));
      this.space();
      if (this.text[this.at] !== ':') throw fail(this.line, 'expected "key: value" inside { }');
      this.at += 1;
      Object.defineProperty(out, key, { value: this.value(level + 1, true), enumerable: true, writable: true, configurable: true });
      this.space();
      if (this.text[this.at] === ',') this.at += 1;
      else if (this.text[this.at] !== '}') throw fail(this.line, 'a flow mapping {k: v} is not closed on its line');
    }
  }

  private quoted(quote: string): string {
    let out = '';
    this.at += 1;
    while (this.at < this.text.length) {
      const c = this.text[this.at] as string;
      this.at += 1;
      if (quote === "'" && c === "'") {
        if (this.text[this.at] !== "'") return out;
        out += "'";
        this.at += 1;
      } else if (quote === '"' && c === '"') return out;
      else if (quote === '"' && c === '\\') out += this.escape();
      else out += c;
    }
    throw fail(this.line, `a quoted string is not closed with ${quote} on its line`);
  }

  private escape(): string {
    const c = this.text[this.at] ?? '';
    this.at += 1;
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\', '/': '/', '0': '\0', ' ': ' ' };
    if (simple[c] !== undefined) return simple[c];
    if (c === 'u' && /^[0-9a-fA-F]{4}$/.test(this.text.slice(this.at, this.at + 4))) {
      this.at += 4;
      return String.fromCharCode(parseInt(this.text.slice(this.at - 4, this.at), 16));
    }
    throw fail(this.line, `unknown escape \\${c} in a quoted string`);
  }

  private space(): void {
    while (this.text[this.at] === ' ') this.at += 1;
  }
}

/** A plain scalar: null, a boolean, a number, or text. */
function plain(word: string): unknown {
  if (word === '' || word === '~' || word === 'null' || word === 'Null' || word === 'NULL') return null;
  if (/^(true|True|TRUE)$/.test(word)) return true;
  if (/^(false|False|FALSE)$/.test(word)) return false;
  if (/^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(word)) return Number(word);
  return word;
}
