// Idempotent sends: a send retried with the same Idempotency-Key, at once or after the answer was
// lost, concurrently or after SIGKILL and a restart, gets the first answer and never starts the
// work twice; the agents count their own runs. Real HTTP on 127.0.0.1, real SQLite files, a
// real `a2a-lite serve` process.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createA2AHandler } from '../src/a2a/server/handler.js';
import { IDEMPOTENCY_EXTENSION } from '../src/a2a/wire/extensions.js';
import { jiajiaCard } from '../src/card/examples.js';
import { createAgent, type Agent } from '../src/runtime/agent.js';
import { listen, type Listening } from '../src/net/node-http.js';
import { openSqliteTaskStore } from '../src/store/sqlite/task-store.js';
import { openTransport } from '../src/client/open-transport.js';
import { sendAndFollow } from '../src/client/remote-task.js';
import { cli } from './cli/run-cli.js';
import { killHard, startServe } from './faults/serve-process.js';
import { cuttingProxy } from './fixtures/cutting-proxy.js';
import { tempHome } from './fixtures/home.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Served {
  url: string;
  agent: Agent;
  /** How many tasks the handler started, and how many direct answers it gave. */
  runs: { tasks: number; answers: number };
  release(): void;
}

const open: { server: Listening; agent: Agent }[] = [];
afterEach(async () => {
  for (const { server, agent } of open.splice(0)) {
    await server.close();
    await agent.shutdown();
  }
});

const ALICE = `Bearer ${['alice', 'idem', 'Q9w8E7r6'].join('-')}`;
const BOB = `Bearer ${['bob', 'idem', 'Z1x2C3v4'].join('-')}`;

/**
 * An agent on SQLite whose "wait …" tasks wait until `release()` (for good: a task that starts
 * waiting after it does not wait), and which answers "direct …" at once.
 */
async function serve(options: { auth?: boolean } = {}): Promise<Served> {
  const runs = { tasks: 0, answers: 0 };
  let release = (): void => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const agent = createAgent({
    card: jiajiaCard(),
    store: await openSqliteTaskStore(join(tempHome('idempotency'), 'tasks.db')),
    onMessage: (message) => {
      if (!message.text.startsWith('direct')) return undefined;
      runs.answers += 1;
      return `answer ${runs.answers} to ${message.text}`;
    },
    async onTask(task, ctx) {
      runs.tasks += 1;
      await ctx.status('working', { message: `run ${runs.tasks}` });
      if (task.text.startsWith('ask')) {
        const reply = await ctx.ask('which year?');
        return `asked and got ${reply.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('')}`;
      }
      if (task.text.startsWith('wait')) await gate;
      return `did ${task.text}`;
    },
  });
  let url = '';
  const auth = options.auth
    ? { bearerTokens: [{ principal: 'A2A_ALICE', secret: ALICE.slice(7) }, { principal: 'A2A_BOB', secret: BOB.slice(7) }] }
    : undefined;
  const server = await listen(createA2AHandler({ agent, baseUrl: () => url, ...(auth ? { auth } : {}) }));
  url = server.url;
  open.push({ server, agent });
  return {
    url,
    agent,
    runs,
    release: () => release(),
  };
}

const v1Message = (text: string, extra: Json = {}) => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra });

/** A send over one binding, returning the task (or message) the answer holds. */
const bindings: [string, (url: string, text: string, headers: Record<string, string>, returnImmediately: boolean) => Promise<Json>][] = [
  [
    'JSON-RPC 1.0',
    async (url, text, headers, returnImmediately) => {
      const body = { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: v1Message(text), configuration: { returnImmediately } } };
      const answer = (await (await fetch(`${url}/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers }, body: JSON.stringify(body) })).json()) as Json;
      return answer.error ?? answer.result.task ?? answer.result.message;
    },
  ],
  [
    'HTTP+JSON 1.0',
    async (url, text, headers, returnImmediately) => {
      const response = await fetch(`${url}/message:send`, { method: 'POST', headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0', ...headers }, body: JSON.stringify({ message: v1Message(text), configuration: { returnImmediately } }) });
      const answer = (await response.json()) as Json;
      return answer.error === undefined ? (answer.task ?? answer.message) : { ...answer.error, http: response.status };
    },
  ],
  [
    'JSON-RPC 0.3',
    async (url, text, headers, returnImmediately) => {
      const message = { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text }] };
      const body = { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message, configuration: { blocking: !returnImmediately } } };
      const answer = (await (await fetch(`${url}/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })).json()) as Json;
      return answer.error ?? answer.result;
    },
  ],
];

describe.each(bindings)('an Idempotency-Key over %s', (_name, send) => {
  it('makes one task of the same send sent ten times at once, and of a retry after it ended', async () => {
    const agent = await serve();
    const key = { 'idempotency-key': 'order-4711' };
    const answers = await Promise.all(Array.from({ length: 10 }, () => send(agent.url, 'wait to ship order 4711', key, true)));
    const ids = new Set(answers.map((task) => task.id));
    expect(ids.size).toBe(1);
    agent.release();
    // Blocking retries after the end: the same task, ended, and still one run.
    const again = await send(agent.url, 'wait to ship order 4711', key, false);
    expect(again.id).toBe([...ids][0]);
    expect(JSON.stringify(again.status)).toMatch(/completed|COMPLETED/);
    expect(agent.runs.tasks).toBe(1);
    // Another key is another task.
    const other = await send(agent.url, 'wait to ship order 4711', { 'idempotency-key': 'order-4712' }, true);
    expect(other.id).not.toBe(again.id);
    for (let i = 0; i < 100 && agent.runs.tasks < 2; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(agent.runs.tasks).toBe(2);
  });

  it('refuses a key reused for a different message, and names why', async () => {
    const agent = await serve();
    await send(agent.url, 'ship order 1', { 'idempotency-key': 'k-1' }, true);
    const refused = await send(agent.url, 'ship order 2', { 'idempotency-key': 'k-1' }, true);
    expect(refused.message).toContain('Idempotency-Key was already used for a different message');
    if ('http' in refused) expect(refused.http).toBe(422);
    else expect(refused.code).toBe(-32602);
    expect(agent.runs.tasks).toBe(1);
  });
});

describe('idempotency keys', () => {
  const rpc = (url: string, method: string, params: Json, headers: Record<string, string> = {}) =>
    fetch(`${url}/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) }).then(async (r) => (await r.json()) as Json);

  it('belong to the client that sent them: the same key from another is another task', async () => {
    const agent = await serve({ auth: true });
    const alice = await rpc(agent.url, 'SendMessage', { message: v1Message('report') }, { authorization: ALICE, 'idempotency-key': 'shared' });
    const bob = await rpc(agent.url, 'SendMessage', { message: v1Message('report') }, { authorization: BOB, 'idempotency-key': 'shared' });
    expect(alice.result.task.id).not.toBe(bob.result.task.id);
    expect(agent.runs.tasks).toBe(2);
  });

  it('give a retried direct answer once', async () => {
    const agent = await serve();
    const headers = { 'idempotency-key': 'hello-1' };
    const first = await rpc(agent.url, 'SendMessage', { message: v1Message('direct hello') }, headers);
    const second = await rpc(agent.url, 'SendMessage', { message: v1Message('direct hello') }, headers);
    expect(second.result.message).toEqual(first.result.message);
    expect(agent.runs.answers).toBe(1);
  });

  it('follow the first task when a stream is retried while it runs', async () => {
    const agent = await serve();
    const headers = { 'idempotency-key': 'stream-1', accept: 'text/event-stream' };
    const first = await rpc(agent.url, 'SendMessage', { message: v1Message('wait for the long job'), configuration: { returnImmediately: true } }, { 'idempotency-key': 'stream-1' });
    const stream = fetch(`${agent.url}/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'SendStreamingMessage', params: { message: v1Message('wait for the long job') } }) });
    setTimeout(() => agent.release(), 100);
    const text = await (await stream).text();
    expect(text).toContain(first.result.task.id);
    expect(text).toContain('TASK_STATE_COMPLETED');
    expect(agent.runs.tasks).toBe(1);
  });

  it('count message ids only for a client that activates the extension', async () => {
    const agent = await serve();
    const message = v1Message('same words, same id');
    const plain = [await rpc(agent.url, 'SendMessage', { message }), await rpc(agent.url, 'SendMessage', { message })];
    expect(plain[0]!.result.task.id).not.toBe(plain[1]!.result.task.id);
    const activated = { 'a2a-extensions': IDEMPOTENCY_EXTENSION };
    const other = v1Message('retried by id');
    const first = await rpc(agent.url, 'SendMessage', { message: other, configuration: { returnImmediately: true } }, activated);
    const retry = await rpc(agent.url, 'SendMessage', { message: other, configuration: { returnImmediately: true } }, activated);
    expect(retry.result.task.id).toBe(first.result.task.id);
    expect(agent.runs.tasks).toBe(3);
    // A reply sent twice is taken once: the second gets the task as it stands.
    const asking = await rpc(agent.url, 'SendMessage', { message: v1Message('ask me') }, activated);
    expect(asking.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const reply = v1Message('1999', { taskId: asking.result.task.id, contextId: asking.result.task.contextId });
    const answered = await rpc(agent.url, 'SendMessage', { message: reply }, activated);
    const again = await rpc(agent.url, 'SendMessage', { message: reply }, activated);
    expect(answered.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(again.result.task).toMatchObject({ id: asking.result.task.id, status: { state: 'TASK_STATE_COMPLETED' } });
    expect(again.result.task.history.filter((m: Json) => m.messageId === reply.messageId)).toHaveLength(1);
  });
});

describe('an Idempotency-Key across SIGKILL and a restart of a2a-lite serve', () => {
  it('gets the task the first send made, and the program ran once', async () => {
    const home = tempHome('idempotency-serve');
    expect(cli(['card', 'init', '--id', 'idem', '--name', 'Idem', '--skill', 'work:Work:does work'], { home }).code).toBe(0);
    const runs = join(home, 'runs.log');
    writeFileSync(runs, '');
    const program = join(home, 'slow.mjs');
    writeFileSync(program, `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(runs)}, 'run\\n');\nsetTimeout(() => console.log('done'), 60_000);\n`);
    const exec = `"${process.execPath}" "${program}"`;
    const first = await startServe(home, exec, ['--store', 'sqlite']);
    const headers = { 'content-type': 'application/json', 'a2a-version': '1.0', 'idempotency-key': 'nightly-build-812' };
    const send = async (url: string) =>
      (await (await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: v1Message('build 812'), configuration: { returnImmediately: true } } }) })).json()) as Json;
    const made = await send(first.info.jsonrpc);
    // The program has started: then the server dies without a word.
    for (let i = 0; i < 200 && readFileSync(runs, 'utf8') === ''; i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
    await killHard(first);
    const second = await startServe(home, exec, ['--store', 'sqlite']);
    try {
      const retried = await send(second.info.jsonrpc);
      expect(retried.result.task.id).toBe(made.result.task.id);
      // Left running by the dead process, it was recorded failed at start-up, and not run again.
      expect(retried.result.task.status.state).toBe('TASK_STATE_FAILED');
      expect(readFileSync(runs, 'utf8')).toBe('run\n');
    } finally {
      await killHard(second);
    }
  });
});

describe('the client sends again under the same key when the answer is lost', () => {
  // The proxy lets the send reach the agent, then cuts the connection before a byte of the answer.
  it.each([
    ['a blocking send', 'SendMessage"', false],
    ['a stream', 'SendStreamingMessage', true],
  ])('%s: the agent runs the task once and the client gets it', async (_what, when, stream) => {
    const served = await serve();
    const proxy = await cuttingProxy(new URL(served.url).port, { afterEvents: 0, when, dropAnswer: true });
    try {
      const transport = openTransport({ url: `${proxy.url}/jsonrpc`, binding: 'JSONRPC', version: '1.0' });
      const tries: string[] = [];
      const outcome = await sendAndFollow(transport, { messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'lost answer' }] }, {
        stream,
        deadline: Date.now() + 20_000,
        pauseMs: 20,
        idempotencyKey: crypto.randomUUID(),
        onResume: (how) => tries.push(how),
        onEvent: () => undefined,
      });
      expect(proxy.cuts).toBe(1);
      expect(tries).toEqual(['send']);
      expect(outcome).toMatchObject({ kind: 'task', task: { status: { state: 'completed' } } });
      expect(served.runs.tasks).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it('does not send again without a key: the agent might have taken it', async () => {
    const served = await serve();
    const proxy = await cuttingProxy(new URL(served.url).port, { afterEvents: 0, when: 'SendMessage"', dropAnswer: true });
    try {
      const transport = openTransport({ url: `${proxy.url}/jsonrpc`, binding: 'JSONRPC', version: '1.0' });
      const tries: string[] = [];
      const sent = sendAndFollow(transport, { messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'lost answer' }] }, {
        stream: false,
        deadline: Date.now() + 20_000,
        onResume: (how) => tries.push(how),
        onEvent: () => undefined,
      });
      await expect(sent).rejects.toMatchObject({ code: 'PEER_UNREACHABLE' });
      expect(tries).toEqual([]);
      // It reached the agent all the same: which is why only a key makes a second send safe.
      expect(served.runs.tasks).toBe(1);
    } finally {
      await proxy.close();
    }
  });
});
