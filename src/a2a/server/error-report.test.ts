import { describe, expect, it, vi } from 'vitest';
import { LiteError } from '../../errors.js';
import { describeSystemError, isSystemError, systemErrorReporter } from './error-report.js';

/** Built in parts, so that no scanner takes this file for a leak. */
const GITHUB_TOKEN = ['ghp', '0123456789abcdefghijABCDEFGHIJ012345'].join('_');

describe('system errors', () => {
  it.each<[string, unknown, boolean]>([
    ['a TypeError', new TypeError('x is not a function'), true],
    ['a thrown string', 'oops', true],
    ['IO_ERROR (500)', new LiteError('IO_ERROR', 'disk full'), true],
    ['INTERNAL (500)', new LiteError('INTERNAL', 'bug'), true],
    ['TASK_NOT_FOUND (404)', new LiteError('TASK_NOT_FOUND', 'no task'), false],
    ['STORE_FULL (429)', new LiteError('STORE_FULL', 'full'), false],
    ['EXTENSION_SUPPORT_REQUIRED (400)', new LiteError('EXTENSION_SUPPORT_REQUIRED', 'required'), false],
  ])('%s is one: %s', (_what, error, system) => {
    expect(isSystemError(error)).toBe(system);
  });

  it.each<[string, unknown, string]>([
    ['an Error by class and message', new TypeError('x is not a function'), 'a2a-lite: JSON-RPC GetTask failed: TypeError: x is not a function'],
    ['a LiteError by code', new LiteError('IO_ERROR', 'the disk is full'), 'a2a-lite: JSON-RPC GetTask failed: IO_ERROR: the disk is full'],
    ['the first line only', new Error('first\nsecond line with the body'), 'a2a-lite: JSON-RPC GetTask failed: Error: first'],
    ['a thrown value by its type only', 'the request body', 'a2a-lite: JSON-RPC GetTask failed: a thrown string'],
    ['a credential redacted', new Error(`token ${GITHUB_TOKEN} refused`), 'a2a-lite: JSON-RPC GetTask failed: Error: token [redacted: GitHub token] refused'],
    ['a long message cut', new Error('x'.repeat(1000)), `a2a-lite: JSON-RPC GetTask failed: Error: ${'x'.repeat(293)}…`],
  ])('describes %s', (_what, error, line) => {
    expect(describeSystemError(error, 'JSON-RPC GetTask')).toBe(line);
  });

  it('cuts and redacts the operation too, which may name a path the client chose', () => {
    expect(describeSystemError(new Error('boom'), `GET /tasks/${GITHUB_TOKEN}\r\nX: y`)).toBe('a2a-lite: GET /tasks/[redacted: GitHub token] failed: Error: boom');
    expect(describeSystemError(new Error('boom'), `GET /${'a'.repeat(500)}`)).toBe(`a2a-lite: GET /${'a'.repeat(195)}… failed: Error: boom`);
  });

  it('tells onError of system errors only, and survives an onError that throws', () => {
    const told: [unknown, string][] = [];
    const report = systemErrorReporter((error, what) => told.push([error, what]));
    const bug = new RangeError('bad');
    report(new LiteError('TASK_NOT_FOUND', 'no task'), 'JSON-RPC GetTask');
    report(bug, 'HTTP+JSON ListTasks');
    expect(told).toEqual([[bug, 'HTTP+JSON ListTasks']]);
    expect(() =>
      systemErrorReporter(() => {
        throw new Error('broken reporter');
      })(bug, 'x'),
    ).not.toThrow();
  });

  it('writes one line on stderr by default', () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      systemErrorReporter()(new Error('boom'), 'POST /jsonrpc');
      expect(write.mock.calls).toEqual([['a2a-lite: POST /jsonrpc failed: Error: boom\n']]);
    } finally {
      write.mockRestore();
    }
  });
});
