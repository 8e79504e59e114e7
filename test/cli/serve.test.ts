// `a2a-lite serve` as a real process on 127.0.0.1: it answers A2A requests and stops cleanly.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { filesUnder, tempHome } from '../fixtures/home.js';
import { eventually, startWebhook } from '../fixtures/webhook.js';
import { BIN, cli } from './run-cli.js';

const hasPython = spawnSync('python3', ['--version']).status === 0;
const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
});

/** Starts serve on a free port and resolves with its first JSON line of output. */
async function startServe(home: string, exec: string, store = 'memory', extra: string[] = [], cwd?: string): Promise<{ child: ChildProcess; info: Record<string, string>; output: () => string }> {
  cli(['card', 'init', '--id', 'jiajia', '--name', '佳佳', '--skill', 'research:调研助手:收集资料'], { home });
  const child = spawn(process.execPath, [BIN, 'serve', '--home', home, '--port', '0', '--store', store, '--exec', exec, '--json', ...extra], { stdio: ['ignore', 'pipe', 'pipe'], cwd });
  running.push(child);
  let output = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => (output += chunk));
  for (let waited = 0; !output.includes('\n') && waited < 400; waited += 1) await new Promise((resolve) => setTimeout(resolve, 50));
  return { child, info: JSON.parse(output.split('\n')[0] as string), output: () => output };
}

const rpc = (url: string, method: string, params: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  }).then((r) => r.json() as Promise<{ result?: { task: { status: { state: string }; artifacts?: { parts: { text?: string }[] }[] } }; error?: unknown }>);

describe('a2a-lite serve', () => {
  it('serves the card and runs each task through the program', async () => {
    const { info } = await startServe(tempHome(), 'read -r header; cat > /dev/null; echo "hello from the program"');
    const card = (await (await fetch(info.card as string)).json()) as { name: string; supportedInterfaces: { url: string }[] };
    expect(card.name).toBe('佳佳');
    expect(card.supportedInterfaces[0]?.url).toBe(info.jsonrpc);
    const answer = await rpc(info.jsonrpc as string, 'SendMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } });
    expect(answer.result?.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answer.result?.task.artifacts?.[0]?.parts[0]?.text).toBe('hello from the program');
  });

  it('runs a program named relative to where serve starts, as the README writes it, in the task folder', async () => {
    const project = tempHome('project');
    writeFileSync(join(project, 'agent.sh'), '#!/bin/sh\ncat > /dev/null\necho "from $(basename "$0") in $(basename "$(dirname "$PWD")")"\n');
    chmodSync(join(project, 'agent.sh'), 0o755);
    writeFileSync(join(project, 'agent.py'), 'import sys, os\nsys.stdin.read()\nprint("python in the task folder:", os.getcwd() == os.environ["A2A_TASK_DIR"])\n');
    for (const [exec, expected] of [
      ['./agent.sh', 'from agent.sh in work'],
      ['sh agent.sh', 'from agent.sh in work'],
      ...(hasPython ? [['python3 agent.py', 'python in the task folder: True']] : []),
    ]) {
      const { child, info } = await startServe(tempHome(), exec as string, 'memory', [], project);
      const answer = await rpc(info.jsonrpc as string, 'SendMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } });
      expect(answer.result?.task.artifacts?.[0]?.parts[0]?.text, exec).toBe(expected);
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });

  it('stops on SIGTERM, failing the task still running', async () => {
    const { child, info } = await startServe(tempHome(), 'sleep 30');
    const sent = await rpc(info.jsonrpc as string, 'SendMessage', {
      message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'slow' }] },
      configuration: { returnImmediately: true },
    });
    expect(sent.result?.task.status.state).toBe('TASK_STATE_SUBMITTED');
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });

  it('closes a connection whose headers take longer than --headers-timeout, and serves others meanwhile', async () => {
    const { info } = await startServe(tempHome(), 'echo ok', 'memory', ['--headers-timeout', '1', '--request-timeout', '2']);
    const { port } = new URL(info.url as string);
    const socket = connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    const closed = once(socket, 'close');
    let answered = '';
    socket.on('data', (chunk: Buffer) => (answered += chunk.toString('latin1')));
    socket.write('POST /jsonrpc HTTP/1.1\r\nHost: x\r\n');
    const started = Date.now();
    const answer = await rpc(info.jsonrpc as string, 'GetTask', { id: 'none' });
    expect(answer.error).toBeDefined();
    await closed;
    const waited = Date.now() - started;
    // Closed by the timeout (a 408 first), not before it: a busy machine can only make it later.
    expect(waited).toBeGreaterThan(800);
    expect(answered).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('refuses a missing --exec and a bad port with usage errors', () => {
    const home = tempHome();
    expect(cli(['serve', '--home', home])).toMatchObject({ code: 2 });
    expect(cli(['serve', '--home', home, '--exec', 'true', '--port', '99999']).stderr).toContain('--port is a whole number up to 65535');
  });
});

describe('a2a-lite serve with SQLite', () => {
  it('keeps tasks across a restart and fails the ones a killed server left running', async () => {
    const home = tempHome();
    const first = await startServe(home, 'case "$(cat)" in *slow*) sleep 30;; *) echo done;; esac', 'sqlite');
    const url = first.info.jsonrpc as string;
    const done = await rpc(url, 'SendMessage', { message: { messageId: 'a', role: 'ROLE_USER', parts: [{ text: 'quick' }] } });
    const slow = await rpc(url, 'SendMessage', { message: { messageId: 'b', role: 'ROLE_USER', parts: [{ text: 'slow' }] }, configuration: { returnImmediately: true } });
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');

    const second = await startServe(home, 'echo again', 'sqlite');
    const url2 = second.info.jsonrpc as string;
    const doneId = (done.result?.task as unknown as { id: string }).id;
    const slowId = (slow.result?.task as unknown as { id: string }).id;
    const kept = (await rpc(url2, 'GetTask', { id: doneId })) as unknown as { result: { status: { state: string } } };
    expect(kept.result.status.state).toBe('TASK_STATE_COMPLETED');
    const failed = (await rpc(url2, 'GetTask', { id: slowId })) as unknown as { result: { status: { state: string; message: { parts: { text: string }[] } } } };
    expect(failed.result.status.state).toBe('TASK_STATE_FAILED');
    expect(failed.result.status.message.parts[0]?.text).toBe('the server stopped before this task ended');
  });
});

describe('a2a-lite serve --push', () => {
  it('refuses --allow-private-webhooks without --push', () => {
    const result = cli(['serve', '--home', tempHome(), '--exec', 'true', '--allow-private-webhooks']);
    expect(result).toMatchObject({ code: 2, stderr: expect.stringContaining('--allow-private-webhooks needs --push') });
  });

  it('sends webhooks every update, and after a crash tells them the task failed', async () => {
    const hook = await startWebhook();
    const home = tempHome();
    const exec = 'case "$(cat)" in *slow*) sleep 30;; *) echo done;; esac';
    const first = await startServe(home, exec, 'sqlite', ['--push', '--allow-private-webhooks']);
    expect(first.info.push).toBe('on (private networks allowed)');
    const card = (await (await fetch(first.info.card as string)).json()) as { capabilities: { pushNotifications: boolean } };
    expect(card.capabilities.pushNotifications).toBe(true);
    const url = first.info.jsonrpc as string;
    const taskPush = { url: hook.url, token: 'serve-token' };
    const quick = await rpc(url, 'SendMessage', { message: { messageId: 'a', role: 'ROLE_USER', parts: [{ text: 'quick' }] }, configuration: { taskPushNotificationConfig: taskPush } });
    const quickId = (quick.result?.task as unknown as { id: string }).id;
    const stateOf = (json: Record<string, unknown>) => ((json.statusUpdate ?? json.task) as { status?: { state: string } } | undefined)?.status?.state;
    const updatesOf = (id: string) => hook.delivered.filter((r) => JSON.stringify(r.json).includes(id)).map((r) => stateOf(r.json) ?? Object.keys(r.json)[0]);
    await eventually(() => expect(updatesOf(quickId).at(-1)).toBe('TASK_STATE_COMPLETED'));
    expect(updatesOf(quickId)[0]).toBe('TASK_STATE_SUBMITTED');
    expect(hook.delivered[0]?.headers['x-a2a-notification-token']).toBe('serve-token');

    const slow = await rpc(url, 'SendMessage', { message: { messageId: 'b', role: 'ROLE_USER', parts: [{ text: 'slow' }] }, configuration: { returnImmediately: true, taskPushNotificationConfig: taskPush } });
    const slowId = (slow.result?.task as unknown as { id: string }).id;
    await eventually(() => expect(updatesOf(slowId)).toContain('TASK_STATE_SUBMITTED'));
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');

    await startServe(home, exec, 'sqlite', ['--push', '--allow-private-webhooks']);
    await eventually(() => expect(updatesOf(slowId).at(-1)).toBe('TASK_STATE_FAILED'));
  });
});

describe('a2a-lite serve with auth', () => {
  it('takes the token from the environment and writes it nowhere', async () => {
    const { readFileSync } = await import('node:fs');
    const home = tempHome();
    const token = ['serve', '-token-', 'Zx81Qw0Plm'].join('');
    cli(['card', 'init', '--id', 'jiajia', '--name', '佳佳'], { home });
    const child = spawn(process.execPath, [BIN, 'serve', '--home', home, '--port', '0', '--exec', 'echo ok', '--auth-bearer-env', 'A2A_TEST_TOKEN', '--json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, A2A_TEST_TOKEN: token },
    });
    running.push(child);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk));
    for (let waited = 0; !output.includes('\n') && waited < 400; waited += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    const info = JSON.parse(output.split('\n')[0] as string) as { jsonrpc: string; card: string; auth: string };
    expect(info.auth).toBe('bearer token');
    expect((await fetch(info.card)).status).toBe(200);
    const send = (headers: Record<string, string>) =>
      fetch(info.jsonrpc, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } } }),
      });
    expect((await send({})).status).toBe(401);
    expect((await send({ authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await send({ authorization: `Bearer ${token}` })).status).toBe(200);
    child.kill('SIGTERM');
    await once(child, 'exit');
    const files = filesUnder(home);
    expect(files.some((f) => f.endsWith('a2a-lite.db'))).toBe(true);
    for (const file of files) expect(readFileSync(file).includes(token), file).toBe(false);
    expect(output).not.toContain(token);
  });

  it('refuses to start when the named variable is empty, without echoing anything', () => {
    const home = tempHome();
    cli(['card', 'init', '--id', 'a', '--name', 'A'], { home });
    const result = cli(['serve', '--home', home, '--exec', 'true', '--auth-bearer-env', 'A2A_MISSING_TOKEN'], { env: { A2A_MISSING_TOKEN: '' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the environment variable A2A_MISSING_TOKEN is empty or not set');
  });
});

describe('a2a-lite serve with several clients', () => {
  const ALICE = ['alice', '-token-', 'Q9w8E7r6T5y4'].join('');
  const BOB = ['bob', '-key-', 'Z1x2C3v4B5n6'].join('');

  /** Starts serve with Alice's bearer token and Bob's API key; all its output is kept. */
  async function startGuarded(home: string): Promise<{ child: ChildProcess; jsonrpc: string; output: () => string }> {
    const child = spawn(
      process.execPath,
      [BIN, 'serve', '--home', home, '--port', '0', '--exec', 'read -r header; cat > /dev/null; echo ok', '--json', '--auth-bearer-env', 'A2A_ALICE', '--auth-api-key-env', 'A2A_BOB'],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, A2A_ALICE: ALICE, A2A_BOB: BOB } },
    );
    running.push(child);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk));
    for (let waited = 0; !output.includes('\n') && waited < 400; waited += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    return { child, jsonrpc: (JSON.parse(output.split('\n')[0] as string) as { jsonrpc: string }).jsonrpc, output: () => output };
  }

  const call = (url: string, headers: Record<string, string>, method: string, params: unknown) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    }).then((r) => r.json() as Promise<{ result?: { task?: { id: string }; id?: string; totalSize?: number }; error?: { code: number; message: string } }>);
  const asAlice = { authorization: `Bearer ${ALICE}` };
  const asBob = { 'x-api-key': BOB };

  it('keeps each task its maker’s across a restart, and writes no token anywhere', async () => {
    const { readFileSync } = await import('node:fs');
    const home = tempHome();
    cli(['card', 'init', '--id', 'jiajia', '--name', '佳佳'], { home });
    const first = await startGuarded(home);
    const sent = await call(first.jsonrpc, asAlice, 'SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } });
    const id = sent.result?.task?.id as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await call(first.jsonrpc, asBob, 'GetTask', { id })).error).toEqual({ code: -32001, message: `no task "${id}"`, data: expect.any(Array) });
    first.child.kill('SIGTERM');
    await once(first.child, 'exit');

    const second = await startGuarded(home);
    expect((await call(second.jsonrpc, asAlice, 'GetTask', { id })).result?.id).toBe(id);
    expect((await call(second.jsonrpc, asBob, 'GetTask', { id })).error?.code).toBe(-32001);
    expect((await call(second.jsonrpc, asBob, 'CancelTask', { id })).error?.code).toBe(-32001);
    expect((await call(second.jsonrpc, asBob, 'ListTasks', {})).result?.totalSize).toBe(0);
    expect((await call(second.jsonrpc, asAlice, 'ListTasks', {})).result?.totalSize).toBe(1);
    second.child.kill('SIGTERM');
    await once(second.child, 'exit');

    const files = filesUnder(home);
    expect(files.some((f) => f.endsWith('a2a-lite.db'))).toBe(true);
    for (const file of files) {
      const bytes = readFileSync(file);
      for (const token of [ALICE, BOB]) {
        expect(bytes.includes(token), file).toBe(false);
        expect(bytes.includes(Buffer.from(token, 'utf16le').swap16()), file).toBe(false);
      }
    }
    for (const token of [ALICE, BOB]) expect(first.output() + second.output()).not.toContain(token);
  });

  it('refuses a variable holding several tokens, and two variables holding one, naming only the variables', () => {
    const home = tempHome();
    cli(['card', 'init', '--id', 'a', '--name', 'A'], { home });
    const listed = cli(['serve', '--home', home, '--exec', 'true', '--auth-bearer-env', 'A2A_BOTH'], { env: { A2A_BOTH: `${ALICE},${BOB}` } });
    expect(listed.code).toBe(2);
    expect(listed.stderr).toContain('the environment variable A2A_BOTH holds a comma; each variable holds one token');
    const shared = cli(['serve', '--home', home, '--exec', 'true', '--auth-bearer-env', 'A2A_ALICE', '--auth-api-key-env', 'A2A_COPY'], { env: { A2A_ALICE: ALICE, A2A_COPY: ALICE } });
    expect(shared.code).toBe(2);
    expect(shared.stderr).toContain('the environment variables A2A_ALICE and A2A_COPY hold the same token');
    for (const result of [listed, shared]) {
      expect(result.stdout + result.stderr).not.toContain(ALICE);
      expect(result.stdout + result.stderr).not.toContain(BOB);
    }
  });
});

describe('a2a-lite serve on SIGTERM', () => {
  it('sends open streams the final status before closing them', async () => {
    const { child, info } = await startServe(tempHome(), 'sleep 30');
    const response = await fetch(info.jsonrpc as string, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: { messageId: 's', role: 'ROLE_USER', parts: [{ text: 'slow' }] } } }),
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value);
    child.kill('SIGTERM');
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value);
    expect(text).toContain('TASK_STATE_FAILED');
    expect(text).toContain('the server is shutting down');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });
});
