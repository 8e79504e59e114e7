// Plan YAML, read by the `yaml` package (loaded only when a plan is YAML) under the YAML 1.2
// core schema. What a plan never needs is refused by name, with its line and column: anchors,
// aliases, tags, directives, a second document, a repeated key, nesting past 64 levels.

import type { CST, Document, LineCounter, Node as YamlNode } from 'yaml';
import { LiteError } from '../errors.js';

/** The most lists and mappings a plan may hold inside one another (the root counts as one). */
export const MAX_DEPTH = 64;

/** The longest key; YAML itself allows no longer implicit key. */
const MAX_KEY_CHARS = 1024;

/** How much the reader did before it answered: hostile text must be refused early. */
export interface YamlWork {
  /** Lexical tokens read. */
  lexemes: number;
  /** Parsed nodes walked. */
  nodes: number;
}

type Yaml = typeof import('yaml');

/** Lexemes that never belong in a plan: how each is named in the refusal, and what to do. */
const REFUSED: Partial<Record<CST.TokenType, string>> = {
  anchor: 'an anchor %s is not read in plan files; write the value out in full',
  alias: 'an alias %s is not read in plan files; write the value out in full',
  tag: 'a tag %s is not read in plan files; quote the value if it is text',
  'directive-line': 'a directive %s is not read in plan files; a plan is YAML 1.2 as it stands',
};

function fail(where: { line: number; col: number }, problem: string): LiteError {
  const at = `line ${where.line}, column ${where.col}`;
  return new LiteError('INVALID_PLAN', `plan: ${at}: ${problem}`, { path: at });
}

/** A piece of source fit to quote in an error: printable and short. */
function shown(source: string, max = 40): string {
  const text = source.replace(/[^\x20-\x7e]/g, '?');
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * The value a plan's YAML holds, as plain objects, lists and scalars (YAML 1.2 core schema:
 * `0x1F` is 31, `yes` is text). One document; an empty one is null.
 *
 * @example
 * await parsePlanYaml('steps:\n  - id: a\n    text: hi\n'); // { steps: [{ id: 'a', text: 'hi' }] }
 */
export async function parsePlanYaml(text: string, work: YamlWork = { lexemes: 0, nodes: 0 }): Promise<unknown> {
  const yaml = await import('yaml');
  const lines = new yaml.LineCounter();
  const tokens = cstOf(yaml, text, lines, work);
  const composer = new yaml.Composer({ version: '1.2', schema: 'core', uniqueKeys: false, merge: false, strict: true, intAsBigInt: false });
  const [doc] = [...composer.compose(tokens, true, text.length)] as Document.Parsed[];
  if (doc === undefined) return null;
  const [error] = doc.errors;
  if (error !== undefined) throw fail(lines.linePos(error.pos[0]), shown(error.message.replace(/\s+/g, ' '), 160).replace(/\.$/, ''));
  if (doc.contents === null) return null;
  checkNodes(yaml, doc.contents, lines, work);
  return doc.toJS({ maxAliasCount: 0 });
}

/**
 * The syntax tree of `text`, read one lexeme at a time so that a refused token, a second
 * document or nesting past the limit stops the reading where it is found.
 */
function cstOf(yaml: Yaml, text: string, lines: LineCounter, work: YamlWork): CST.Token[] {
  const parser = new yaml.Parser(lines.addNewLine);
  const tokens: CST.Token[] = [];
  let documents = 0;
  let inScalar = false;
  const take = (found: Iterable<CST.Token>): void => {
    for (const token of found) {
      if (token.type === 'document') documents += 1;
      tokens.push(token);
    }
  };
  lines.addNewLine(0);
  for (const lexeme of new yaml.Lexer().lex(text)) {
    work.lexemes += 1;
    const at = parser.offset;
    // After the scalar mark comes a scalar's own text, which is never a token.
    const type: CST.TokenType | null = inScalar ? 'scalar' : yaml.CST.tokenType(lexeme);
    inScalar = !inScalar && type === 'scalar';
    const refused = type === null ? undefined : REFUSED[type];
    if (refused !== undefined) throw fail(lines.linePos(at), refused.replace('%s', `(${shown(lexeme)})`));
    take(parser.next(lexeme));
    const open = parser.stack[0];
    if (documents > 0 && open?.type === 'document') throw fail(lines.linePos(open.offset), 'a second document; a plan file holds one');
    if (parser.stack.length > MAX_DEPTH) tooDeepOnStack(yaml, parser.stack, lines);
  }
  take(parser.end());
  return tokens;
}

/** Refuses the collections open while reading once there are more than the limit. */
function tooDeepOnStack(yaml: Yaml, stack: readonly CST.Token[], lines: LineCounter): void {
  const open = stack.filter((token) => yaml.CST.isCollection(token));
  const first = open[MAX_DEPTH];
  if (first !== undefined) throw fail(lines.linePos(first.offset), `nested deeper than ${MAX_DEPTH} levels`);
}

/**
 * Walks the parsed nodes (at most a little past the limit deep: the reading above stopped
 * anything deeper): nesting past the limit, keys that are not text, too long, or given twice.
 */
function checkNodes(yaml: Yaml, node: YamlNode, lines: LineCounter, work: YamlWork, depth = 1): void {
  work.nodes += 1;
  if (!yaml.isCollection(node)) return;
  const where = (at: YamlNode | null): { line: number; col: number } => lines.linePos(at?.range?.[0] ?? node.range?.[0] ?? 0);
  if (depth > MAX_DEPTH) throw fail(where(node), `nested deeper than ${MAX_DEPTH} levels`);
  if (yaml.isSeq(node)) {
    for (const item of node.items) if (yaml.isNode(item)) checkNodes(yaml, item, lines, work, depth + 1);
    return;
  }
  if (!yaml.isMap(node)) return;
  // One set per mapping: the library's own check compares every key with every other.
  const seen = new Set<string>();
  for (const pair of node.items) {
    const key = yaml.isNode(pair.key) ? pair.key : null;
    if (key !== null && !yaml.isScalar(key)) throw fail(where(key), 'a key must be text, not a list or a mapping');
    // The key the value will have in the object, as the library gives it.
    const name = key === null || key.value === null ? '' : String(key.value);
    if (name.length > MAX_KEY_CHARS) throw fail(where(key), `a key longer than ${MAX_KEY_CHARS} characters`);
    if (seen.has(name)) throw fail(where(key), `the key ${JSON.stringify(shown(name))} is given twice in this mapping`);
    seen.add(name);
    if (yaml.isNode(pair.value)) checkNodes(yaml, pair.value, lines, work, depth + 1);
  }
}
