// Where a served plan's subtasks go (`a2a-lite serve --plan`), with real processes on 127.0.0.1:
// never where the requester says (such a plan is refused at start), and only to addresses the
// operator allows, checked at the interface the agent's card names, before anything is sent.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cli } from '../cli/run-cli.js';
import { AgentSet, WORKER, unique } from './agents.js';

const set = new AgentSet();
const children: ChildProcess[] = [];
const OPERATOR_TOKEN = ['operator', 'token', 'Xy7Kq2Lp9Wz4'].join('-');
let alphaUrl = '';

beforeAll(async () => {
  alphaUrl = (await set.start('alpha')).url;
}, 30_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await set.close();
});

/** Writes a plan file in the suite's folder. */
function planFile(name: string, text: string): string {
  const path = join(set.dir, `${name}.yaml`);
  writeFileSync(path, text);
  return path;
}

/** Starts `a2a-lite serve ARGS --json` on a free port; its JSON-RPC URL. */
async function serve(label: string, args: string[], home = join(set.dir, unique(label))): Promise<string> {
  const child = spawn(process.execPath, [BIN, 'serve', '--home', home, '--host', '127.0.0.1', ...(args.includes('--port') ? [] : ['--port', '0']), '--store', 'memory', '--json', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, OPERATOR_TOKEN, WORKER_LOG: set.log, WORKER_NAME: label },
  });
  children.push(child);
  let out = '';
  child.stdout?.on('data', (chunk) => (out += chunk));
  await Promise.race([once(child.stdout!, 'data'), once(child, 'exit').then(() => Promise.reject(new Error(`serve ${label} exited`)))]);
  for (let i = 0; !out.includes('\n') && i < 100; i += 1) await new Promise((r) => setTimeout(r, 20));
  return (JSON.parse(out.split('\n')[0] as string) as { jsonrpc: string }).jsonrpc;
}

/** A port nothing listens on just now. */
async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  probe.close();
  await once(probe, 'close');
  return port;
}

/** Sends `text` to the served plan and waits for the task to end: its state and final words. */
async function ask(url: string, text: string): Promise<{ state: string; words: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: unique('m'), role: 'ROLE_USER', parts: [{ text }] } } }),
  });
  const { result } = (await response.json()) as { result: { task: { status: { state: string; message?: { parts: { text?: string }[] } } } } };
  return { state: result.task.status.state, words: result.task.status.message?.parts.map((p) => p.text ?? '').join('') ?? '' };
}

describe('serve --plan: agents the requester chooses', () => {
  const rows: [string, string, string][] = [
    ['an agent from an input', 'inputs: [target]\nsteps:\n  - id: go\n    agent: "{{inputs.target}}"\n    tokenEnv: OPERATOR_TOKEN\n    text: hello\n', 'plan: steps.go.agent: a served plan may not take its agents from what the requester sends ({{inputs.target}})'],
    ['an agent in a URL built from an input', 'inputs: [host]\nsteps:\n  - id: go\n    agent: "http://{{inputs.host}}:7331"\n    text: hello\n', 'plan: steps.go.agent: a served plan may not take its agents from what the requester sends ({{inputs.host}})'],
    ['a fallback from an input', `inputs: [backup]\nsteps:\n  - id: go\n    agent: ${'http://agent.example'}\n    fallback: "{{inputs.backup}}"\n    text: hello\n`, 'plan: steps.go.fallback.agent: a served plan may not take its agents from what the requester sends ({{inputs.backup}})'],
    ['a fan-out over agents an input lists', 'inputs: [agents]\nsteps:\n  - id: go\n    each: {input: agents}\n    agent: "{{item}}"\n    text: hello\n', 'plan: steps.go.agent: a served plan may not take its agents from what the requester sends ({{item}} of each: {input: agents})'],
    ['a fan-out over an input with no agent (each item is one)', 'inputs: [agents]\nsteps:\n  - id: go\n    each: {input: agents}\n    text: hello\n', 'plan: steps.go.agent: a served plan may not take its agents from what the requester sends ({{item}} of each: {input: agents})'],
  ];
  it.each(rows)('%s: serve refuses the plan at start, naming the step', (label, plan, message) => {
    const path = planFile(unique('chosen'), `name: chosen\n${plan}`);
    const result = cli(['serve', '--home', join(set.dir, unique(label.replace(/\W+/g, '-'))), '--port', '0', '--store', 'memory', '--plan', path, '--allow-private-agents'], { env: { OPERATOR_TOKEN } });
    expect({ code: result.code, stderr: result.stderr.trim() }).toEqual({ code: 3, stderr: `a2a-lite: INVALID_PLAN: ${message}; name the agent in the plan, or list the agents under each` });
  });

  it('a plan that lists its agents and takes only the work from an input is served', async () => {
    const tag = unique('listed');
    const path = planFile(tag, `name: listed\ninputs: [text]\nsteps:\n  - id: go\n    each: [${alphaUrl}]\n    agent: "{{item}}"\n    text: "echo {{inputs.text}}"\n`);
    const url = await serve('listed', ['--plan', path, '--allow-private-agents']);
    expect(await ask(url, tag)).toMatchObject({ state: 'TASK_STATE_COMPLETED' });
    expect(set.started(`echo ${tag}`)).toBe(1);
  });
});

describe('serve --plan: the address check', () => {
  it('refuses an agent on loopback unless serve allows private agents, and nothing reaches it', async () => {
    const tag = unique('loopback');
    const path = planFile(tag, `name: local\ninputs: [text]\nsteps:\n  - id: go\n    agent: ${alphaUrl}\n    tokenEnv: OPERATOR_TOKEN\n    text: "echo {{inputs.text}}"\n`);
    const refused = await ask(await serve('strict', ['--plan', path]), `${tag}-a`);
    expect(refused.state).toBe('TASK_STATE_FAILED');
    expect(refused.words).toContain('a served plan may not call "127.0.0.1": it is a loopback address; start serve with --allow-private-agents for agents on this machine or the local network');
    expect(set.started(`echo ${tag}-a`)).toBe(0);

    const allowed = await ask(await serve('lenient', ['--plan', path, '--allow-private-agents']), `${tag}-b`);
    expect(allowed.state).toBe('TASK_STATE_COMPLETED');
    expect(set.started(`echo ${tag}-b`)).toBe(1);
  });

  it('refuses an agent whose card names an interface on a refused address: the operator token goes nowhere', async () => {
    // A listener that records every request it gets, and an agent whose card says that its
    // interface is at 0.0.0.0 on that listener's port (which this machine connects to itself).
    const seen: string[] = [];
    const trap: Server = createServer((request, response) => {
      seen.push(`${request.method} ${request.url} ${request.headers.authorization ?? ''}`);
      response.end('{}');
    });
    trap.listen(0, '127.0.0.1');
    await once(trap, 'listening');
    const port = (trap.address() as { port: number }).port;
    const home = join(set.dir, unique('decoy'));
    cli(['card', 'init', '--id', 'decoy', '--name', 'decoy', '--skill', 'work:work:does work'], { home });
    // The decoy listens on a port of its own, which its card does not name.
    const own = await freePort();
    await serve('decoy', ['--exec', `${JSON.stringify(process.execPath)} ${JSON.stringify(WORKER)}`, '--base-url', `http://0.0.0.0:${port}`, '--port', String(own)], home);
    const tag = unique('interface');
    const path = planFile(tag, `name: decoyed\ninputs: [text]\nsteps:\n  - id: go\n    agent: http://127.0.0.1:${own}\n    tokenEnv: OPERATOR_TOKEN\n    text: "echo {{inputs.text}}"\n`);
    const answer = await ask(await serve('checked', ['--plan', path, '--allow-private-agents']), tag);
    trap.close();
    expect(seen).toEqual([]);
    expect(answer.state).toBe('TASK_STATE_FAILED');
    expect(answer.words).toContain(`a served plan may not call "0.0.0.0": it is an unspecified address`);
  });

  it('--allow-private-agents without --plan is a usage error', () => {
    const result = cli(['serve', '--home', join(set.dir, unique('usage')), '--exec', 'true', '--allow-private-agents']);
    expect({ code: result.code, stderr: result.stderr.trim() }).toEqual({ code: 2, stderr: expect.stringContaining('serve: --allow-private-agents needs --plan PLAN') });
  });
});
