// README.md's library examples, kept true: every `ts` block typechecks against the built package,
// imported by its name as a user's project imports it (through a node_modules link to this folder,
// so package.json `exports` decides what resolves), and the story of "Use it as a library" — an
// agent served, a task sent to it, a hub it dials in to — runs as one program on 127.0.0.1, as
// does the agent served on all three bindings with push on, called on each.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
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
const bindings = blocksOf(/<!-- library-bindings -->\n([\s\S]*?)<!-- \/library-bindings -->/.exec(readme)?.[1] ?? '');
const alone = blocksOf(readme).filter((block) => !story.includes(block) && !bindings.includes(block));

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

/** Runs `program` (TypeScript) as a module of the user's project, in a process of its own. */
function runModule(name: string, program: string): SpawnSyncReturns<string> {
  const script = join(project, `${name}.mjs`);
  writeFileSync(script, ts.transpileModule(program, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText);
  return spawnSync(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(pathToFileURL(script).href)}); process.exit(0);`], {
    cwd: project,
    env: { ...process.env, A2A_LITE_HOME: join(project, 'home') },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

/**
 * What a client of the three-binding example sees: the card's interfaces, a task sent over
 * each with our client, and a webhook the JSON-RPC send names, posted to a receiver on
 * loopback; then the example's own `stop`.
 */
const BINDINGS_CHECK = `
import { fetchAgentCard, openTransport } from 'a2a-lite/client';
import { createServer } from 'node:http';

const { card } = await fetchAgentCard(http.url);
console.log(\`interfaces: \${card.interfaces.map((i) => \`\${i.binding} \${i.version} \${i.url}\`).join(', ')}; push \${card.pushNotifications}\`);
for (const target of card.interfaces) {
  const outcome = await openTransport(target).send({ messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text: \`over \${target.binding}\` }] });
  const said = outcome.kind === 'task' ? outcome.task.artifacts[0]?.parts[0] : undefined;
  console.log(\`\${target.binding}: \${outcome.kind === 'task' ? outcome.task.status.state : outcome.kind} \${said?.kind === 'text' ? said.text : ''}\`);
}
const posts: { token: string | undefined; body: string }[] = [];
const receiver = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk: Buffer) => (body += chunk.toString()));
  request.on('end', () => {
    posts.push({ token: request.headers['x-a2a-notification-token'] as string | undefined, body });
    response.end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const hook = \`http://127.0.0.1:\${(receiver.address() as { port: number }).port}/hook\`;
await fetch(\`\${http.url}/jsonrpc\`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hooked' }] }, configuration: { taskPushNotificationConfig: { url: hook, token: 'hook-token' } } } }),
});
for (let tries = 0; tries < 200 && !posts.some((post) => post.body.includes('TASK_STATE_COMPLETED')); tries += 1) await new Promise((resolve) => setTimeout(resolve, 25));
const last = posts.find((post) => post.body.includes('TASK_STATE_COMPLETED'));
console.log(\`webhook: \${last === undefined ? 'none' : 'TASK_STATE_COMPLETED'}\${last?.token === 'hook-token' ? ' with the token' : ''}\`);
receiver.close();
await stop();
console.log('stopped');
`;

describe("README's library examples", () => {
  it('finds the story (three blocks) and the examples around it', () => {
    expect(story).toHaveLength(3);
    expect(story.map((block) => /from '(a2a-lite\/\w+)'/.exec(block)?.[1])).toEqual(['a2a-lite/server', 'a2a-lite/client', 'a2a-lite/hub']);
    expect(alone.length).toBeGreaterThanOrEqual(4);
  });

  it('typecheck against the built package, imported by its name', () => {
    const files = Object.fromEntries([['story.mts', oneProgram(story)], ['bindings.mts', oneProgram([...bindings, BINDINGS_CHECK])], ...alone.map((block, index) => [`example-${index + 1}.mts`, block])]);
    expect(typeErrors(files)).toEqual([]);
  }, 60_000);

  it('finds the agent on three bindings, with push on', () => {
    expect(bindings).toHaveLength(1);
    expect(bindings[0]).toContain('serveGrpc(');
    expect(bindings[0]).toContain('startPushSender(');
  });

  it('run as written: the agent on three bindings answers on each, and its webhooks are sent', async () => {
    const [httpPort, grpcPort] = [String(await freePort()), String(await freePort())];
    const run = runModule('bindings', oneProgram([...bindings, BINDINGS_CHECK]).replaceAll('7331', httpPort).replaceAll('7332', grpcPort));
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines).toContain(`card at http://127.0.0.1:${httpPort}/.well-known/agent-card.json, gRPC at 127.0.0.1:${grpcPort}`);
    expect(lines).toContain(`interfaces: JSONRPC 1.0 http://127.0.0.1:${httpPort}/jsonrpc, HTTP+JSON 1.0 http://127.0.0.1:${httpPort}, GRPC 1.0 127.0.0.1:${grpcPort}, JSONRPC 0.3 http://127.0.0.1:${httpPort}/jsonrpc; push true`);
    for (const binding of ['JSONRPC', 'HTTP+JSON', 'GRPC']) expect(lines.filter((line) => line === `${binding}: completed echo: over ${binding}`)).toHaveLength(binding === 'JSONRPC' ? 2 : 1);
    expect(lines).toContain('webhook: TASK_STATE_COMPLETED with the token');
    expect(lines).toContain('stopped');
  }, 90_000);

  it('run as written: the agent answers, directly and through the hub it dialled in to', async () => {
    const [agentPort, hubPort] = [String(await freePort()), String(await freePort())];
    const run = runModule('story', oneProgram(story).replaceAll('7331', agentPort).replaceAll('7400', hubPort));
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines).toContain('completed echo: hello');
    expect(lines.some((line) => line.startsWith('[A2A:result ') && line.includes('state=completed'))).toBe(true);
    expect(lines.some((line) => line.startsWith('hub chose echo (Echo) for "echo"'))).toBe(true);
    expect(lines).toContain('completed echo: hello again');
  }, 90_000);
});
