import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LiteError } from './errors.js';
import { readOperatorFile, type OperatorFile } from './operator-file.js';

const dir = mkdtempSync(join(tmpdir(), 'operator-file-'));
const SECRET = 'sk-Hq27-operator-secret';
const MAX = 64;

const read = (path: string, maxBytes = MAX): OperatorFile => readOperatorFile(path, { label: `the test file ${path}`, maxBytes, tooLargeHint: 'a test file is short' });

function failure(path: string, maxBytes = MAX): LiteError {
  try {
    read(path, maxBytes);
  } catch (error) {
    expect(error).toBeInstanceOf(LiteError);
    expect((error as Error).message).not.toContain(SECRET);
    expect((error as Error).message).toContain(path);
    return error as LiteError;
  }
  throw new Error(`reading ${path} did not fail`);
}

function put(name: string, content: string | Buffer, mode = 0o600): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  chmodSync(path, mode);
  return path;
}

/** Whether this process can read a file whatever its mode (root, or CAP_DAC_OVERRIDE). */
function readsAnything(): boolean {
  const probe = put('probe', 'x', 0o000);
  try {
    read(probe);
    return true;
  } catch {
    return false;
  }
}

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('readOperatorFile', () => {
  it('reads a regular file, its text and its mode, through a symbolic link too', () => {
    const path = put('ok', `${SECRET}\n`, 0o640);
    expect(read(path)).toEqual({ text: `${SECRET}\n`, mode: 0o640 });
    symlinkSync(path, join(dir, 'link'));
    expect(read(join(dir, 'link')).text).toBe(`${SECRET}\n`);
  });

  it('reads a file of exactly the limit, and an empty one', () => {
    expect(read(put('full', 'a'.repeat(MAX))).text).toHaveLength(MAX);
    expect(read(put('none', '')).text).toBe('');
  });

  const hostile: [string, () => string, string, RegExp][] = [
    ['a missing file', () => join(dir, 'nope'), 'FILE_NOT_FOUND', /^the test file \S+nope does not exist$/],
    ['a path below a file', () => join(put('plain', SECRET), 'below'), 'FILE_NOT_FOUND', /does not exist$/],
    ['a folder', () => (mkdirSync(join(dir, 'folder'), { recursive: true }), join(dir, 'folder')), 'USAGE', /is a folder, not a file$/],
    ['a file one byte over the limit', () => put('over', SECRET.padEnd(MAX + 1, 'x')), 'USAGE', /is over 64 bytes; a test file is short$/],
    ['a huge file (sparse: 1 GiB that takes no disk)', () => (execFileSync('truncate', ['-s', '1G', join(dir, 'huge')]), join(dir, 'huge')), 'USAGE', /is over 64 bytes/],
    ['/dev/zero, a device that never ends', () => '/dev/zero', 'USAGE', /is a device, not a regular file$/],
    ['/dev/null, a device that is empty', () => '/dev/null', 'USAGE', /is a device, not a regular file$/],
  ];
  it.each(hostile)('refuses %s, naming it and what is wrong', (_what, make, code, message) => {
    const error = failure(make());
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
  });

  it('refuses a named pipe at once (a blocking open would wait for a writer for ever)', () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const error = failure(fifo);
    expect(error.code).toBe('USAGE');
    expect(error.message).toMatch(/is a named pipe, not a regular file$/);
  });

  it('refuses a socket', async () => {
    const path = join(dir, 'socket');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path, resolve));
    try {
      expect(existsSync(path)).toBe(true);
      expect(failure(path).message).toMatch(/is a socket, not a regular file$/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses a file that says it is empty and is not: a /proc file is read to the limit and no further', () => {
    if (!existsSync('/proc/self/status')) return;
    // Its size reads 0 and it holds well over 64 bytes: only the read itself can tell.
    expect(failure('/proc/self/status').message).toMatch(/is over 64 bytes/);
    expect(read('/proc/self/status', 1 << 20).text).toMatch(/^Name:/);
  });

  it('says a file the system will not let us read cannot be read, with its errno', () => {
    const locked = put('locked', SECRET, 0o000);
    // Root (or CAP_DAC_OVERRIDE) reads whatever the mode says: then there is nothing to refuse.
    if (readsAnything()) {
      expect(read(locked).text).toBe(SECRET);
      return;
    }
    const error = failure(locked);
    expect(error.code).toBe('IO_ERROR');
    expect(error.message).toMatch(/^the test file \S+locked cannot be read \(EACCES\)$/);
  });

  it('says a file in a folder it may not enter cannot be read', () => {
    mkdirSync(join(dir, 'shut'), { recursive: true });
    const inside = put(join('shut', 'inside'), SECRET);
    chmodSync(join(dir, 'shut'), 0o000);
    try {
      if (readsAnything()) return;
      expect(failure(inside)).toMatchObject({ code: 'IO_ERROR', message: expect.stringMatching(/cannot be read \(EACCES\)$/) });
    } finally {
      chmodSync(join(dir, 'shut'), 0o700);
    }
  });
});
