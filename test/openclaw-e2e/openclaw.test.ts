// a2a-lite inside a real OpenClaw 2026.9.6 gateway on Node 24, a scripted model standing in for
// the language model: the packed package installed as OpenClaw installs it (the CLI with
// `npm install -g --ignore-scripts` into OpenClaw's prefix, the plugin with `openclaw plugins
// install`), the skill eligible, the plugin's tools offered to the model and called by it, an
// incoming [A2A:task] recorded by the plugin's hook, OpenClaw's own a2a channel talking to
// `a2a-lite serve` and `a2a-lite send` both ways with the A2A-Lite headers kept, and a forced
// reinstall that leaves the agent's data alone.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_NAMES } from '../../src/openclaw/plugin.js';
import { NODE24 } from '../node24/node24.js';
import { needsTool } from '../needs-tool.js';
import { OpenClaw, OPENCLAW_MISSING, freePort, hasOpenClaw, type Run } from './gateway.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const TOKENS = { gateway: 'gw-e2e-token-7f3a9c21', liteToClaw: 'lite-to-claw-5d8e2b47', clawToLite: 'claw-to-lite-9a1c6f30' };

/** The exec agent behind `a2a-lite serve`: notes what it was given, answers with a result. */
const LITE_AGENT = `
const fs = require('fs');
const input = fs.readFileSync(0, 'utf8');
fs.appendFileSync(process.env.E2E_SEEN, JSON.stringify({ skill: process.env.A2A_SKILL, peerTask: process.env.A2A_PEER_TASK_ID, input }) + '\\n');
fs.writeFileSync('findings.md', '# findings');
console.log('[A2A:result task=' + process.env.A2A_TASK_ID + ' state=completed]\\nthree papers on agent protocols\\n[附件: findings.md]');
`;

let oc: OpenClaw;
let root: string;
let tarball: string;
let lite: { child: ChildProcess; url: string; jsonrpc: string; stderr: () => string };
let liteHome: string;
let modelLog: string;
let seen: string;
let cliBin: string;

function npm(args: string[], env: NodeJS.ProcessEnv = {}): Run {
  return oc.exec('npm', args, { cwd: REPO, env });
}

/** The installed a2a-lite CLI, run on Node 24 as OpenClaw's agent runs it. */
function a2aLite(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Run {
  return oc.exec(NODE24, [cliBin, ...args], options);
}

function modelRequests(): { messages: { role: string; content: unknown }[]; tools: string[] }[] {
  return existsSync(modelLog) ? readFileSync(modelLog, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as never) : [];
}

function ledger(id: string): Record<string, unknown> | undefined {
  const r = a2aLite(['tasks', 'show', id, '--json'], { cwd: oc.workspace });
  return r.code === 0 ? (JSON.parse(r.stdout) as Record<string, unknown>) : undefined;
}

async function until<T>(what: () => T | undefined, message: string, ms = 60_000): Promise<T> {
  for (let waited = 0; waited < ms; waited += 500) {
    const found = what();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(message);
}

const noOpenClaw = needsTool('OpenClaw end to end (test/openclaw-e2e)', hasOpenClaw, OPENCLAW_MISSING);

describe.skipIf(noOpenClaw)('a2a-lite in a real OpenClaw gateway', { timeout: 240_000 }, () => {
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'a2a-lite-openclaw-'));
    oc = new OpenClaw(root, TOKENS.gateway);
    Object.assign(oc.env, { A2A_E2E_LITE_TO_CLAW: TOKENS.liteToClaw, A2A_E2E_CLAW_TO_LITE: TOKENS.clawToLite });

    // The package as it would be published.
    const packed = npm(['pack', '--ignore-scripts', '--pack-destination', root]);
    expect(packed.code, packed.stderr).toBe(0);
    tarball = join(root, packed.stdout.trim().split('\n').at(-1) as string);

    // The skill's node install, as OpenClaw runs it: no install script ever runs.
    const cli = npm(['install', '-g', '--ignore-scripts', '--no-audit', '--no-fund', tarball], { NPM_CONFIG_PREFIX: oc.prefix });
    expect(cli.code, cli.stderr).toBe(0);
    cliBin = join(oc.prefix, 'lib', 'node_modules', 'a2a-lite', 'dist', 'cli', 'bin.js');
    // The plugin, as OpenClaw installs a package.
    const plugin = oc.run(['plugins', 'install', `npm-pack:${tarball}`, '--force', '--accept-capabilities']);
    expect(plugin.code, plugin.stdout + plugin.stderr).toBe(0);

    // The lite agent: a2a-lite serve with an exec program, answering OpenClaw's fire-and-forget sends.
    const port = await freePort();
    liteHome = join(root, 'lite');
    seen = join(root, 'seen.jsonl');
    writeFileSync(join(root, 'agent.cjs'), LITE_AGENT);
    expect(a2aLite(['card', 'init', '--home', liteHome, '--id', 'lite', '--name', 'Lite', '--skill', 'research:Research:reads papers', '--file-transfer']).code).toBe(0);
    const child = spawn(
      NODE24,
      [cliBin, 'serve', '--home', liteHome, '--host', '127.0.0.1', '--port', '0', '--json', '--exec', 'node agent.cjs',
        '--auth-bearer-env', 'A2A_E2E_CLAW_TO_LITE', '--reply-to', `A2A_E2E_CLAW_TO_LITE=http://127.0.0.1:${port}/a2a/v1`, '--reply-token-env', 'A2A_E2E_CLAW_TO_LITE=A2A_E2E_LITE_TO_CLAW'],
      { cwd: root, env: { ...oc.env, E2E_SEEN: seen }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
    const info = await until(() => (out.includes('\n') ? (JSON.parse(out.slice(0, out.indexOf('\n'))) as { url: string; jsonrpc: string }) : undefined), `serve did not start: ${err}`, 30_000);
    lite = { child, url: info.url, jsonrpc: info.jsonrpc, stderr: () => err };

    // OpenClaw's config: the scripted model, the plugin on loopback, the a2a channel with one peer.
    modelLog = join(root, 'model.jsonl');
    const modelPort = await oc.startModel(modelLog);
    const config = oc.config() as { plugins?: { entries?: Record<string, Record<string, unknown>> } };
    const entries = config.plugins?.entries ?? {};
    // The one token the model may send, and only to the lite agent.
    const tokens = [{ env: 'A2A_E2E_CLAW_TO_LITE', origin: new URL(lite.url).origin }];
    entries['a2a-lite'] = { ...entries['a2a-lite'], enabled: true, config: { allowPrivateNetworks: true, tokens } };
    oc.writeConfig({
      ...config,
      plugins: { ...config.plugins, entries },
      gateway: { mode: 'local', bind: 'loopback', port, auth: { mode: 'token', token: '${OPENCLAW_GATEWAY_TOKEN}' } },
      models: { providers: { mock: { baseUrl: `http://127.0.0.1:${modelPort}/v1`, apiKey: 'mock-key', api: 'openai-completions', models: [{ id: 'scripted', name: 'Scripted', input: ['text'], contextWindow: 128000, maxTokens: 4096 }] } } },
      agents: { defaults: { model: { primary: 'mock/scripted' } } },
      channels: { a2a: { enabled: true, advertisedUrl: `http://127.0.0.1:${port}`, peers: { lite: { token: '${A2A_E2E_LITE_TO_CLAW}', url: lite.jsonrpc, outboundToken: '${A2A_E2E_CLAW_TO_LITE}' } } } },
    });

    // The OpenClaw agent's own card, made where its workspace keeps a2a-lite's files.
    mkdirSync(join(oc.workspace, '.a2a-lite'), { recursive: true });
    const card = a2aLite(['card', 'init', '--id', 'claw', '--name', 'Claw', '--skill', 'research:Research:looks things up'], { cwd: oc.workspace });
    expect(card.code, card.stderr).toBe(0);
    await oc.startGateway(port);
  }, 420_000);

  afterAll(() => {
    lite?.child.kill('SIGKILL');
    oc?.stop();
    if (root && process.env.A2A_E2E_KEEP === undefined) rmSync(root, { recursive: true, force: true });
    else if (root) writeFileSync(join(root, 'gateway.log'), oc.gateway?.log() ?? '');
  });

  it('installs as OpenClaw installs it: the CLI runs on Node 24 from the prefix, the skill is eligible, the plugin loads', () => {
    expect(a2aLite(['--version']).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const skill = oc.run(['skills', 'info', 'a2a-lite', '--json']);
    expect(skill.code, skill.stderr).toBe(0);
    expect(JSON.parse(skill.stdout)).toMatchObject({ name: 'a2a-lite', eligible: true, missing: { bins: [] } });
    const inspected = oc.run(['plugins', 'inspect', 'a2a-lite', '--runtime', '--json']);
    expect(inspected.code, inspected.stderr).toBe(0);
    const plugin = (JSON.parse(inspected.stdout) as { plugin: { status: string; toolNames: string[]; hookCount: number } }).plugin;
    expect(plugin.status).toBe('loaded');
    expect(plugin.toolNames).toEqual(TOOL_NAMES);
    expect(plugin.hookCount).toBe(2);
  });

  it('offers the tools to the model, and a model turn calling a2a_lite_send gets the result of a real a2a-lite serve', () => {
    const args = JSON.stringify({ target: lite.url, text: 'Find papers on agent protocols', skill: 'research', tokenEnv: 'A2A_E2E_CLAW_TO_LITE' });
    const turn = oc.run(['agent', '--agent', 'main', '--session-key', 'agent:main:e2e-send', '--message', `CALL a2a_lite_send ${args}`, '--json']);
    expect(turn.code, turn.stderr.slice(-2000)).toBe(0);
    const requests = modelRequests();
    const system = JSON.stringify(requests.at(-1)?.messages[0]);
    expect(system).toContain('a2a_lite_send');
    // What the model got back from the tool: the lite result and the file saved in the workspace.
    const toolMessage = requests.at(-1)?.messages.findLast((m) => m.role === 'tool');
    const result = (JSON.parse(String(toolMessage?.content)) as { result: { content: { text: string }[]; details: { state: string; files: { path: string }[] } } }).result;
    expect(result.content[0]?.text).toMatch(/^\[A2A:result task=\S+ state=completed\]\nthree papers on agent protocols\n\[附件: findings.md\]/);
    expect(result.details.state).toBe('completed');
    expect(readFileSync(result.details.files[0]?.path ?? '', 'utf8')).toBe('# findings');
    expect(turn.stdout).toContain('three papers on agent protocols');
    const sent = (JSON.parse(readFileSync(seen, 'utf8').trim().split('\n')[0] as string) as { skill: string; input: string });
    expect(sent.skill).toBe('research');
    const tasks = JSON.parse(a2aLite(['tasks', 'list', '--json'], { cwd: oc.workspace }).stdout) as { id: string; peer: string; state: string; role: string }[];
    const mine = tasks.find((t) => t.peer === 'lite' && t.role === 'requester');
    expect(mine?.state).toBe('completed');
    expect(existsSync(join(oc.workspace, '.a2a-lite', 'downloads'))).toBe(true);
  });

  it('records an [A2A:task] arriving over OpenClaw’s a2a channel before the model, and reads the answer’s lite header', () => {
    const env = { A2A_LITE_HOME: join(root, 'sender') };
    const gateway = oc.gateway?.url as string;
    const found = a2aLite(['discover', gateway, '--token-env', 'A2A_E2E_LITE_TO_CLAW', '--json'], { env });
    expect(found.code, found.stderr).toBe(0);
    expect(JSON.parse(found.stdout)).toMatchObject({ card: { agent: { framework: 'openclaw' } } });
    const id = (JSON.parse(found.stdout) as { id: string }).id;
    const sent = a2aLite(['send', id, '[A2A:task id=research-002 skill=research]\nFind papers on agent protocols'], { env });
    expect(sent.code, sent.stderr).toBe(0);
    // The answer's own lite header is read (and shown under the A2A task's id, as recorded here).
    expect(sent.stdout).toMatch(/^\[A2A:result task=\S+ state=completed\]\nanswer from the OpenClaw agent/m);
    expect(ledger('research-002')).toMatchObject({ id: 'research-002', peer: 'lite', role: 'worker', skill: 'research' });
  });

  it('turns an OpenClaw agent’s lite question into exit 13, and the reply goes on in its context', () => {
    const env = { A2A_LITE_HOME: join(root, 'sender') };
    const asked = a2aLite(['send', 'http://127.0.0.1:' + oc.gateway?.port, '[A2A:task id=research-003 skill=research]\nWhich city should the report cover?', '--token-env', 'A2A_E2E_LITE_TO_CLAW'], { env });
    expect(asked.code, asked.stdout + asked.stderr).toBe(13);
    expect(asked.stdout).toContain('state=input-required');
    expect(asked.stdout).toContain('Which city should I look at?');
    const answered = a2aLite(['send', '--reply', 'Lisbon'], { env });
    expect(answered.code, answered.stdout + answered.stderr).toBe(0);
    expect(answered.stdout).toContain('Lisbon it is');
  });

  it('answers [A2A:discover] over the channel with the card, without the model', () => {
    const env = { A2A_LITE_HOME: join(root, 'sender') };
    const before = modelRequests().length;
    const asked = a2aLite(['send', 'http://127.0.0.1:' + oc.gateway?.port, '[A2A:discover]', '--token-env', 'A2A_E2E_LITE_TO_CLAW'], { env });
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stdout).toContain('[A2A:card id=claw]');
    expect(modelRequests().slice(before).some((r) => JSON.stringify(r.messages).includes('[A2A:discover]'))).toBe(false);
  });

  it('sends from OpenClaw’s a2a channel to a2a-lite serve with the header lifted, and serve brings the answer back', async () => {
    // The skill's way: the agent starts the task in its ledger, then sends its message on the channel.
    const task = { to: 'lite', skill: 'research', body: 'Find the newest agent papers', id: 'research-010' };
    const started = oc.run(['agent', '--agent', 'main', '--session-key', 'agent:main:e2e-channel', '--message', `CALL a2a_lite_tasks_new ${JSON.stringify(task)}`, '--json']);
    expect(started.stdout).toContain('[A2A:task id=research-010 skill=research]');
    expect(ledger('research-010')).toMatchObject({ role: 'requester', state: 'submitted' });
    const before = modelRequests().length;
    const sent = oc.run(['message', 'send', '--channel', 'a2a', '--target', 'lite', '--message', '[A2A:task id=research-010 skill=research]\nFind the newest agent papers', '--json']);
    expect(sent.code, sent.stdout + sent.stderr).toBe(0);
    const arrival = await until(() => readFileSync(seen, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { skill: string; peerTask: string; input: string }).find((s) => s.peerTask === 'research-010'), 'serve never ran the task');
    expect(arrival.skill).toBe('research');
    expect(arrival.input).toContain('Find the newest agent papers');
    expect(arrival.input).not.toContain('\\[A2A');
    await until(() => (lite.stderr().includes('reply: sent the completed answer') ? true : undefined), `serve did not answer: ${lite.stderr()}`);
    // The answer reached the OpenClaw agent with its header intact, and the plugin recorded it.
    await until(() => (modelRequests().slice(before).some((r) => JSON.stringify(r.messages).includes('[A2A:result task=research-010 state=completed]')) ? true : undefined), 'the answer never reached the model');
    expect(ledger('research-010')).toMatchObject({ id: 'research-010', peer: 'lite', state: 'completed' });
  });

  it('keeps the ledger and the card when the skill and the plugin are reinstalled with --force', () => {
    const card = readFileSync(join(oc.workspace, '.a2a-lite', 'agent-card.json'), 'utf8');
    const tasksBefore = a2aLite(['tasks', 'list', '--json'], { cwd: oc.workspace }).stdout;
    const skillDir = join(root, 'skill-src');
    cpSync(join(REPO, 'skill', 'a2a-lite'), skillDir, { recursive: true });
    for (let i = 0; i < 2; i += 1) {
      const skill = oc.run(['skills', 'install', skillDir, '--force']);
      expect(skill.code, skill.stdout + skill.stderr).toBe(0);
    }
    expect(existsSync(join(oc.workspace, 'skills', 'a2a-lite', 'SKILL.md'))).toBe(true);
    const plugin = oc.run(['plugins', 'install', `npm-pack:${tarball}`, '--force', '--accept-capabilities']);
    expect(plugin.code, plugin.stdout + plugin.stderr).toBe(0);
    expect(readFileSync(join(oc.workspace, '.a2a-lite', 'agent-card.json'), 'utf8')).toBe(card);
    expect(a2aLite(['tasks', 'list', '--json'], { cwd: oc.workspace }).stdout).toBe(tasksBefore);
    expect(JSON.parse(tasksBefore).length).toBeGreaterThanOrEqual(3);
  });

  it('writes no token into the workspace, the ledger or the logs', () => {
    const files = spawnSync('grep', ['-rlF', '-e', TOKENS.liteToClaw, '-e', TOKENS.clawToLite, join(oc.workspace, '.a2a-lite'), liteHome, join(root, 'sender')], { encoding: 'utf8' });
    expect(files.stdout).toBe('');
    expect(lite.stderr()).not.toContain(TOKENS.liteToClaw);
  });
});
