import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../..', import.meta.url));

describe('the pg library', () => {
  it('is loaded by connection.ts alone, with import(), so that nothing else pays for it', () => {
    const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'));
    const loads = files.flatMap((file) => {
      const text = readFileSync(join(SRC, file), 'utf8');
      const found: string[] = [];
      if (/^\s*import\s+(?!type\b)[^;]*?from\s+['"]pg['"]/m.test(text) || /^\s*export\s+(?!type\b)[^;]*?from\s+['"]pg['"]/m.test(text)) found.push(`${file}: static import`);
      if (/\bimport\(\s*['"]pg['"]\s*\)|require\(\s*['"]pg['"]\s*\)/.test(text)) found.push(`${file}: loads it`);
      return found;
    });
    expect(loads).toEqual([join('store', 'postgres', 'connection.ts') + ': loads it']);
  });
});
