// `a2a-lite send` puts no credential on the wire by mistake (review finding 17): a task or reply
// whose text holds a credential shape is refused before anything is sent, directly or through a
// hub, unless the operator passes --allow-credential-text. The agent notes every request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from '../fixtures/home.js';
import { watchedAgent, type WatchedAgent } from '../fixtures/watched-agent.js';
import { cliAsync } from './run-cli.js';

const KEY = ['ghp', 'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8'].join('_');
let target: WatchedAgent;

beforeAll(async () => {
  target = await watchedAgent('target');
});

afterAll(async () => {
  await target?.close();
});

describe('a2a-lite send and credentials in the text', () => {
  it('refuses the text, naming the kind and never the value, and sends nothing', async () => {
    const home = tempHome();
    for (const args of [
      ['send', target.url, `echo here is my token ${KEY}`],
      ['send', '--hub', target.url, '--skill', 'echo', `echo ${KEY}`],
      ['send', target.url, `echo Authorization: Bearer ${KEY}`, '--json'],
    ]) {
      const { code, stdout, stderr } = await cliAsync(args, { home });
      expect(code, stderr).toBe(6);
      expect(stderr).toContain('holds what looks like a credential (GitHub token');
      expect(stderr).toContain('--allow-credential-text');
      expect(stdout + stderr).not.toContain(KEY);
    }
    expect(target.seen).toEqual([]);
  });

  it('sends it when the operator says so with --allow-credential-text', async () => {
    const home = tempHome();
    const { code, stderr } = await cliAsync(['send', target.url, `echo ${KEY}`, '--allow-credential-text'], { home });
    expect(code, stderr).toBe(0);
    expect(target.calls().some((s) => s.body.includes(KEY))).toBe(true);
  });
});
