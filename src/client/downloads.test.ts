import { readdirSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Part } from '../model/task.js';
import { saveFiles } from './downloads.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) rmSync(dirs.pop() as string, { recursive: true, force: true });
});
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-lite-downloads-'));
  dirs.push(dir);
  return dir;
};
const file = (name: string, text = name): Extract<Part, { kind: 'file' }> => ({ kind: 'file', name, bytes: Buffer.from(text).toString('base64') });

describe('saveFiles', () => {
  it('keeps every file inside downloads/<task>/ under a safe name, whatever the peer called it', () => {
    const downloads = tempDir();
    const saved = saveFiles(downloads, '../../etc', [
      file('../../.bashrc'),
      file('/etc/passwd'),
      file('CON.txt'),
      file('a\u202Egnp.exe'),
      file('report.md', 'one'),
      file('report.md', 'two'),
      file('nul\u0000byte.txt'),
    ]);
    // One folder, inside downloads/, named by the encoded task id.
    expect(readdirSync(downloads)).toEqual(['%2E.%2F..%2Fetc']);
    const folder = join(downloads, '%2E.%2F..%2Fetc');
    expect(saved.map((f) => f.name)).toEqual(['bashrc', 'passwd', '_CON.txt', 'agnp.exe', 'report.md', 'report-2.md', 'nulbyte.txt']);
    expect(readdirSync(folder).sort()).toEqual([...saved.map((f) => f.name)].sort());
    expect(readFileSync(join(folder, 'report-2.md'), 'utf8')).toBe('two');
  });

  it('lists files given by URL without fetching them', () => {
    const downloads = tempDir();
    const saved = saveFiles(downloads, 't', [{ kind: 'file', name: 'big.zip', url: 'https://example.com/big.zip' }]);
    expect(saved).toEqual([{ name: 'big.zip', url: 'https://example.com/big.zip' }]);
    expect(readdirSync(downloads)).toEqual([]);
  });
});
