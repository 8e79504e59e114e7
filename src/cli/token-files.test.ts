import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LiteError } from '../errors.js';
import { firstRead, MAX_TOKEN_FILE_BYTES, parseTokenFiles, readTokenFile, type TokenFile } from './token-files.js';

const dir = mkdtempSync(join(tmpdir(), 'token-files-'));
const SECRET = 'tok-Zq81-secret-value';

function file(name: string, content: string | Buffer, mode = 0o600): TokenFile {
  const path = join(dir, name);
  writeFileSync(path, content);
  chmodSync(path, mode);
  return { name: 'alice', path, option: '--token-file' };
}

function failure(run: () => unknown): LiteError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(LiteError);
    expect((error as Error).message).not.toContain(SECRET);
    return error as LiteError;
  }
  throw new Error('it did not fail');
}

describe('parseTokenFiles', () => {
  it('reads NAME=PATH, PATH relative to the folder given, and the first = only', () => {
    expect(parseTokenFiles('hub', '--token-file', ['alice=keys/a', 'bob=/abs/b=c'], '/srv')).toEqual([
      { name: 'alice', path: '/srv/keys/a', option: '--token-file' },
      { name: 'bob', path: '/abs/b=c', option: '--token-file' },
    ]);
    expect(parseTokenFiles('hub', '--token-file', undefined, '/srv')).toEqual([]);
  });

  it.each([
    ['alice', /takes NAME=PATH/],
    ['alice=', /takes NAME=PATH/],
    ['=/path', /a principal's name is 1 to 64/],
    ['al ice=/p', /a principal's name/],
    ['al/ice=/p', /a principal's name/],
    [`${'a'.repeat(65)}=/p`, /a principal's name/],
    ['alice=/p\u0000x', /NUL/],
    ['', /takes NAME=PATH/],
  ])('refuses %j', (pair, message) => {
    const error = failure(() => parseTokenFiles('hub', '--token-file', [pair], '/srv'));
    expect(error.code).toBe('USAGE');
    expect(error.message).toMatch(message);
    expect(error.message).toMatch(/^hub: --token-file/);
  });

  it('refuses one name twice', () => {
    expect(failure(() => parseTokenFiles('hub', '--token-file', ['a=/x', 'a=/y'], '/')).message).toMatch(/names a twice/);
  });
});

describe('readTokenFile', () => {
  it('reads one token, trimmed', () => {
    expect(readTokenFile(file('ok', `  ${SECRET}\n`))).toMatchObject({ token: SECRET, shared: false });
  });

  it('reads an empty file as no token (the caller decides)', () => {
    expect(readTokenFile(file('empty', '\n\n')).token).toBe('');
  });

  it('says a file others may read is shared', () => {
    expect(readTokenFile(file('shared', SECRET, 0o644))).toMatchObject({ shared: true, mode: 0o644 });
    expect(readTokenFile(file('group', SECRET, 0o640)).shared).toBe(true);
  });

  it.each([
    ['missing', () => ({ name: 'alice', path: join(dir, 'nope'), option: '--token-file' }), 'FILE_NOT_FOUND', /does not exist/],
    ['a folder', () => { mkdirSync(join(dir, 'folder'), { recursive: true }); return { name: 'alice', path: join(dir, 'folder'), option: '--token-file' }; }, 'USAGE', /is a folder/],
    ['huge', () => file('huge', SECRET.repeat(MAX_TOKEN_FILE_BYTES)), 'USAGE', /over 4096 bytes/],
    ['two tokens', () => file('two', `${SECRET}\nsecond-token`), 'USAGE', /more than one word/],
    ['a comma', () => file('comma', `${SECRET},other`), 'USAGE', /comma/],
    ['a control character', () => file('ctl', `${SECRET}\u0001x`), 'USAGE', /characters a request header cannot carry/],
    ['non-ASCII', () => file('utf', `${SECRET}é`), 'USAGE', /characters a request header cannot carry/],
    ['binary', () => file('bin', Buffer.from([0xff, 0xfe, 0x00, 0x41])), 'USAGE', /characters a request header cannot carry/],
    ['below a file', () => ({ name: 'alice', path: join(dir, 'ok', 'below'), option: '--token-file' }), 'FILE_NOT_FOUND', /does not exist/],
  ] as const)('refuses %s, naming the file and never its content', (_what, make, code, message) => {
    writeFileSync(join(dir, 'ok'), SECRET);
    const target = make();
    const error = failure(() => readTokenFile(target));
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
    expect(error.message).toContain(target.path);
  });

  it('does not hang on a named pipe', () => {
    const fifo = join(dir, 'fifo');
    try {
      execFileSync('mkfifo', [fifo]);
    } catch {
      return; // no mkfifo here
    }
    expect(failure(() => readTokenFile({ name: 'alice', path: fifo, option: '--token-file' })).message).toMatch(/not a regular file/);
  });

  it('is unreadable without permission (unless root, who reads anything)', () => {
    const locked = file('locked', SECRET, 0o000);
    if (process.getuid?.() === 0) return;
    expect(failure(() => readTokenFile(locked)).message).toMatch(/cannot be read \(EACCES\)/);
  });
});

describe('firstRead', () => {
  it('refuses an empty file at start, and warns of a shared one', () => {
    expect(failure(() => firstRead('serve', [file('empty2', ' ')], () => {})).message).toMatch(/^serve: the token file .* is empty/);
    const warnings: string[] = [];
    expect(firstRead('serve', [file('shared2', SECRET, 0o644)], (line) => warnings.push(line))).toEqual([{ principal: 'alice', secret: SECRET }]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/readable by its group or by others \(mode 0644\); chmod 600 it/);
    expect(warnings[0]).not.toContain(SECRET);
  });

  it('makes a missing file a usage error', () => {
    const error = failure(() => firstRead('hub', [{ name: 'x', path: join(dir, 'gone'), option: '--token-file' }], () => {}));
    expect(error.code).toBe('USAGE');
    expect(error.message).toMatch(/^hub: the token file .*gone \(--token-file x\) does not exist$/);
  });
});
