// The documentation must list every code the package can produce.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_TABLE, type ErrorRow } from '../src/errors.js';

const errorsDoc = readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');
const source = (path: string) => readFileSync(new URL(`../src/${path}`, import.meta.url), 'utf8');
const unionMembers = (text: string, name: string): string[] => {
  const block = new RegExp(`export type ${name} =([^;]+);`).exec(text)?.[1] ?? '';
  return [...block.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1] as string);
};

describe('docs/errors.md', () => {
  it.each(Object.entries(ERROR_TABLE))('lists %s with its exit, JSON-RPC, HTTP, google.rpc status and A2A reason', (code, row: ErrorRow) => {
    const reason = row.reason === undefined ? '—' : `\`${row.reason}\``;
    expect(errorsDoc).toContain(`| \`${code}\` | ${row.exit} | ${row.rpc} | ${row.http} | \`${row.status}\` | ${reason} |`);
  });

  it('lists every problem and warning code', () => {
    const types = source('protocol/types.ts');
    const codes = [...unionMembers(types, 'ProblemCode'), ...unionMembers(types, 'WarningCode')];
    expect(codes.length).toBeGreaterThan(20);
    for (const code of codes) expect(errorsDoc, code).toContain(`| \`${code}\` |`);
  });
});
