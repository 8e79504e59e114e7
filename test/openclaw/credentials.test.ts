// What the plugin's tools may send. Tokens are the operator's choice (review finding 2): a model
// that names an environment variable gets it sent only when the plugin's config lists that
// variable and binds it to the origin actually called: the agent's interface as its card names
// it, or the plan's hub. And no credential goes out in a message's words (finding 17). Real
// tools, real agents on 127.0.0.1 that note every request and its Authorization.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/openclaw/config.js';
import { toolsFor } from '../../src/openclaw/plugin.js';
import { cliAsync } from '../cli/run-cli.js';
import { tempHome } from '../fixtures/home.js';
import { watchedAgent, type WatchedAgent } from '../fixtures/watched-agent.js';
import { call } from './host-recorder.js';

const MODEL_KEY = ['sk', 'proj', 'Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz9Xc'].join('-');
const PEER_TOKEN = ['peer', 'token', 'Mn3Bv5Cx7Zl9'].join('-');
const ENV = { OPENAI_API_KEY: MODEL_KEY, PEER_TOKEN, PATH: process.env.PATH ?? '' };

const agents: WatchedAgent[] = [];
afterEach(async () => {
  while (agents.length > 0) await agents.pop()?.close();
});

async function agent(id: string, options: Parameters<typeof watchedAgent>[1] = {}): Promise<WatchedAgent> {
  const started = await watchedAgent(id, options);
  agents.push(started);
  return started;
}

/** The plugin's tools for one run, with `config` and the gateway environment `ENV`. */
function tools(config: Record<string, unknown>) {
  const workspace = tempHome('workspace');
  const made = toolsFor(readConfig({ allowPrivateNetworks: true, ...config }), { workspaceDir: workspace, agentId: 'main' }, { config: {} }, ENV);
  return { tools: made, workspace, home: join(workspace, '.a2a-lite') };
}

/** Every Authorization header the agent was sent. */
const authorizations = (agent: WatchedAgent) => agent.seen.map((s) => s.authorization).filter((a) => a !== undefined);

describe('the plugin sends only the tokens its operator configured', () => {
  it('refuses a variable the config does not name (OPENAI_API_KEY), and sends nothing', async () => {
    const target = await agent('target');
    const { tools: run } = tools({ tokens: [{ env: 'PEER_TOKEN', origin: target.origin }] });
    for (const [tool, args] of [
      ['a2a_lite_send', { target: target.url, text: 'echo hi', tokenEnv: 'OPENAI_API_KEY' }],
      ['a2a_lite_discover', { url: target.url, tokenEnv: 'OPENAI_API_KEY' }],
    ] as const) {
      const refused = await call(run, tool, args);
      expect(refused.details).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
      expect(refused.text).toContain('"OPENAI_API_KEY" is not a token variable the operator allows');
      expect(refused.text).toContain('PEER_TOKEN');
    }
    expect(target.seen).toEqual([]);
  });

  it('refuses a configured variable toward an origin it is not bound to, the interface a card names included', async () => {
    const home = await agent('home', { token: PEER_TOKEN });
    const elsewhere = await agent('elsewhere');
    // A card served at the bound origin whose interface is at another.
    const decoy = await agent('decoy', { interfaceAt: () => elsewhere.url });
    const { tools: run } = tools({ tokens: [{ env: 'PEER_TOKEN', origin: home.origin }, { env: 'PEER_TOKEN', origin: decoy.origin }] });

    const direct = await call(run, 'a2a_lite_send', { target: elsewhere.url, text: 'echo hi', tokenEnv: 'PEER_TOKEN' });
    expect(direct.details).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    expect(direct.text).toContain(`the token in PEER_TOKEN is for ${home.origin}, ${decoy.origin} only, not for ${elsewhere.origin}`);
    // Nor is the name kept with that agent, where a later call without these rules (the CLI's) would find it.
    const shown = await call(run, 'a2a_lite_agents_show', { id: 'elsewhere' });
    expect(shown.details.ok === false || (shown.details.cache as { tokenEnv?: string }).tokenEnv === undefined, shown.text).toBe(true);
    const led = await call(run, 'a2a_lite_send', { target: decoy.url, text: 'echo hi', tokenEnv: 'PEER_TOKEN' });
    expect(led.text).toContain(`not for ${elsewhere.origin}`);
    expect(elsewhere.calls()).toEqual([]);
    expect(authorizations(elsewhere)).toEqual([]);
    expect(decoy.calls()).toEqual([]);

    // Bound and configured: the token goes, and only there.
    const sent = await call(run, 'a2a_lite_send', { target: home.url, text: 'echo hi', tokenEnv: 'PEER_TOKEN' });
    expect(sent.details).toMatchObject({ ok: true, state: 'completed' });
    expect(sent.text).toContain('echo: hi');
    expect(new Set(authorizations(home))).toEqual(new Set([`Bearer ${PEER_TOKEN}`]));
    expect(home.calls().length).toBeGreaterThan(0);
  });

  it('does not send the variable a known agent was cached with unless the config binds it there', async () => {
    const target = await agent('target');
    const { tools: run, home } = tools({ tokens: [{ env: 'PEER_TOKEN', origin: 'https://agents.example.com' }] });
    // Cached by a discover that named OPENAI_API_KEY (the CLI's, or a model's before this rule).
    expect((await cliAsync(['discover', target.url, '--token-env', 'OPENAI_API_KEY'], { home, env: ENV })).code).toBe(0);
    const seenBefore = target.seen.length;
    const refused = await call(run, 'a2a_lite_send', { target: 'target', text: 'echo hi' });
    expect(refused.details).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    expect(refused.text).toContain('the cache entry of target');
    expect(target.seen.length).toBe(seenBefore);
    expect(authorizations(target)).toEqual([]);
  });

  it('cancels with no token the config does not allow', async () => {
    const target = await agent('target', { token: PEER_TOKEN });
    const { tools: run } = tools({ tokens: [{ env: 'PEER_TOKEN', origin: target.origin }] });
    const running = await call(run, 'a2a_lite_send', { target: target.url, text: 'slow', tokenEnv: 'PEER_TOKEN', timeoutSeconds: 1 });
    expect(running.details).toMatchObject({ ok: true, state: 'working', timedOut: true });
    const refused = await call(run, 'a2a_lite_cancel', { id: running.details.task as string, tokenEnv: 'OPENAI_API_KEY' });
    expect(refused.details).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    expect(authorizations(target).every((a) => a === `Bearer ${PEER_TOKEN}`)).toBe(true);
    const cancelled = await call(run, 'a2a_lite_cancel', { id: running.details.task as string, tokenEnv: 'PEER_TOKEN' });
    expect(cancelled.details).toMatchObject({ ok: true, state: 'cancelled' });
  });

  it("refuses a plan whose tokenEnv or hub.tokenEnv the config does not allow, before anything is sent", async () => {
    const target = await agent('target');
    const { tools: run, workspace } = tools({ tokens: [{ env: 'PEER_TOKEN', origin: 'https://agents.example.com' }] });
    writeFileSync(join(workspace, 'step.yaml'), `steps:\n  - id: look\n    agent: ${target.url}\n    text: echo hi\n    tokenEnv: OPENAI_API_KEY\n`);
    const step = await call(run, 'a2a_lite_run', { plan: 'step.yaml' });
    expect(step.text).toMatch(/^a2a-lite: FORBIDDEN: plan: steps.look.tokenEnv: "OPENAI_API_KEY" is not a token variable the operator allows/);
    writeFileSync(join(workspace, 'hub.yaml'), `hub:\n  url: ${target.url}\n  tokenEnv: OPENAI_API_KEY\nsteps:\n  - id: look\n    skill: echo\n    text: echo hi\n`);
    expect((await call(run, 'a2a_lite_run', { plan: 'hub.yaml' })).text).toMatch(/^a2a-lite: FORBIDDEN: plan: hub.tokenEnv/);
    // Configured, but bound to another origin than the hub's: the hub is never asked.
    writeFileSync(join(workspace, 'bound.yaml'), `hub:\n  url: ${target.url}\n  tokenEnv: PEER_TOKEN\nsteps:\n  - id: look\n    skill: echo\n    text: echo hi\n`);
    const bound = await call(run, 'a2a_lite_run', { plan: 'bound.yaml' });
    expect(bound.details).toMatchObject({ ok: true, state: 'failed' });
    expect(bound.text).toContain(`the token in PEER_TOKEN is for https://agents.example.com only, not for ${target.origin}`);
    expect(target.seen).toEqual([]);
  });

  it('lists the configured names to the model, and reads the config strictly', () => {
    const { tools: run } = tools({ tokens: [{ env: 'PEER_TOKEN', origin: 'https://agents.example.com' }] });
    const send = run.find((t) => t.name === 'a2a_lite_send');
    expect((send?.parameters.properties as Record<string, { enum?: string[] }>).tokenEnv?.enum).toEqual(['PEER_TOKEN']);
    expect(readConfig({ tokens: [{ env: 'HUB_TOKEN', origin: 'HTTPS://Hub.Example.com:443/' }] }).tokens).toEqual([{ env: 'HUB_TOKEN', origin: 'https://hub.example.com' }]);
    expect(() => readConfig({ tokens: [{ env: 'X', origin: 'https://a.example.com/path' }] })).toThrow(/tokens\[0\]\.origin is an origin such as/);
    expect(() => readConfig({ tokens: [{ env: 'sk-abc', origin: 'https://a.example.com' }] })).toThrow(/tokens\[0\]\.env is the name of an environment variable/);
    expect(() => readConfig({ tokens: [{ env: 'X', origin: 'https://a.example.com', agent: 'x' }] })).toThrow(/has no field "agent"/);
    expect(() => readConfig({ tokens: { X: 'https://a.example.com' } })).toThrow(/tokens is a list/);
  });
});

describe('the plugin sends no credential in a message', () => {
  it('refuses a2a_lite_send with a credential in its text, and nothing reaches the agent', async () => {
    const target = await agent('target');
    const { tools: run } = tools({});
    for (const text of [`use this key: ${MODEL_KEY}`, 'clone https://rui:hunter2hunter2@git.example.com/repo', '-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl…']) {
      const refused = await call(run, 'a2a_lite_send', { target: target.url, text });
      expect(refused.details).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
      expect(refused.text).toContain('holds what looks like a credential');
      expect(refused.text).not.toContain(MODEL_KEY);
    }
    expect(target.seen).toEqual([]);
    const clean = await call(run, 'a2a_lite_send', { target: target.url, text: 'echo the key is in the vault' });
    expect(clean.details).toMatchObject({ ok: true, state: 'completed' });
  });
});
