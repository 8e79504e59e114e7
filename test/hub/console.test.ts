// The hub console in a real browser (Debian's Chromium driven by playwright-core), against a real
// hub and real agents dialled in over the relay: what a person sees on a phone. An agent that
// goes down turns red, a task's bar moves as the agent reports progress, the transcript shows
// the exchange as A2A-Lite text, and a hostile agent name stays text. A screenshot of the page
// is kept in test-results/ (A2A_LITE_TEST_ARTIFACTS to put it elsewhere). Without Chromium the
// suite is skipped with a line in the summary; CI installs it, and there it is required.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../cli/run-cli.js';
import { tempHome } from '../fixtures/home.js';
import { agentItem, ARTIFACTS, chromiumMissing, launchChromium, phone as phoneOf } from './console-browser.js';
import { startAgent, startHub } from './hub-processes.js';

const TOKEN = 'console-token-3b9f1d27e6';
const ENV = { HUB_TOKEN: TOKEN };
const HOSTILE = '<img src=x onerror="window.__pwned=1">';

let browser: Browser;

const noChromium = chromiumMissing('the hub console in Chromium (test/hub/console.test.ts)');

beforeAll(async () => {
  if (!noChromium) browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

const phone = () => phoneOf(browser);

describe.skipIf(noChromium)('the hub console, in Chromium', () => {
  it('shows agents up and down, a task’s moving bar, its A2A-Lite transcript and raw events', async () => {
    const hub = await startHub(['--store', 'memory', '--console', '--heartbeat', '1', '--token-env', 'HUB_TOKEN'], ENV);
    const agentOptions = (skills: string[]) => ({ skills, extra: ['--port', 'none', '--hub-token-env', 'HUB_TOKEN'], env: ENV });
    await startAgent(hub.url, 'writer', agentOptions(['write:Write:Writes reports']));
    const doomed = await startAgent(hub.url, 'scout', agentOptions(['research:Research:Finds sources']));

    const { page, errors } = await phone();
    // The token travels in the fragment, which never reaches the server; the page keeps it in
    // the tab and takes it out of the address bar.
    await page.goto(`${hub.url}/console/#token=${TOKEN}`);
    await expect.poll(() => page.url()).toBe(`${hub.url}/console/`);
    await agentItem(page, 'writer').waitFor();
    await agentItem(page, 'scout').waitFor();
    expect(await agentItem(page, 'scout').locator('.health').textContent()).toBe('up');
    expect(await agentItem(page, 'scout').locator('.skill').allTextContents()).toEqual(['research']);
    expect(await page.locator('#feed').textContent()).toBe('live');

    // Every width the bar is given, as the page gives it.
    // (Page scripts are strings: this file is typed for Node, not for the DOM.)
    await page.evaluate(`
      window.bars = [];
      new MutationObserver((changes) => {
        for (const change of changes) if (change.target.classList.contains('bar')) window.bars.push(change.target.getAttribute('aria-valuenow'));
      }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['aria-valuenow'] });
    `);
    const stream = await fetch(`${hub.url}/agents/writer/message:stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ message: { messageId: 'console-1', role: 'ROLE_USER', parts: [{ text: 'slow 9' }] } }),
    });
    const streamed = await stream.text();
    const taskId = /"id":"([^"]+)"/.exec(streamed)?.[1];
    expect(taskId).toBeDefined();
    const task = page.locator(`[data-task="writer/${taskId}"]`);
    await expect.poll(() => task.getAttribute('class'), { timeout: 10_000 }).toContain('state-completed');
    const bars = ((await page.evaluate('window.bars')) as string[]).map(Number);
    // It moved through the agent's steps (10 %, 20 %, … 90 %) to full, never back.
    expect(bars.filter((width) => width > 0 && width < 100).length).toBeGreaterThanOrEqual(3);
    expect(bars.at(-1)).toBe(100);
    expect(bars).toEqual([...bars].sort((a, b) => a - b));

    await task.locator('summary').first().click();
    const transcript = (await task.locator('.transcript').textContent()) ?? '';
    expect(transcript).toContain(`[A2A:task id=${taskId}]\nslow 9`);
    expect(transcript).toMatch(/\[A2A:status task=\S+ state=working progress=50%\]\nstep 5 of 9/);
    expect(transcript).toContain(`[A2A:result task=${taskId} state=completed]\ndone after 9 steps`);
    await task.locator('.raw-events > summary').click();
    expect(await task.locator('.raw').textContent()).toContain('"TASK_STATE_COMPLETED"');

    // The scout dies: its card turns red and says so.
    doomed.child.kill('SIGKILL');
    await expect.poll(() => agentItem(page, 'scout').getAttribute('class'), { timeout: 15_000 }).toContain('down');
    expect(await agentItem(page, 'scout').locator('.health').textContent()).toBe('down');
    const border = await page.evaluate(`getComputedStyle(document.querySelector('[data-agent="scout"]')).borderLeftColor`);
    expect(border).toBe('rgb(198, 40, 40)');
    expect(await agentItem(page, 'writer').getAttribute('class')).not.toContain('down');
    expect(await page.locator('#agent-count').textContent()).toBe('1 up of 2');

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'hub-console.png'), fullPage: true });
    expect(errors).toEqual([]);
  });

  it('asks for a token when it has none, and shows an agent’s hostile name as text', async () => {
    const hub = await startHub(['--store', 'memory', '--console', '--token-env', 'HUB_TOKEN'], ENV);
    const home = tempHome('agent-mallory');
    expect(cli(['card', 'init', '--id', 'mallory', '--name', HOSTILE, '--skill', 'echo:Echo:Says it back'], { home }).code).toBe(0);
    await startAgent(hub.url, 'mallory', { home, extra: ['--port', 'none', '--hub-token-env', 'HUB_TOKEN'], env: ENV });

    const { page, errors } = await phone();
    await page.goto(`${hub.url}/console/`);
    await page.locator('#login').waitFor();
    expect(await page.locator('#feed').textContent()).toBe('token needed');
    await page.fill('#token', TOKEN);
    await page.click('#login button');
    await agentItem(page, 'mallory').waitFor();
    expect(await agentItem(page, 'mallory').locator('.name').textContent()).toBe(HOSTILE);
    expect(await page.locator('[data-agent="mallory"] img').count()).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(errors).toEqual([]);
  });
});
