// README.md's library examples, kept true: every `ts` block typechecks against the built package,
// imported by its name as a user's project imports it (through a node_modules link to this folder,
// so package.json `exports` decides what resolves), and the story of "Use it as a library" — an
// agent served, a task sent to it, a hub it dials in to — runs as one program on 127.0.0.1.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './declarations.js';
import { freePort } from './hub/hub-processes.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const blocksOf = (text: string): string[] => [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1] as string);
const story = blocksOf(/<!-- library-story -->\n([\s\S]*?)<!-- \/library-story -->/.exec(readme)?.[1] ?? '');
const alone = blocksOf(readme).filter((block) => !story.includes(block));

/** A user's project: a folder with the package in its node_modules. */
const project = mkdtempSync(join(tmpdir(), 'a2a-lite-readme-'));
mkdirSync(join(project, 'node_modules'));
symlinkSync(ROOT, join(project, 'node_modules', 'a2a-lite'), 'dir');
afterAll(() => {
  unlinkSync(join(project, 'node_modules', 'a2a-lite'));
  rmSync(project, { recursive: true, force: true });
});

/** The story's blocks as one module: their imports merged (a name imported twice, once), then their code in order. */
function oneProgram(blocks: readonly string[]): string {
  const imports = new Map<string, Set<string>>();
  const code: string[] = [];
  for (const block of blocks) {
    const source = ts.createSourceFile('block.ts', block, ts.ScriptTarget.ES2022);
    for (const statement of source.statements) {
      const bindings = ts.isImportDeclaration(statement) ? statement.importClause?.namedBindings : undefined;
      if (bindings !== undefined && ts.isNamedImports(bindings)) {
        const from = (statement as ts.ImportDeclaration).moduleSpecifier.getText(source);
        const names = imports.get(from) ?? new Set<string>();
        for (const element of bindings.elements) names.add(element.getText(source));
        imports.set(from, names);
      } else {
        code.push(statement.getFullText(source));
      }
    }
  }
  return [...[...imports].map(([from, names]) => `import { ${[...names].join(', ')} } from ${from};`), ...code].join('\n');
}

/** Compiler errors in `files` (name → text), checked as a strict ESM project that uses the package. */
function typeErrors(files: Record<string, string>): string[] {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(project, name), text);
  // What README's sketches leave to the reader, and nothing else.
  writeFileSync(join(project, 'sketch.d.ts'), "import type { LiteCard } from 'a2a-lite/server';\ndeclare global {\n  const card: LiteCard;\n  const bytes: Uint8Array;\n}\nexport {};\n");
  const roots = [...Object.keys(files), 'sketch.d.ts'].map((name) => join(project, name));
  const program = ts.createProgram(roots, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts'],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
    typeRoots: [join(ROOT, 'node_modules', '@types')],
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((diagnostic) => `${diagnostic.file?.fileName.slice(project.length + 1) ?? ''}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`);
}

describe("README's library examples", () => {
  it('finds the story (three blocks) and the examples around it', () => {
    expect(story).toHaveLength(3);
    expect(story.map((block) => /from '(a2a-lite\/\w+)'/.exec(block)?.[1])).toEqual(['a2a-lite/server', 'a2a-lite/client', 'a2a-lite/hub']);
    expect(alone.length).toBeGreaterThanOrEqual(4);
  });

  it('typecheck against the built package, imported by its name', () => {
    const files = Object.fromEntries([['story.mts', oneProgram(story)], ...alone.map((block, index) => [`example-${index + 1}.mts`, block])]);
    expect(typeErrors(files)).toEqual([]);
  }, 60_000);

  it('run as written: the agent answers, directly and through the hub it dialled in to', async () => {
    const [agentPort, hubPort] = [String(await freePort()), String(await freePort())];
    const program = oneProgram(story).replaceAll('7331', agentPort).replaceAll('7400', hubPort);
    const script = join(project, 'story.mjs');
    writeFileSync(script, ts.transpileModule(program, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText);
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(pathToFileURL(script).href)}); process.exit(0);`], {
      cwd: project,
      env: { ...process.env, A2A_LITE_HOME: join(project, 'home') },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines).toContain('completed echo: hello');
    expect(lines.some((line) => line.startsWith('[A2A:result ') && line.includes('state=completed'))).toBe(true);
    expect(lines.some((line) => line.startsWith('hub chose echo (Echo) for "echo"'))).toBe(true);
    expect(lines).toContain('completed echo: hello again');
  }, 90_000);
});
