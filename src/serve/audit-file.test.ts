import { mkdtempSync, readFileSync, renameSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LiteError } from '../errors.js';
import { lineOf, openAuditFile } from './audit-file.js';

const lines = (path: string) => readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
const event = (task: string) => ({ time: '2026-01-01T00:00:00.000Z', action: 'send' as const, principal: 'alice', address: '127.0.0.1', agent: 'a', task, outcome: 'ok' });

describe('the audit file', () => {
  it('appends one JSON line per event, made 0600, written out by close', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'audit-')), 'audit.log');
    const first = openAuditFile(path, () => {});
    for (let i = 0; i < 1000; i += 1) first.write(event(`t${i}`));
    await first.close();
    const second = openAuditFile(path, () => {});
    second.write(event('again'));
    await second.close();
    const all = lines(path);
    expect(all).toHaveLength(1001);
    expect(all[0]).toEqual(event('t0'));
    expect(all[1000]?.task).toBe('again');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('starts a new file at the path on reopen; the moved one keeps what was written before', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'audit-'));
    const path = join(folder, 'audit.log');
    const file = openAuditFile(path, () => {});
    file.write(event('before'));
    renameSync(path, `${path}.1`);
    file.reopen();
    file.write(event('after'));
    await file.close();
    expect(lines(`${path}.1`).map((line) => line.task)).toEqual(['before']);
    expect(lines(path).map((line) => line.task)).toEqual(['after']);
  });

  it('refuses a path it cannot open, naming it', () => {
    const folder = mkdtempSync(join(tmpdir(), 'audit-'));
    expect(() => openAuditFile(join(folder, 'no', 'such', 'audit.log'), () => {})).toThrow(LiteError);
    expect(() => openAuditFile(folder, () => {})).toThrow(/--audit .*: the file cannot be opened for appending \(EISDIR\)/);
  });

  it('keeps writing to the old file when the path cannot be opened again, and says so', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'audit-'));
    const path = join(folder, 'sub', 'audit.log');
    const { mkdirSync, rmSync } = await import('node:fs');
    mkdirSync(join(folder, 'sub'));
    const told: string[] = [];
    const file = openAuditFile(path, (line) => told.push(line));
    renameSync(join(folder, 'sub'), join(folder, 'moved'));
    file.reopen();
    file.write(event('still'));
    await file.close();
    expect(told[0]).toMatch(/could not be opened again/);
    expect(lines(join(folder, 'moved', 'audit.log')).map((line) => line.task)).toEqual(['still']);
    rmSync(folder, { recursive: true });
  });

  it('writes its fields in one order and leaves out what is not there', () => {
    expect(lineOf({ outcome: 'UNAUTHENTICATED', action: 'auth-failure', time: 't', address: '::1' })).toBe('{"time":"t","action":"auth-failure","address":"::1","outcome":"UNAUTHENTICATED"}');
  });
});
