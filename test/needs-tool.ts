// Suites that need something outside the package (Chromium, the Node 24 and OpenClaw that
// `npm test` installs) ask for it here. When it is missing the suite is skipped and the closing
// summary (summary-reporter.ts) prints `skipped: <suite> — <reason>`; with CI=true a missing
// tool is a failing test instead, since CI provides every one.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { it } from 'vitest';

declare module 'vitest' {
  interface TaskMeta {
    /** Set on the stand-in test of a suite skipped for want of a tool. */
    missingTool?: { suite: string; reason: string };
  }
}

/**
 * Whether `suite` must be skipped: `present` is false. Call it at the top of a test file, and
 * give the result to `describe.skipIf`.
 *
 * @example
 * const noChromium = needsTool('the hub console in Chromium', existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}`);
 * describe.skipIf(noChromium)('the hub console, in Chromium', () => { … });
 */
export function needsTool(suite: string, present: boolean, reason: string): boolean {
  if (present) return false;
  if (process.env.CI === 'true') {
    it('has the tools it needs', () => {
      throw new Error(`${suite} cannot run: ${reason}. CI must provide it.`);
    });
  } else {
    it.skip(`${suite}: skipped`, { meta: { missingTool: { suite, reason } } }, () => {});
  }
  return true;
}

/** The note scripts/test-deps.mjs leaves in a folder's node_modules when `npm ci` failed there. */
export const INSTALL_FAILED_NOTE = '.a2a-lite-install-failed';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Why what `npm test` installs into `folder` (relative to the repository) is not there: the
 * install's own failure when it left one, else how to install it.
 */
export function installMissing(folder: string, what: string): string {
  const note = join(resolve(ROOT, folder), 'node_modules', INSTALL_FAILED_NOTE);
  if (existsSync(note)) return `${what} could not be installed (npm ci --prefix ${folder}: ${readFileSync(note, 'utf8').trim()})`;
  return `${what} is not installed in ${folder}/node_modules (npm test installs it)`;
}
