// Writes openclaw.plugin.json, the manifest OpenClaw reads before it loads the plugin, from the
// built plugin entry: its id, name, description, version, config schema and tool names. Run by
// the build; test/openclaw/manifest.test.ts fails when the committed file is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

export async function manifest() {
  const { default: plugin, TOOL_NAMES } = await import(new URL('../dist/openclaw/plugin.js', import.meta.url).href);
  return {
    id: plugin.id,
    name: plugin.name,
    description: plugin.description,
    version: plugin.version,
    categories: ['agent-orchestration'],
    configSchema: plugin.configSchema.jsonSchema,
    activation: { onStartup: true },
    contracts: { tools: TOOL_NAMES },
    skills: ['./skill'],
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const path = `${root}openclaw.plugin.json`;
  const text = `${JSON.stringify(await manifest(), null, 2)}\n`;
  let old = '';
  try {
    old = readFileSync(path, 'utf8');
  } catch {
    // First build.
  }
  if (old !== text) writeFileSync(path, text);
}
