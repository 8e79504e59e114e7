// Debian's Chromium, driven by playwright-core, for the console suites: whether it is there
// (the suite is skipped with a line in the summary when not, required under CI), one browser
// for a test file, and a phone-sized page with its script errors collected.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { needsTool } from '../needs-tool.js';

export const CHROMIUM = process.env.A2A_LITE_CHROMIUM ?? '/usr/bin/chromium';
export const ARTIFACTS = process.env.A2A_LITE_TEST_ARTIFACTS ?? fileURLToPath(new URL('../../test-results/', import.meta.url));

/** Whether `suite` is skipped for want of Chromium (call once, at the top of a test file). */
export const chromiumMissing = (suite: string): boolean => needsTool(suite, existsSync(CHROMIUM), `no Chromium at ${CHROMIUM} (apt-get install chromium, or set A2A_LITE_CHROMIUM)`);

/** Chromium, kept off the network it would otherwise try at start. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A phone-sized page, its errors collected. */
export async function phone(browser: Browser): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return { page, errors };
}

/** An agent's item on the console. */
export const agentItem = (page: Page, id: string) => page.locator(`[data-agent="${id}"]`);
