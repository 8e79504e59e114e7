// The hub console in Chromium, on two things a hub's operator watches: who is being limited (a
// real hub with low limits, a principal and an address driven over them: the page names them,
// never a token) and whose card is signed (`--trust-key`: the verified badge on the agent whose
// card a trusted key signed, none on an unsigned card or one a stranger signed, which says why).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardKeyFiles } from '../fixtures/card-keys.js';
import { agentItem, ARTIFACTS, chromiumMissing, launchChromium, phone } from './console-browser.js';
import { startAgent, startHub } from './hub-processes.js';

/** Built in parts, so that no scanner takes this file for a leak. */
const WATCHER = ['console', 'watcher', 'Tq42Lm'].join('-');
const CLIENT = ['console', 'client', 'Zp81Vk'].join('-');
const ENV = { HUB_TOKEN_WATCHER: WATCHER, HUB_TOKEN_CLIENT: CLIENT };

let browser: Browser;

const noChromium = chromiumMissing('the hub console’s limits and signed cards in Chromium (test/hub/console-limits-cards.test.ts)');

beforeAll(async () => {
  if (!noChromium) browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

/** `count` GETs of `url` one after another, and their statuses. */
async function statuses(url: string, count: number, headers: Record<string, string> = {}): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    seen.push(response.status);
  }
  return seen;
}

describe.skipIf(noChromium)('the hub console’s limits and signed cards, in Chromium', () => {
  it('lists the callers over their limits by principal and by address, and the limits, never a token', async () => {
    const limits = ['--rate-limit', '60/m', '--rate-burst', '3', '--address-rate-limit', '60/m', '--address-rate-burst', '8'];
    const hub = await startHub(['--store', 'memory', '--console', '--token-env', 'HUB_TOKEN_WATCHER', '--token-env', 'HUB_TOKEN_CLIENT', ...limits], ENV);
    const { page, errors } = await phone(browser);
    await page.goto(`${hub.url}/console/`);
    await page.locator('#login').waitFor();
    // Without a token the page cannot know who was limited, and does not say "nobody".
    await expect.poll(() => page.locator('#no-limited').textContent()).toBe('The limits need a token that may watch the hub.');
    await page.fill('#token', WATCHER);
    await page.click('#login button');
    await expect.poll(() => page.locator('#limits-in-force').textContent()).toBe('Limits: 1/s (burst 3) a principal; 1/s (burst 8) an address without a token.');
    expect(await page.locator('#no-limited').textContent()).toBe('No caller has been over its limits.');
    expect(await page.locator('#limited li').count()).toBe(0);

    // A client with a token, and a stranger without one, each asks faster than its limit.
    expect(await statuses(`${hub.url}/hub/v1/agents`, 12, { authorization: `Bearer ${CLIENT}` })).toContain(429);
    expect(await statuses(`${hub.url}/.well-known/ai-catalog.json`, 24)).toContain(429);

    const client = page.locator('[data-caller="principal:HUB_TOKEN_CLIENT"]');
    await expect.poll(() => client.count(), { timeout: 15_000 }).toBe(1);
    expect(await client.textContent()).toMatch(/^principal HUB_TOKEN_CLIENT rate, refused \d+× \(last .+\)$/);
    const stranger = page.locator('#limited li.by-address');
    await expect.poll(() => stranger.count(), { timeout: 15_000 }).toBe(1);
    expect(await stranger.textContent()).toMatch(/^address \S*127\.0\.0\.1\S* address-rate, refused \d+× \(last .+\)$/);
    // The watcher stayed within its limit, and the page was never refused.
    expect(await page.locator('[data-caller="principal:HUB_TOKEN_WATCHER"]').count()).toBe(0);
    expect(await page.locator('#no-limited').isHidden()).toBe(true);
    expect(await page.locator('#limited-count').textContent()).toBe(String(await page.locator('#limited li').count()));
    const html = await page.content();
    expect(html).not.toContain(CLIENT);
    expect(html).not.toContain(WATCHER);

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'hub-console-limits.png'), fullPage: true });
    expect(errors).toEqual([]);
  });

  it('shows the verified badge on the agent whose card a trusted key signed, and on no other', async () => {
    const trusted = cardKeyFiles();
    const stranger = cardKeyFiles();
    const hub = await startHub(['--store', 'memory', '--console', '--trust-key', trusted.pub]);
    await startAgent(hub.url, 'signed', { extra: ['--port', 'none', '--sign-key', trusted.key, '--sign-kid', 'signed-1'] });
    await startAgent(hub.url, 'plain');
    await startAgent(hub.url, 'forged', { extra: ['--port', 'none', '--sign-key', stranger.key, '--sign-kid', 'forged-1'] });

    const { page, errors } = await phone(browser);
    await page.goto(`${hub.url}/console/`);
    for (const id of ['signed', 'plain', 'forged']) await agentItem(page, id).waitFor();
    const badge = (id: string) => agentItem(page, id).locator('.signature');
    expect(await badge('signed').textContent()).toBe('signed ✓');
    expect(await badge('signed').getAttribute('class')).toBe('signature verified');
    expect(await badge('signed').getAttribute('title')).toBe('card signed by key signed-1 (EdDSA), verified');
    // Green, as an agent that is up. (Page scripts are strings: this file is typed for Node.)
    expect(await page.evaluate(`getComputedStyle(document.querySelector('[data-agent="signed"] .signature')).color`)).toBe('rgb(31, 143, 78)');
    expect(await agentItem(page, 'signed').locator('.signature-problem').count()).toBe(0);

    expect(await badge('plain').textContent()).toBe('unsigned');
    expect(await badge('forged').textContent()).toBe('signed, not verified');
    // Why, in words a phone shows (it has no hover for the title).
    expect(await agentItem(page, 'forged').locator('.signature-problem').textContent()).toMatch(/^card signature: no signature on the card verifies/);
    expect(await page.locator('.signature.verified').count()).toBe(1);

    // A hub that takes signed cards only: the one it took carries the badge.
    const strict = await startHub(['--store', 'memory', '--console', '--require-signed-cards', '--trust-key', trusted.pub]);
    await startAgent(strict.url, 'signed', { extra: ['--port', 'none', '--sign-key', trusted.key] });
    await page.goto(`${strict.url}/console/`);
    await agentItem(page, 'signed').waitFor();
    expect(await badge('signed').textContent()).toBe('signed ✓');
    expect(await page.locator('.signature:not(.verified)').count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
