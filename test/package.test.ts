// The package as users import it: every entry point in package.json exists after the build.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  bin: Record<string, string>;
  exports: Record<string, { import: string; types: string }>;
};
const root = new URL('../', import.meta.url);

/** A few calls each side's users start from (test/public-api.test.ts pins the whole lists). */
const MAIN: Record<string, string[]> = {
  '.': ['parse', 'format', 'FileTaskLedger', 'runPlan', 'LiteError'],
  './server': ['createAgent', 'createA2AHandler', 'listen', 'fetchHandler', 'startPushSender', 'receiveLite'],
  './client': ['sendTask', 'fetchAgentCard', 'openTransport', 'sendAndFollow'],
  './hub': ['Hub', 'createHubHandler', 'hubUpgrades', 'sendThroughHub'],
};

describe('the package', () => {
  it.each(Object.entries(pkg.exports))('ships the entry point %s', async (name, entry) => {
    expect(existsSync(new URL(entry.import, root))).toBe(true);
    expect(existsSync(new URL(entry.types, root))).toBe(true);
    const module = (await import(new URL(entry.import, root).href)) as Record<string, unknown>;
    if (name === './openclaw') expect(typeof (module.default as { register?: unknown }).register, 'the OpenClaw plugin entry').toBe('function');
    else expect(Object.keys(module).length).toBeGreaterThan(5);
    for (const used of MAIN[name] ?? []) expect(typeof module[used], used).toBe('function');
  });

  it('ships the binary with a shebang, executable as built', () => {
    const path = new URL(pkg.bin['a2a-lite'] as string, root);
    expect(readFileSync(path, 'utf8').startsWith('#!/usr/bin/env node')).toBe(true);
    expect(statSync(path).mode & 0o111).toBe(0o111);
  });

  it('has receiveLite and no receive on the agent: the runtime knows no chat text', async () => {
    const module = (await import(new URL(pkg.exports['./server']?.import as string, root).href)) as Record<string, unknown>;
    expect(typeof module.receiveLite).toBe('function');
    expect('receive' in (module.Agent as { prototype: object }).prototype).toBe(false);
  });
});
