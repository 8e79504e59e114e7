// Keeps the layers of docs/architecture.md true: every import in src/ (static, dynamic or
// type-only) must be one the table allows, no two files may import each other in a cycle, every
// folder must be a layer the table names, no source file may grow past the limit (generated
// code aside), no source file imports an entry point (the files package.json `exports` names),
// and only net/ touches the network (node:http, node:https, fetch, the framing of server-sent
// events).

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(ROOT, 'src');
const MAX_LINES = 320;

/** The entry points' source files: each `exports` target, from dist/ back to src/. */
const ENTRIES = new Set(
  Object.values((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { import: string }> }).exports).map((entry) =>
    join(ROOT, entry.import.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')),
  ),
);

/** The may-import table of docs/architecture.md: layer → the layers it may import. */
function mayImport(): Map<string, Set<string>> {
  const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const start = doc.indexOf('## May import');
  const end = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, end === -1 ? undefined : end);
  const table = new Map<string, Set<string>>();
  for (const line of section.split('\n')) {
    const cells = /^\|([^|]*)\|([^|]*)\|$/.exec(line.trim());
    if (cells === null) continue;
    const layer = (cells[1] as string).trim();
    if (layer === 'layer' || /^-+$/.test(layer)) continue;
    const allowed = (cells[2] as string).split(',').map((name) => name.trim()).filter((name) => name !== '');
    table.set(layer, new Set(allowed));
  }
  return table;
}

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * The layer a file belongs to: its folder under src/ (a2a/ has two), `(root)` for the shared
 * files, `(entry)` for the entry points at the top of src/ (src/index.ts, src/server.ts, …).
 */
function layerOf(file: string): string {
  const parts = relative(SRC, file).split(sep);
  if (parts.length === 1) return ENTRIES.has(file) ? '(entry)' : '(root)';
  return parts[0] === 'a2a' ? `a2a/${parts[1]}` : (parts[0] as string);
}

/** Every file of ours that `file` imports, by static, dynamic or type-only import or re-export. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)) {
    found.push(normalize(join(dirname(file), (match[1] as string).replace(/\.js$/, '.ts'))));
  }
  return found;
}

const files = sourceFiles();
const graph = new Map(files.map((file) => [file, importsOf(file)]));
const table = mayImport();

describe('the layers of docs/architecture.md', () => {
  it('reads a table that names every layer', () => {
    expect([...table.keys()]).toEqual(expect.arrayContaining(['(root)', 'protocol', 'model', 'card', 'home', 'store', 'runtime', 'lite', 'a2a/wire', 'a2a/server', 'net', 'serve', 'client', 'cli']));
  });

  it('has every source folder as a layer of the table', () => {
    const layers = new Set(files.map(layerOf).filter((layer) => layer !== '(entry)'));
    expect([...layers].filter((layer) => !table.has(layer))).toEqual([]);
  });

  it('imports only what each layer may import', () => {
    const wrong: string[] = [];
    for (const [file, imports] of graph) {
      const from = layerOf(file);
      if (from === '(entry)') continue;
      for (const target of imports) {
        const to = layerOf(target);
        if (to !== from && !table.get(from)?.has(to)) wrong.push(`${relative(SRC, file)} (${from}) imports ${relative(SRC, target)} (${to})`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('imports no entry point from inside: the entries are the face, not a shortcut to it', () => {
    expect(ENTRIES.size).toBeGreaterThanOrEqual(7);
    const inward = [...graph].flatMap(([file, imports]) => imports.filter((target) => ENTRIES.has(target)).map((target) => `${relative(SRC, file)} → ${relative(SRC, target)}`));
    expect(inward).toEqual([]);
  });

  it('resolves every import to a file that exists', () => {
    const missing = [...graph].flatMap(([file, imports]) => imports.filter((target) => !graph.has(target) && !target.endsWith('.json') && !target.endsWith(sep)).map((target) => `${relative(SRC, file)} → ${relative(SRC, target)}`));
    expect(missing).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(cycles(graph).map((cycle) => cycle.map((file) => relative(SRC, file)).join(' → '))).toEqual([]);
  });

  it(`keeps every source file within ${MAX_LINES} lines, but generated code (the card validator, the gRPC messages)`, () => {
    const long = files
      .filter((file) => !file.endsWith('.generated.ts') && !relative(SRC, file).startsWith(join('grpc', 'gen') + sep))
      .map((file) => [relative(SRC, file), readFileSync(file, 'utf8').split('\n').length] as const)
      .filter(([, lines]) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });

  it('touches the network only in net/: node:http, node:https, fetch and event-stream framing appear nowhere else', () => {
    expect(networkOffences(new Map(files.map((file) => [relative(SRC, file), readFileSync(file, 'utf8')])))).toEqual([]);
  });

  it('finds each kind of network code planted outside net/, by file and line, and none in comments or in net/', () => {
    const planted = [
      "import http from 'node:http';",
      "import type { Agent } from 'https';",
      '// fetch(url) in a comment is no call',
      'const a = await fetch(url);',
      'const b = await globalThis.fetch(url, { redirect: "follow" });',
      'const c = (options.fetch ?? fetch)(url);',
      'const d = { fetch: options.fetch ?? fetch };',
      'res.write(`data: ${JSON.stringify(x)}\\n\\n`);',
      "const e = `id: ${n}\\nevent: ${type}\\n`;",
      "lines.filter((line) => line.startsWith('data:'));",
      "channel.push(': keep-alive\\n\\n');",
      "const f = await outboundFetch(guard)(url); const g = { fetch?: Fetch };",
    ].join('\n');
    expect(networkOffences(new Map([[join('hub', 'planted.ts'), planted], [join('net', 'fine.ts'), planted]]))).toEqual([
      "src/hub/planted.ts:1 imports node:http: from 'node:http'",
      "src/hub/planted.ts:2 imports node:https: from 'https'",
      'src/hub/planted.ts:4 calls fetch: fetch(',
      'src/hub/planted.ts:5 calls fetch: fetch(',
      'src/hub/planted.ts:6 calls fetch: fetch)(',
      'src/hub/planted.ts:6 hands on the global fetch: ?? fetch',
      'src/hub/planted.ts:7 hands on the global fetch: ?? fetch',
      'src/hub/planted.ts:8 frames server-sent events: `data:',
      'src/hub/planted.ts:9 frames server-sent events: `id:',
      'src/hub/planted.ts:9 frames server-sent events: \\nevent:',
      "src/hub/planted.ts:10 frames server-sent events: 'data:",
      "src/hub/planted.ts:11 frames server-sent events: ': keep-alive\\n\\n'",
    ]);
  });

  it('finds a cycle and an upward import when there is one', () => {
    const a = join(SRC, 'protocol', 'a.ts');
    const b = join(SRC, 'protocol', 'b.ts');
    expect(cycles(new Map([[a, [b]], [b, [a]]]))).toHaveLength(1);
    expect(table.get(layerOf(join(SRC, 'store', 'x.ts')))?.has(layerOf(join(SRC, 'a2a', 'wire', 'y.ts')))).toBe(false);
  });
});

/**
 * What only src/net/ may do, each found in a file's code (its comments left out): import
 * node:http or node:https, call fetch (the global, or any object's), hand the global fetch on
 * as a value, and write or read the lines of an event stream (`data:`, `event:`, `id:`,
 * `retry:` at the start of a string or after a line break, a string that is one `: comment`).
 */
const NETWORK_ONLY: readonly (readonly [what: string, pattern: RegExp])[] = [
  ['imports node:http', /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+|\brequire\s*\(\s*)['"](?:node:)?http['"]/gm],
  ['imports node:https', /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+|\brequire\s*\(\s*)['"](?:node:)?https['"]/gm],
  ['calls fetch', /(?<![\w$])fetch\s*\(|(?<![\w$.])fetch\s*\)\s*\(/g],
  ['hands on the global fetch', /(?:\?\?|\|\||[=:,(]|\breturn)\s*fetch(?![\w$])(?!\s*[?:])/g],
  ['frames server-sent events', /(?:['"`]|\\n)(?:data|event|id|retry):(?=[ '"`$\\])|['"`]: [^'"`\n]*\\n\\n['"`]/g],
];


/** `text` with its comments blanked out, line breaks kept, so that what is left is code and its line numbers hold. */
function codeOf(text: string): string {
  const blank = (comment: string): string => comment.replace(/[^\n]/g, ' ');
  return text.replace(/^\s*\/\*[\s\S]*?\*\//gm, blank).replace(/(^|\s)\/\/.*$/gm, (line, lead: string) => lead + blank(line.slice(lead.length)));
}

/** `file:line what` for everything in `sources` (path under src/ → text) that only net/ may do. */
function networkOffences(sources: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [path, text] of sources) {
    if (path.startsWith(`net${sep}`) || path.startsWith('net/')) continue;
    const code = codeOf(text);
    for (const [what, pattern] of NETWORK_ONLY) {
      for (const match of code.matchAll(pattern)) found.push(`src/${path.split(sep).join('/')}:${code.slice(0, match.index).split('\n').length} ${what}: ${match[0].trim()}`);
    }
  }
  return found;
}

/** The strongly connected components of more than one file (Tarjan), each a cycle of imports. */
function cycles(edges: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of edges.get(node) ?? []) {
      if (!edges.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) as number, low.get(target) as number));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) as number, index.get(target) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (edges.get(node) ?? []).includes(node)) found.push(component.reverse());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}
