// `a2a-lite serve` with retention flags, as a real process on 127.0.0.1 running a real program:
// a question left unanswered ends and the client sees it (JSON-RPC and REST), the cap refuses new
// work, the SQLite file remembers the rules across restarts, a deleted task's folder goes with
// it, and bad values name their flag.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readSse } from '../../src/net/sse.js';
import { loadDriver } from '../../src/store/sqlite/driver.js';
import { key } from '../../src/store/sqlite/rows.js';
import { tempHome } from '../fixtures/home.js';
import { eventually } from '../fixtures/webhook.js';
import { BIN, cli } from './run-cli.js';

type Json = Record<string, unknown>;

const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
});

/** Every run of the program asks the same question. */
const ASK = 'cat > /dev/null; printf "[A2A:status task=$A2A_TASK_ID state=input-required]\\nWhich week?\\n"';
const V1 = { 'content-type': 'application/json', 'a2a-version': '1.0' };

/** Starts serve on a free port and resolves with its output once it holds `until`. */
async function startServe(home: string, exec: string, extra: string[], until = '\n'): Promise<{ child: ChildProcess; output: () => string; info: { url: string; retention?: unknown } }> {
  cli(['card', 'init', '--id', 'jiajia', '--name', '佳佳', '--skill', 'research:调研助手:收集资料'], { home });
  const child = spawn(process.execPath, [BIN, 'serve', '--home', home, '--port', '0', '--exec', exec, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let output = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => (output += chunk));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  for (let waited = 0; !output.includes(until) && waited < 400; waited += 1) await new Promise((resolve) => setTimeout(resolve, 50));
  const first = output.split('\n')[0] as string;
  return { child, output: () => output, info: first.startsWith('{') ? (JSON.parse(first) as { url: string }) : { url: /on (http\S+)/.exec(first)?.[1] as string } };
}

async function stop(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  await once(child, 'exit');
}

const rpc = async (url: string, method: string, params: Json): Promise<Json> =>
  (await fetch(`${url}/jsonrpc`, { method: 'POST', headers: V1, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })).json() as Promise<Json>;
const message = (text: string) => ({ message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] } });
const idOf = (answer: Json) => (answer.result as { task: { id: string } }).task.id;

async function eventsOf(response: Response): Promise<Json[]> {
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const events: Json[] = [];
  for await (const event of readSse(response.body as AsyncIterable<Uint8Array>)) events.push(JSON.parse(event.data) as Json);
  return events;
}

const retentionOf = async (url: string) =>
  ((await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as { capabilities: { extensions: { uri: string; params?: Json }[] } }).capabilities.extensions.find(
    (e) => e.uri === 'https://a2a-lite.dev/extensions/retention/v1',
  )?.params;

describe('a2a-lite serve --input-timeout', () => {
  it('ends a question left unanswered as failed, and the client following it sees why, over JSON-RPC and REST', async () => {
    const { info } = await startServe(tempHome(), ASK, ['--store', 'memory', '--json', '--input-timeout', '3s']);
    expect(info.retention).toEqual({ inputTimeoutSeconds: 3 });
    const asked = await rpc(info.url, 'SendMessage', message('research'));
    expect(asked).toMatchObject({ result: { task: { status: { state: 'TASK_STATE_INPUT_REQUIRED' } } } });
    const id = idOf(asked);

    const signal = AbortSignal.timeout(20_000);
    const overRpc = eventsOf(await fetch(`${info.url}/jsonrpc`, { method: 'POST', headers: V1, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'SubscribeToTask', params: { id } }), signal }));
    const overRest = eventsOf(await fetch(`${info.url}/tasks/${id}:subscribe`, { headers: { 'a2a-version': '1.0' }, signal }));

    const failed = { state: 'TASK_STATE_FAILED', message: { parts: [{ text: 'Waited 3s for a reply, the longest this agent waits; the task has ended. Send a new message to start again.' }] } };
    expect((await overRpc).at(-1)).toMatchObject({ result: { statusUpdate: { taskId: id, status: failed } } });
    expect((await overRest).at(-1)).toMatchObject({ statusUpdate: { taskId: id, status: failed } });
    expect(await rpc(info.url, 'GetTask', { id })).toMatchObject({ result: { status: failed } });
    expect(await (await fetch(`${info.url}/tasks/${id}`, { headers: { 'a2a-version': '1.0' } })).json()).toMatchObject({ status: failed });
  });
});

describe('a2a-lite serve --max-tasks', () => {
  it('refuses a new task while the kept tasks all wait, over JSON-RPC and REST', async () => {
    const { info } = await startServe(tempHome(), ASK, ['--store', 'memory', '--json', '--max-tasks', '1']);
    expect(await rpc(info.url, 'SendMessage', message('first'))).toMatchObject({ result: { task: { status: { state: 'TASK_STATE_INPUT_REQUIRED' } } } });
    const refusal = 'this agent keeps at most 1 task, and none of them has ended; try again once one has';
    expect(await rpc(info.url, 'SendMessage', message('second'))).toMatchObject({ error: { code: -32000, message: refusal } });
    const rest = await fetch(`${info.url}/message:send`, { method: 'POST', headers: { ...V1, 'content-type': 'application/a2a+json' }, body: JSON.stringify(message('third')) });
    expect(rest.status).toBe(429);
    expect(await rest.json()).toMatchObject({ error: { status: 'RESOURCE_EXHAUSTED', message: refusal } });
  });
});

describe('a2a-lite serve remembers its retention rules in the SQLite file', () => {
  it('keeps them through a restart without flags, deletes on time what ended before it, and lets a flag change or drop one', async () => {
    const home = tempHome();
    const flags = ['--task-ttl', '1d', '--input-timeout', '1h', '--max-tasks', '100'];
    const first = await startServe(home, 'cat > /dev/null; echo done', ['--json', ...flags]);
    expect(first.info.retention).toEqual({ taskTtlSeconds: 86_400, inputTimeoutSeconds: 3_600, maxTasks: 100 });
    const id = idOf(await rpc(first.info.url, 'SendMessage', message('hello')));
    await stop(first.child);
    const folder = join(home, 'work', id);
    expect(existsSync(folder)).toBe(true);

    // The task ended two days ago, as far as the file says.
    const db = (await loadDriver()).open(join(home, 'a2a-lite.db'));
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString();
    db.prepare("UPDATE tasks SET status_timestamp = ?, json = json_set(json, '$.status.timestamp', ?) WHERE id = ?").run(key(twoDaysAgo), twoDaysAgo, key(id));
    db.close();

    const second = await startServe(home, 'cat > /dev/null; echo done', [], 'retention:');
    await eventually(() => expect(second.output()).toMatch(/retention: {2}.*\n/));
    expect(second.output()).toContain('  retention:  ended tasks deleted after 1d, unanswered tasks failed after 1h, at most 100 tasks (--task-ttl, --input-timeout, --max-tasks remembered from the last run)\n');
    expect(await retentionOf(second.info.url)).toEqual({ taskTtlSeconds: 86_400, inputTimeoutSeconds: 3_600, maxTasks: 100 });
    await eventually(async () => expect(await rpc(second.info.url, 'GetTask', { id })).toMatchObject({ error: { code: -32001 } }));
    // Its folder goes with it.
    await eventually(() => expect(existsSync(folder)).toBe(false));
    await stop(second.child);

    const third = await startServe(home, 'echo done', ['--json', '--task-ttl', 'off', '--max-tasks', '50']);
    expect(third.info.retention).toEqual({ inputTimeoutSeconds: 3_600, maxTasks: 50 });
    await stop(third.child);
    const fourth = await startServe(home, 'echo done', ['--json']);
    expect(fourth.info.retention).toEqual({ inputTimeoutSeconds: 3_600, maxTasks: 50 });
    await stop(fourth.child);
    const none = await startServe(home, 'echo done', ['--input-timeout', 'off', '--max-tasks', 'off'], 'retention:');
    await eventually(() => expect(none.output()).toContain('  retention:  none (tasks are kept for good)\n'));
    expect(await retentionOf(none.info.url)).toBeUndefined();
  });
});

describe('a2a-lite serve retention flags', () => {
  it.each([
    [['--task-ttl', '7'], 'serve: --task-ttl is a duration such as 90s, 15m, 1h30m or 7d, or off; not "7"'],
    [['--task-ttl', '1y'], 'serve: --task-ttl is a duration such as 90s, 15m, 1h30m or 7d, or off; not "1y"'],
    [['--input-timeout', '500ms'], 'serve: --input-timeout is at least 1s; give off for none'],
    [['--input-timeout', '3651d'], 'serve: --input-timeout is at most 3650d'],
    [['--max-tasks', '0'], 'serve: --max-tasks is a whole number from 1 to 1000000000, or off; not "0"'],
    [['--max-tasks', '1e3'], 'serve: --max-tasks is a whole number from 1 to 1000000000, or off; not "1e3"'],
  ])('refuses %j, naming the flag', (args, error) => {
    const result = cli(['serve', '--home', tempHome(), '--exec', 'true', ...args]);
    expect(result).toMatchObject({ code: 2, stderr: `a2a-lite: USAGE: ${error}\n` });
  });

  it('tells them in --help, and that the SQLite file remembers them', () => {
    const help = cli(['serve', '--help']).stdout;
    for (const flag of ['--task-ttl DURATION', '--input-timeout DURATION', '--max-tasks N', 'remembered', '"off"']) expect(help).toContain(flag);
  });
});
