// The OpenClaw/Clawdbot skill in skill/a2a-lite: its front matter, example card, reference and
// wrapper scripts must hold up against the real CLI, as an agent would use them.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkCard } from '../src/card/validate.js';
import { ERROR_TABLE } from '../src/errors.js';
import { isTerminal, nextStates, WIRE_STATES, type TaskState } from '../src/protocol/states.js';
import { TYPE_RULES } from '../src/protocol/validate.js';
import { BIN, cli } from './cli/run-cli.js';
import { tempHome } from './fixtures/home.js';

const SKILL = fileURLToPath(new URL('../skill/a2a-lite/', import.meta.url));
const read = (path: string): string => readFileSync(join(SKILL, path), 'utf8');
const skillMd = read('SKILL.md');
const spec = read('references/protocol-spec.md');

/** The `---` block of SKILL.md as single-line `key: value` pairs (what OpenClaw's fallback parser reads). */
function frontMatter(text: string): Record<string, string> {
  const lines = text.split('\n');
  expect(lines[0]).toBe('---');
  const end = lines.indexOf('---', 1);
  expect(end).toBeGreaterThan(1);
  const fields: Record<string, string> = {};
  for (const line of lines.slice(1, end)) {
    const match = /^([a-z][a-z0-9-]*): (.+)$/.exec(line);
    expect(match, `front matter line ${JSON.stringify(line)} is not a single-line key: value`).not.toBeNull();
    // A double-quoted YAML scalar without escapes reads as JSON does (the description must be
    // quoted: a plain scalar cannot start with "[").
    const value = match![2]!;
    fields[match![1]!] = value.startsWith('"') ? (JSON.parse(value) as string) : value;
  }
  return fields;
}

/** The lines of every fenced code block in a Markdown text. */
function codeBlockLines(text: string): string[] {
  return [...text.matchAll(/^```[^\n]*\n([\s\S]*?)^```$/gm)].flatMap((m) => m[1]!.split('\n'));
}

/** Rows of the Markdown table whose header row starts with `| first |`, as cells. */
function tableRows(text: string, first: string): string[][] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`| ${first} |`));
  expect(start, `table starting with "${first}"`).toBeGreaterThan(-1);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split('|').slice(1, -1).map((cell) => cell.trim()));
  }
  return rows;
}

const ticked = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

describe('SKILL.md front matter', () => {
  const fields = frontMatter(skillMd);

  it('names the skill and says when to use it, in what a compact catalog keeps', () => {
    expect(fields.name).toBe('a2a-lite');
    // OpenClaw cuts descriptions to 64-220 characters in compact mode: the trigger comes first.
    expect((fields.description as string).length).toBeLessThanOrEqual(200);
    expect(fields.description).toMatch(/^\[A2A/);
    for (const trigger of ['a2a', 'agent protocol', 'agent card', 'discover', 'delegate a task to another agent', 'A2A-Lite']) {
      expect(fields.description).toContain(trigger);
    }
  });

  it.each(['openclaw', 'clawdbot'])('metadata is one line of JSON whose %s key requires and installs the a2a-lite bin', (key) => {
    const metadata = JSON.parse(fields.metadata as string);
    expect(metadata[key].requires.bins).toEqual(['a2a-lite']);
    expect(metadata[key].install).toContainEqual({
      id: 'node',
      kind: 'node',
      // The package name is said once, in package.json; the skill installs that package.
      package: (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string }).name,
      bins: ['a2a-lite'],
      label: expect.stringMatching(/\S/),
    });
  });
});

describe('SKILL.md body', () => {
  const inlineSpans = [...skillMd.matchAll(/`(a2a-lite [^`]+)`/g)].map((m) => m[1]!);
  const commands = [...codeBlockLines(skillMd), ...inlineSpans].flatMap((line) =>
    [...line.matchAll(/(?:^|[|;&(]\s*)a2a-lite(?:\s+(\S+))?(?:\s+([a-z]+))?/g)].map((m) => ({ line, command: m[1], sub: m[2] })),
  );
  const subcommands: Record<string, readonly string[]> = {
    card: ['init', 'validate', 'show'],
    agents: ['add', 'list', 'show', 'remove'],
    tasks: ['new', 'record', 'list', 'show', 'get', 'cancel'],
  };

  it('shows plenty of commands', () => {
    expect(commands.length).toBeGreaterThan(25);
  });

  it('starts every a2a-lite command line, in code blocks and inline code, with a real command', () => {
    for (const { line, command, sub } of commands) {
      expect(['parse', 'format', 'validate', 'card', 'agents', 'tasks', 'discover', 'send', 'run', 'runs', 'demo'], line).toContain(command);
      const subs = subcommands[command as string];
      if (subs !== undefined) expect(subs, line).toContain(sub);
    }
  });

  it('uses only commands whose --help the CLI answers', () => {
    const distinct = new Set(commands.map(({ command, sub }) => (subcommands[command as string] ? `${command} ${sub}` : (command as string))));
    for (const words of distinct) {
      const result = cli([...words.split(' '), '--help']);
      expect(result.code, words).toBe(0);
      expect(result.stdout, words).toMatch(/^usage: a2a-lite /);
    }
  });

  it('points only at files the skill folder holds', () => {
    const paths = [...skillMd.matchAll(/\{baseDir\}\/([\w./-]+[\w])/g)].map((m) => m[1]!);
    expect(paths).toEqual(expect.arrayContaining(['scripts/parse_message.sh', 'scripts/format_message.sh', 'references/protocol-spec.md', 'agent-card.json']));
    for (const path of paths) expect(existsSync(join(SKILL, path)), path).toBe(true);
  });
});

describe('agent-card.json', () => {
  const card = JSON.parse(read('agent-card.json'));

  it('passes checkCard: schema, ids and no credentials', () => {
    expect(checkCard(card)).toEqual({ valid: true, errors: [] });
  });

  it('is a research agent with two skills', () => {
    expect(card.skills.map((s: { id: string }) => s.id)).toEqual(['research', 'summarize']);
  });

  it('passes the CLI too', () => {
    expect(cli(['card', 'validate', join(SKILL, 'agent-card.json')])).toMatchObject({ code: 0, stderr: '' });
  });
});

describe('references/protocol-spec.md', () => {
  it('lists each type with the parameters TYPE_RULES requires and allows', () => {
    const rows = tableRows(spec, 'type');
    expect(rows.map((cells) => ticked(cells[0]!)[0])).toEqual(Object.keys(TYPE_RULES));
    for (const [cell, , required, optional] of rows) {
      const rule = TYPE_RULES[ticked(cell!)[0] as keyof typeof TYPE_RULES];
      expect(ticked(required!), cell).toEqual(rule.required);
      expect(ticked(optional!), cell).toEqual(rule.optional);
    }
  });

  it('lists every state with its terminal flag', () => {
    const rows = tableRows(spec, 'state');
    expect(rows.map((cells) => ticked(cells[0]!)[0]).sort()).toEqual([...WIRE_STATES].sort());
    for (const [cell, , final] of rows) expect(final, cell).toBe(isTerminal(ticked(cell!)[0] as TaskState) ? 'yes' : 'no');
  });

  it('draws the transition table of states.ts', () => {
    const rows = tableRows(spec, 'from');
    const covered: string[] = [];
    for (const [from, to] of rows) {
      for (const state of ticked(from!)) {
        covered.push(state);
        expect(ticked(to!).sort(), state).toEqual([...nextStates(state as TaskState)].sort());
      }
    }
    expect(covered.sort()).toEqual(['submitted', ...WIRE_STATES].sort());
  });

  it('names every warning and problem code of protocol/types.ts', () => {
    const types = readFileSync(new URL('../src/protocol/types.ts', import.meta.url), 'utf8');
    const union = (name: string): string[] =>
      [...(new RegExp(`export type ${name} =([^;]+);`).exec(types)?.[1] ?? '').matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]!);
    const codes = [...union('WarningCode'), ...union('ProblemCode')];
    expect(codes.length).toBeGreaterThan(20);
    for (const code of codes) expect(spec, code).toContain(`\`${code}\``);
  });

  it('gives every error code its exit code', () => {
    const rows = tableRows(spec, 'exit');
    for (const [code, { exit }] of Object.entries(ERROR_TABLE)) {
      expect(rows.find(([, codes]) => ticked(codes!).includes(code))?.[0], code).toBe(String(exit));
    }
  });

  it('quotes the card schema as shipped', () => {
    const block = /```json\n(\{\n {2}"\$schema"[\s\S]*?)```/.exec(spec)?.[1];
    const shipped = readFileSync(new URL('../src/card/agent-card.schema.json', import.meta.url), 'utf8');
    expect(JSON.parse(block as string)).toEqual(JSON.parse(shipped));
  });
});

describe('scripts', () => {
  const PARSE = join(SKILL, 'scripts/parse_message.sh');
  const FORMAT = join(SKILL, 'scripts/format_message.sh');

  /** A folder holding an `a2a-lite` that runs the built CLI, as `npm install -g` would provide. */
  function shimPath(): string {
    const dir = tempHome('bin');
    const shim = join(dir, 'a2a-lite');
    writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(shim, 0o755);
    return `${dir}${delimiter}${process.env.PATH ?? ''}`;
  }

  /** Runs a shell script line with PARSE and FORMAT set, through a real /bin/sh. */
  function sh(script: string, path: string) {
    const result = spawnSync('/bin/sh', ['-c', script], {
      encoding: 'utf8',
      env: { ...process.env, PATH: path, PARSE, FORMAT },
      timeout: 30_000,
    });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  it.each([PARSE, FORMAT])('%s is executable', (script) => {
    expect(statSync(script).mode & 0o111).toBe(0o111);
  });

  it.each([
    [
      'parse via an argument',
      `"$PARSE" '[A2A:status task=research-001 state=working progress=50%]'`,
      (out: string) => expect(JSON.parse(out)).toMatchObject({ type: 'status', params: { task: 'research-001', progress: '50%' }, valid: true }),
    ],
    [
      'parse via a stdin pipe',
      `printf '%s\\n' '@Mexico [A2A:result task=email-001 state=completed]' '邮件已发送。' '[附件: receipt.txt]' | "$PARSE"`,
      (out: string) =>
        expect(JSON.parse(out)).toMatchObject({
          type: 'result',
          body: '邮件已发送。',
          attachments: ['receipt.txt'],
          warnings: [{ code: 'MENTION_STRIPPED' }],
        }),
    ],
    [
      'format with a body and an attachment',
      `"$FORMAT" result task=research-001 state=completed --body "调研报告已完成，见附件。" --attach report.md`,
      (out: string) => expect(out).toBe('[A2A:result task=research-001 state=completed]\n调研报告已完成，见附件。\n[附件: report.md]\n'),
    ],
  ])('pass %s through to the CLI', (_name, script, check) => {
    const result = sh(script, shimPath());
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    check(result.stdout);
  });

  it('pass the exit code of a refused format through', () => {
    const result = sh(`"$FORMAT" result task=t-1 state=working`, shimPath());
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('INVALID_MESSAGE: refused: a result must end the task');
  });

  it.each([
    [PARSE, 'parse_message.sh', ['[A2A:discover]']],
    [FORMAT, 'format_message.sh', ['discover']],
  ])('%s exits 127 with an install hint when a2a-lite is not on PATH', (script, name, args) => {
    const result = spawnSync(script, args, { encoding: 'utf8', env: { ...process.env, PATH: tempHome('empty') } });
    expect(result.status).toBe(127);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`${name}: a2a-lite is not on PATH; install it with: npm install -g a2a-lite\n`);
  });
});
