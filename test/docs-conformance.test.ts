// docs/conformance.md must stay true to the code: every file it cites exists, every test it
// names is in the file cited before the name, every row has a level and a status it allows, and
// its summary counts the rows there are.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../', import.meta.url);
const doc = readFileSync(new URL('docs/conformance.md', root), 'utf8');

const LEVELS = ['MUST', 'MUST NOT', 'SHOULD', 'SHOULD NOT', 'MAY'];
const STATUSES = ['done', 'partly', 'not done', 'n.a.'];

/** One requirement: its table line, and its cells by the names in the table's header. */
interface Row {
  line: string;
  width: number;
  cells: Record<string, string>;
}

const cellsOf = (line: string): string[] => line.replace(/^\||\|$/g, '').split('|').map((cell) => cell.trim());

/** The data rows of every table whose header has a `status` column. */
function requirements(text: string): { header: string[]; rows: Row[] } {
  const rows: Row[] = [];
  let header: string[] | undefined;
  let first: string[] | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith('|')) {
      header = undefined;
      continue;
    }
    const cells = cellsOf(line);
    if (header === undefined) {
      header = cells;
      first ??= cells;
    } else if (!cells.every((cell) => /^-+$/.test(cell)) && header.includes('status')) {
      rows.push({ line, width: cells.length, cells: Object.fromEntries(header.map((name, i) => [name, cells[i] ?? ''])) });
    }
  }
  return { header: first ?? [], rows };
}

const { header, rows } = requirements(doc);

describe('docs/conformance.md', () => {
  it('gives every requirement a level and a status from its lists', () => {
    expect(header).toEqual(['§', 'requirement (our words)', 'level', 'status', 'implemented in', 'tested in']);
    expect(rows.length).toBeGreaterThan(100);
    for (const row of rows) {
      expect(row.width, row.line).toBe(header.length);
      expect(LEVELS, row.line).toContain(row.cells.level);
      expect(STATUSES, row.line).toContain(row.cells.status);
    }
  });

  it('cites only src/ and test/ files that exist', () => {
    const paths = [...doc.matchAll(/`((?:src|test)\/[^`\s]*)`/g)].map((match) => match[1] as string);
    expect(paths.length).toBeGreaterThan(50);
    for (const path of new Set(paths)) expect(existsSync(new URL(path, root)), path).toBe(true);
  });

  it('names only tests that are in the file cited before them', () => {
    for (const row of rows) {
      for (const citation of (row.cells['tested in'] ?? '').split(';')) {
        const file = /`((?:src|test)\/[^`]+)`/.exec(citation)?.[1];
        const names = [...citation.matchAll(/"([^"]+)"/g)].map((match) => match[1] as string);
        if (names.length === 0) continue;
        expect(file, citation).toBeDefined();
        const source = readFileSync(new URL(file as string, root), 'utf8');
        for (const name of names) expect(source.includes(name), `${file}: "${name}"`).toBe(true);
      }
    }
  });

  it('counts in its summary the rows it has, and those a test shows', () => {
    const count = (status: string) => rows.filter((row) => row.cells.status === status).length;
    const tested = rows.filter((row) => row.cells['tested in'] !== '—').length;
    const summary = /(\d+) requirements: (\d+) done, (\d+) partly, (\d+) not done, (\d+) n\.a\.; a test is cited for (\d+) of them/.exec(doc);
    expect(summary?.slice(1).map(Number)).toEqual([rows.length, ...STATUSES.map(count), tested]);
  });
});
