import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../../test/fixtures/home.js';
import { resolveCommand } from './exec-command.js';

describe('the --exec command line', () => {
  const dir = (): string => {
    const root = tempHome('exec-cwd');
    mkdirSync(join(root, 'bin'));
    for (const name of ['agent.sh', 'agent.py', 'bin/run', "it's.sh", 'with space.sh']) writeFileSync(join(root, name), 'echo hi\n');
    chmodSync(join(root, 'agent.sh'), 0o755);
    return root;
  };

  it.each([
    ['./agent.sh', (d: string) => `'${d}/agent.sh'`],
    ['python3 agent.py --fast', (d: string) => `python3 '${d}/agent.py' --fast`],
    ['bin/run a b', (d: string) => `'${d}/bin/run' a b`],
    ["sh 'with space.sh'", (d: string) => `sh '${d}/with space.sh'`],
    ['sh "it\'s.sh"', (d: string) => `sh '${d}/it'\\''s.sh'`],
    ['./agent.sh | tee agent.py', (d: string) => `'${d}/agent.sh' | tee agent.py`],
    ['python3 agent.py > out.txt', (d: string) => `python3 '${d}/agent.py' > out.txt`],
  ])('makes the files in %j absolute', (command, expected) => {
    const d = dir();
    expect(resolveCommand(command, d)).toBe(expected(d));
  });

  it.each([
    'agent.sh', // a bare program name is looked up on PATH, as any shell does
    'python3 missing.py',
    'python3 -m agent',
    'sh -c "echo $HOME"',
    'python3 /abs/agent.py',
    'cat *.py',
    'echo "unterminated',
    'python3 bin',
    '',
  ])('leaves %j as it is', (command) => {
    expect(resolveCommand(command, dir())).toBe(command);
  });
});
