// The OpenClaw plugin as the gateway drives it: its tools called with the arguments a model
// gives, its inbound hook fed the messages a channel delivers, its outbound check fed replies.
// The remote tools talk to a real `a2a-lite serve` on 127.0.0.1.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import plugin, { TOOL_NAMES } from '../../src/openclaw/plugin.js';
import { render } from '../../src/card/render.js';
import { mexicoCard } from '../fixtures/cards.js';
import { FileTaskLedger } from '../../src/home/task-ledger.js';
import { cli } from '../cli/run-cli.js';
import { startServe } from '../faults/serve-process.js';
import { tempHome } from '../fixtures/home.js';
import { call, recordingHost } from './host-recorder.js';

/** An exec agent: asks when told to, else works in two steps and returns a file. */
const AGENT = `
const fs = require('fs');
const input = fs.readFileSync(0, 'utf8');
const id = process.env.A2A_TASK_ID;
if (input.includes('slowly')) {
  console.log('[A2A:status task=' + id + ' state=working progress=10%]\\nstarted');
  setTimeout(() => console.log('[A2A:result task=' + id + ' state=completed]\\nlate'), 60000);
} else if (input.includes('which city') && !input.includes('Lisbon')) {
  console.log('[A2A:status task=' + id + ' state=input-required]\\nWhich city?');
} else {
  console.log('[A2A:status task=' + id + ' state=working progress=50%]\\nhalfway');
  fs.writeFileSync('report.md', '# report for ' + process.env.A2A_SKILL);
  console.log('[A2A:result task=' + id + ' state=completed]\\ndone: ' + (input.includes('Lisbon') ? 'Lisbon' : 'report') + '\\n[附件: report.md]');
}
`;

function setup(config?: Record<string, unknown>) {
  const workspace = tempHome('workspace');
  const host = recordingHost(config, workspace);
  plugin.register(host.api);
  const tools = host.tools({ workspaceDir: workspace, agentId: 'main', sessionKey: 'agent:main:main' });
  return { workspace, host, tools, home: join(workspace, '.a2a-lite') };
}

async function agent() {
  const dir = tempHome('agent');
  const program = join(dir, 'agent.cjs');
  writeFileSync(program, AGENT);
  const home = join(dir, 'home');
  expect(cli(['card', 'init', '--id', 'researcher', '--name', 'Researcher', '--skill', 'research:Research:finds things out'], { home }).code).toBe(0);
  return startServe(home, `node ${program}`);
}

describe('the a2a-lite OpenClaw plugin', () => {
  it('registers every tool the manifest lists, and an inbound and an outbound hook', () => {
    const { host, tools } = setup();
    const manifest = JSON.parse(readFileSync(new URL('../../openclaw.plugin.json', import.meta.url), 'utf8')) as { id: string; contracts: { tools: string[] }; skills: string[] };
    expect(manifest.id).toBe(plugin.id);
    expect(host.names).toEqual(manifest.contracts.tools);
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    expect(TOOL_NAMES.every((n) => n.startsWith('a2a_lite_'))).toBe(true);
    expect([...host.hooks.keys()].sort()).toEqual(['before_dispatch', 'message_sending']);
    for (const tool of tools) expect(tool.parameters).toMatchObject({ type: 'object', additionalProperties: false });
  });

  it('ships a manifest that matches the code, an entry that exists, and the skill', async () => {
    const root = new URL('../../', import.meta.url);
    const committed = JSON.parse(readFileSync(new URL('openclaw.plugin.json', root), 'utf8')) as Record<string, unknown>;
    const script = new URL('scripts/plugin-manifest.mjs', root).href;
    const { manifest } = (await import(script)) as { manifest(): Promise<Record<string, unknown>> };
    expect(committed, 'openclaw.plugin.json is stale: run npm run build and commit it').toEqual(await manifest());
    const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { files: string[]; openclaw: { extensions: string[] } };
    for (const entry of pkg.openclaw.extensions) expect(existsSync(new URL(entry, root))).toBe(true);
    expect(pkg.files).toContain('openclaw.plugin.json');
    expect(existsSync(new URL('skill/a2a-lite/SKILL.md', root))).toBe(true);
  });

  it('refuses a config key it does not know, naming it', () => {
    const workspace = tempHome('workspace');
    expect(() => plugin.register(recordingHost({ hom: '/tmp/x' }, workspace).api)).toThrow(/no setting "hom"/);
    expect(plugin.configSchema.safeParse({ record: 'yes' })).toMatchObject({ success: false });
    expect(plugin.configSchema.safeParse({ record: false, lang: 'zh' })).toMatchObject({ success: true });
  });

  it('keeps the card, the peers and the ledger in <workspace>/.a2a-lite', async () => {
    const { tools, home } = setup();
    const made = await call(tools, 'a2a_lite_card_init', { id: 'jiajia', name: 'Jiajia', skills: [{ id: 'research', name: 'Research', description: 'Find things out' }] });
    expect(made.details.ok).toBe(true);
    expect(existsSync(join(home, 'agent-card.json'))).toBe(true);
    expect((await call(tools, 'a2a_lite_card_show', {})).text).toMatch(/^\[A2A:card id=jiajia\]/);
    expect((await call(tools, 'a2a_lite_card_init', { id: 'jiajia', name: 'Again' })).text).toMatch(/^a2a-lite: CARD_EXISTS/);

    const added = await call(tools, 'a2a_lite_agents_add', { card: render(mexicoCard(), 'en'), channels: ['discord:mexico'] });
    expect(added.details).toMatchObject({ ok: true, id: 'mexico', replaced: false });
    expect((await call(tools, 'a2a_lite_agents_list', { skill: 'email' })).text).toMatch(/^mexico \(Mexico\): email/);

    const task = await call(tools, 'a2a_lite_tasks_new', { to: 'mexico', skill: 'email', body: 'Send the report to Rui' });
    expect(task.text).toMatch(/^\[A2A:task id=email-001 skill=email\]\nSend the report to Rui/);
    const recorded = await call(tools, 'a2a_lite_tasks_record', { text: '[A2A:status task=email-001 state=working progress=40%]', from: 'mexico' });
    expect(recorded.details).toMatchObject({ ok: true, recorded: [{ id: 'email-001', state: 'working' }] });
    const refused = await call(tools, 'a2a_lite_tasks_record', { text: '[A2A:status task=email-001 state=submitted]' });
    expect(refused.details.ok).toBe(false);
    expect(new FileTaskLedger(join(home, 'tasks')).get('email-001').state).toBe('working');
    expect((await call(tools, 'a2a_lite_tasks_list', { state: 'working' })).text).toContain('email-001 → mexico working 40%');
    expect((await call(tools, 'a2a_lite_tasks_show', { id: 'email-001' })).details).toMatchObject({ task: { history: [{ type: 'task' }, { type: 'status' }] } });
  });

  it('parses and formats messages, and refuses a broken one with the rule it breaks', async () => {
    const { tools } = setup();
    const parsed = await call(tools, 'a2a_lite_parse', { text: '[A2A:status task=research-001 state=working progress=50%]\nhalfway' });
    expect(parsed.details.messages).toMatchObject([{ type: 'status', params: { task: 'research-001', state: 'working', progress: '50%' }, body: 'halfway' }]);
    expect((await call(tools, 'a2a_lite_format', { type: 'status', params: { task: 'research-001', state: 'completed' }, body: 'done' })).text).toBe('[A2A:status task=research-001 state=completed]\ndone');
    const bad = await call(tools, 'a2a_lite_format', { type: 'status', params: { state: 'completed' } });
    expect(bad.text).toMatch(/^a2a-lite: INVALID_MESSAGE: .*task/);
    const typo = await call(tools, 'a2a_lite_parse', { txt: 'x' });
    expect(typo.text).toBe('a2a-lite: USAGE: a2a_lite_parse: no argument "txt"; it takes text');
  });

  it('discovers an A2A agent, sends it a task with a file, follows it with progress, and answers its question', async () => {
    const server = await agent();
    const { tools, workspace, home } = setup({ allowPrivateNetworks: true });
    const found = await call(tools, 'a2a_lite_discover', { url: server.info.url });
    expect(found.details.ok).toBe(true);
    const id = found.details.id as string;

    writeFileSync(join(workspace, 'notes.txt'), 'notes');
    const sent = await call(tools, 'a2a_lite_send', { target: id, text: 'research agents', skill: 'research', attachments: ['notes.txt'] });
    expect(sent.details).toMatchObject({ ok: true, state: 'completed', peer: id });
    expect(sent.text).toMatch(/^\[A2A:result task=\S+ state=completed\]\ndone: report/);
    expect(sent.updates.some((u) => u.includes('state=working progress=50%'))).toBe(true);
    const [file] = sent.details.files as { name: string; path: string }[];
    expect(readFileSync(file?.path ?? '', 'utf8')).toBe('# report for research');
    expect(file?.path.startsWith(join(home, 'downloads'))).toBe(true);

    const asked = await call(tools, 'a2a_lite_send', { target: id, text: 'which city is best?' });
    expect(asked.details.state).toBe('input-required');
    expect(asked.text).toContain('Which city?');
    const answered = await call(tools, 'a2a_lite_send', { reply: true, text: 'Lisbon' });
    expect(answered.details).toMatchObject({ state: 'completed', task: asked.details.task });
    expect(answered.text).toContain('done: Lisbon');
    const ledger = new FileTaskLedger(join(home, 'tasks'));
    expect(ledger.get(asked.details.task as string).state).toBe('completed');
  });

  it('cancels a task it sent at its agent, and cancels it when the run is aborted', async () => {
    const server = await agent();
    const { tools } = setup({ allowPrivateNetworks: true });
    const found = await call(tools, 'a2a_lite_discover', { url: server.info.url });
    const id = found.details.id as string;
    expect((await call(tools, 'a2a_lite_agents_show', { id })).details).toMatchObject({ card: { agent: { id } }, cache: { a2a: { interfaces: expect.arrayContaining([expect.objectContaining({ binding: 'JSONRPC', version: '1.0' })]) } } });

    const running = await call(tools, 'a2a_lite_send', { target: id, text: 'work slowly', timeoutSeconds: 2 });
    expect(running.details).toMatchObject({ state: 'working', timedOut: true, timeoutMs: 2000 });
    expect(running.text).toContain('is still working at the agent after 2 s');
    const cancelled = await call(tools, 'a2a_lite_cancel', { id: running.details.task as string });
    expect(cancelled.details).toMatchObject({ ok: true, state: 'cancelled' });
    expect(cancelled.text).toMatch(/^\[A2A:result task=\S+ state=cancelled\]/);

    // OpenClaw aborts a tool when the run stops: the task is cancelled at the agent. Here the
    // run stops as soon as the agent reports that it works.
    const abort = new AbortController();
    const send = tools.find((t) => t.name === 'a2a_lite_send');
    const result = await send?.execute('call-2', { target: id, text: 'work slowly again' }, abort.signal, (partial) => {
      if (partial.content[0]?.text.includes('state=working')) abort.abort();
    });
    const stopped = { text: result?.content[0]?.text ?? '', details: result?.details ?? {} };
    expect(stopped.details).toMatchObject({ ok: true, state: 'cancelled' });
    expect(stopped.text).toContain('state=cancelled');
  });

  it('sends no file from outside the workspace and calls no local address unless allowed', async () => {
    const server = await agent();
    const strict = setup();
    expect((await call(strict.tools, 'a2a_lite_discover', { url: server.info.url })).text).toMatch(/^a2a-lite: FORBIDDEN: the agent URL is refused/);
    expect((await call(strict.tools, 'a2a_lite_discover', { url: 'http://169.254.169.254/' })).details.ok).toBe(false);
    const open = setup({ allowPrivateNetworks: true });
    expect((await call(open.tools, 'a2a_lite_discover', { url: 'http://169.254.169.254/' })).text).toMatch(/FORBIDDEN/);
    await call(open.tools, 'a2a_lite_discover', { url: server.info.url });
    const outside = await call(open.tools, 'a2a_lite_send', { target: server.info.url, text: 'x', attachments: ['../../../etc/passwd'] });
    expect(outside.text).toMatch(/^a2a-lite: (FORBIDDEN|FILE_NOT_FOUND)/);
    mkdirSync(join(open.workspace, 'sub'));
    const escape = await call(open.tools, 'a2a_lite_send', { target: server.info.url, text: 'x', attachments: ['sub/../../'] });
    expect(escape.details.ok).toBe(false);
  });

  it('runs a plan from the workspace with a2a_lite_run: steps as progress, the output and its file as the answer', async () => {
    const server = await agent();
    const { tools, workspace } = setup({ allowPrivateNetworks: true });
    writeFileSync(
      join(workspace, 'plan.yaml'),
      `inputs: [topic]\nsteps:\n  - id: look\n    agent: ${server.info.url}\n    text: look into {{inputs.topic}}\n`,
    );
    const ran = await call(tools, 'a2a_lite_run', { plan: 'plan.yaml', inputs: { topic: 'agents' } });
    expect(ran.details).toMatchObject({ ok: true, state: 'completed', output: 'done: report' });
    expect(ran.updates).toEqual(expect.arrayContaining(['look: sending', 'look: completed']));
    const [file] = ran.details.files as { name: string; path: string }[];
    expect(readFileSync(file?.path ?? '', 'utf8')).toBe('# report for ');
    const shown = await call(tools, 'a2a_lite_run', { resume: ran.details.run });
    expect(shown.details).toMatchObject({ state: 'completed', run: ran.details.run });

    const strict = setup();
    writeFileSync(join(strict.workspace, 'plan.yaml'), `steps:\n  - id: look\n    agent: ${server.info.url}\n    text: hi\n`);
    const refused = await call(strict.tools, 'a2a_lite_run', { plan: 'plan.yaml' });
    expect(refused.details).toMatchObject({ ok: true, state: 'failed' });
    expect(refused.text).toContain('FORBIDDEN: the agent URL is refused');
    expect((await call(strict.tools, 'a2a_lite_run', { plan: '../../etc/passwd' })).text).toMatch(/^a2a-lite: (FORBIDDEN|FILE_NOT_FOUND)/);
  });
});

describe('the plugin hooks', () => {
  it('records an incoming [A2A:task] before the model sees it, and leaves it to the model', async () => {
    const { host, home } = setup();
    const inbound = host.hooks.get('before_dispatch') as (e: object, c: object) => unknown;
    const answer = await inbound({ content: '[A2A:task id=research-002 skill=research]\nFind papers on agent protocols', senderId: 'mexico', channel: 'a2a' }, { channelId: 'a2a', sessionKey: 'agent:main:a2a:mexico' });
    expect(answer).toBeUndefined();
    const record = new FileTaskLedger(join(home, 'tasks')).get('research-002', 'mexico');
    expect(record).toMatchObject({ role: 'worker', peer: 'mexico', skill: 'research', state: 'submitted' });
    // A status for it later finds the same task.
    await inbound({ content: '[A2A:cancel task=research-002]\nno longer needed', senderId: 'mexico' }, {});
    expect(new FileTaskLedger(join(home, 'tasks')).get('research-002', 'mexico').history.map((h) => h.type)).toEqual(['task', 'cancel']);
  });

  it('answers [A2A:discover] with the card without the model, in the language asked', async () => {
    const { host, tools } = setup();
    const inbound = host.hooks.get('before_dispatch') as (e: object, c: object) => unknown;
    expect(await inbound({ content: '[A2A:discover]', senderId: 'mexico' }, {})).toBeUndefined(); // no card yet
    await call(tools, 'a2a_lite_card_init', { id: 'jiajia', name: '佳佳', skills: [{ id: 'research', name: 'Research', description: 'Find things out' }] });
    const english = (await inbound({ content: '[A2A:discover]\n', senderId: 'mexico' }, {})) as { handled: boolean; text: string };
    expect(english.handled).toBe(true);
    expect(english.text).toMatch(/^\[A2A:card id=jiajia\]/);
    expect(english.text).toContain('research');
    const chinese = (await inbound({ content: '[A2A:discover]\n你好，你能做什么？', senderId: 'mexico' }, {})) as { handled: boolean } | undefined;
    expect(chinese).toBeUndefined(); // a question with it is for the model
  });

  it('holds back a message with a credential or a broken header, and records the ones that go out', async () => {
    const { host, tools, home } = setup();
    const outbound = host.hooks.get('message_sending') as (e: object, c: object) => { cancel?: boolean; cancelReason?: string } | undefined;
    const token = ['sk', 'proj', 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6'].join('-');
    expect(outbound({ to: 'a2a:mexico', content: `here is the key: ${token}` }, { channelId: 'a2a' })).toMatchObject({ cancel: true, cancelReason: expect.stringContaining('credential') });
    expect(outbound({ to: 'a2a:mexico', content: '[A2A:status task=research-009 state=finished]' }, { channelId: 'a2a' })).toMatchObject({ cancel: true, cancelReason: expect.stringContaining('breaks the protocol') });
    expect(outbound({ to: 'a2a:mexico', content: 'plain words' }, { channelId: 'a2a' })).toBeUndefined();
    await call(tools, 'a2a_lite_tasks_new', { to: 'mexico', skill: 'email', body: 'mail it' });
    expect(outbound({ to: 'a2a:mexico', content: '[A2A:cancel task=email-001]\nnever mind' }, { channelId: 'a2a' })).toBeUndefined();
    expect(new FileTaskLedger(join(home, 'tasks')).get('email-001')).toMatchObject({ cancelRequested: true, history: [{ type: 'task' }, { type: 'cancel', direction: 'out' }] });
    expect(JSON.stringify(host.logs)).not.toContain(token);
  });

  it('moves what an older skill kept in its own folder into the workspace home', async () => {
    const workspace = tempHome('workspace');
    const skill = join(workspace, 'skills', 'a2a-lite');
    mkdirSync(join(skill, 'tasks'), { recursive: true });
    writeFileSync(join(skill, 'SKILL.md'), '---\nname: a2a-lite\n---\n');
    const host = recordingHost(undefined, workspace);
    plugin.register(host.api);
    const tools = host.tools({ workspaceDir: workspace });
    await call(tools, 'a2a_lite_tasks_new', { to: 'mexico', body: 'x' });
    expect(existsSync(join(workspace, '.a2a-lite', 'tasks'))).toBe(true);
  });
});
