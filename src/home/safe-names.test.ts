// Unique names in one folder: numbered after what is taken, never handing out one name twice.
import { describe, expect, it } from 'vitest';
import { UniqueNames } from './safe-names.js';

describe('UniqueNames', () => {
  const rows: [string, string[], string[], string[]][] = [
    // [what the folder held, the names asked for, the names given]
    ['an empty folder', [], ['a.txt', 'a.txt', 'a.txt'], ['a.txt', 'a-1.txt', 'a-2.txt']],
    ['a folder holding the name and its first number', ['a.txt', 'a-1.txt'], ['a.txt', 'a.txt'], ['a-2.txt', 'a-3.txt']],
    ['a number taken further on', ['a-2.txt'], ['a.txt', 'a.txt', 'a.txt', 'a.txt'], ['a.txt', 'a-1.txt', 'a-3.txt', 'a-4.txt']],
    ['a name without an extension', ['notes'], ['notes', 'notes'], ['notes-1', 'notes-2']],
    ['a name a number gave earlier, asked for itself', [], ['a.txt', 'a.txt', 'a-1.txt'], ['a.txt', 'a-1.txt', 'a-1-1.txt']],
  ];
  it.each(rows)('%s', (_label, taken, asked, given) => {
    const names = new UniqueNames(taken);
    expect(asked.map((name) => names.take(name))).toEqual(given);
  });

  it('counts from the first suffix it is given', () => {
    const names = new UniqueNames([], 2);
    expect(['r.md', 'r.md', 'r.md'].map((name) => names.take(name))).toEqual(['r.md', 'r-2.md', 'r-3.md']);
  });

  it('gives 5,000 names asked alike, all different', () => {
    const names = new UniqueNames();
    const given = Array.from({ length: 5000 }, () => names.take('same.bin'));
    expect(new Set(given).size).toBe(5000);
  });
});
