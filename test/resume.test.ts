// Gap-free resume: a client whose stream is cut resubscribes from the last event it saw and gets
// every event it missed exactly once, over JSON-RPC 1.0, HTTP+JSON and JSON-RPC 0.3, from a real
// server on 127.0.0.1 whose tasks live in a real SQLite file.
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2AHandler } from '../src/a2a/server/handler.js';
import { RESUME_EXTENSION } from '../src/a2a/wire/extensions.js';
import { jiajiaCard } from '../src/card/examples.js';
import { openTransport } from '../src/client/open-transport.js';
import type { Transport } from '../src/client/transport.js';
import { sendAndFollow } from '../src/client/remote-task.js';
import type { RemoteInterface } from '../src/model/remote-access.js';
import type { Part, Task, TaskEvent, TaskMessage } from '../src/model/task.js';
import { isTerminal } from '../src/protocol/states.js';
import { createAgent, type Agent } from '../src/runtime/agent.js';
import { listen, type Listening } from '../src/net/node-http.js';
import { openDatabase } from '../src/store/sqlite/open.js';
import { openSqliteTaskStore } from '../src/store/sqlite/task-store.js';
import { tempHome } from './fixtures/home.js';
import { cuttingProxy } from './fixtures/cutting-proxy.js';

/** One step of a scripted task: a progress status, or a chunk of the artifact `doc`. */
type Step = { kind: 'progress' } | { kind: 'chunk'; text: string };

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));

function scriptedAgent(storePath: string): Promise<Agent> {
  return openSqliteTaskStore(storePath).then((store) =>
    createAgent({
      card: jiajiaCard(),
      store,
      async onTask(task, ctx) {
        if (task.text === 'hold') await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        const steps = JSON.parse(task.text) as Step[];
        let doc: string | undefined;
        for (const [i, step] of steps.entries()) {
          await tick();
          if (step.kind === 'progress') await ctx.status('working', { message: `step ${i}` });
          else doc = await ctx.artifact({ text: step.text, name: 'doc', lastChunk: false, ...(doc === undefined ? {} : { id: doc, append: true }) });
        }
        await ctx.complete({ message: 'done' });
        return undefined;
      },
    }),
  );
}

const message = (text: string): TaskMessage => ({ messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text }] });

const seqOf = (event: TaskEvent): number | undefined => (event.kind === 'message' ? undefined : event.seq);

const textOfParts = (parts: readonly Part[]): string => parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');

let dir: string;
let agent: Agent;
let server: Listening;

beforeAll(async () => {
  // Not a tempHome: those go after each test, and this server lives through the file.
  dir = mkdtempSync(join(tmpdir(), 'a2a-lite-resume-'));
  agent = await scriptedAgent(join(dir, 'tasks.db'));
  let url = '';
  server = await listen(createA2AHandler({ agent, baseUrl: () => url }));
  url = server.url;
});

afterAll(async () => {
  await server.close();
  await agent.close();
  rmSync(dir, { recursive: true, force: true });
});

const bindings: [string, () => RemoteInterface][] = [
  ['JSON-RPC 1.0', () => ({ url: `${server.url}/jsonrpc`, binding: 'JSONRPC', version: '1.0' })],
  ['HTTP+JSON 1.0', () => ({ url: server.url, binding: 'HTTP+JSON', version: '1.0' })],
  ['JSON-RPC 0.3', () => ({ url: `${server.url}/jsonrpc`, binding: 'JSONRPC', version: '0.3' })],
];

const steps = fc.array(
  fc.oneof(fc.constant<Step>({ kind: 'progress' }), fc.string({ minLength: 1, maxLength: 6 }).map((text): Step => ({ kind: 'chunk', text }))),
  { minLength: 1, maxLength: 10 },
);

describe.each(bindings)('a stream cut anywhere and resumed over %s', (_name, target) => {
  it('loses no event and repeats none (property)', async () => {
    const transport: Transport = openTransport(target());
    await fc.assert(
      fc.asyncProperty(steps, fc.nat(14), async (script, cut) => {
        const seen: TaskEvent[] = [];
        for await (const event of transport.stream(message(JSON.stringify(script)))) {
          seen.push(event);
          if (seen.length > cut) break; // the client goes away: the connection closes
        }
        const first = seen[0] as Extract<TaskEvent, { kind: 'task' }>;
        const last = seen.at(-1) as TaskEvent;
        const ended = last.kind === 'status' && isTerminal(last.status.state);
        if (!ended) {
          const after = Math.max(...seen.map((e) => seqOf(e) ?? 0));
          for await (const event of transport.subscribe(first.task.id, undefined, after)) seen.push(event);
        }
        const changes = seen.slice(1);
        // Numbered 1, 2, 3 … with none missing and none twice, and no snapshot in between.
        expect(changes.map(seqOf)).toEqual(changes.map((_, i) => i + 1));
        const log = await agent.store.events(first.task.id, 0);
        expect(changes.length).toBe(log.last);
        // What a person reads: the document streamed in chunks, whole and not doubled.
        const chunks = changes.flatMap((e) => (e.kind === 'artifact' ? [textOfParts(e.artifact.parts)] : []));
        expect(chunks.join('')).toBe(script.flatMap((s) => (s.kind === 'chunk' ? [s.text] : [])).join(''));
        expect(changes.at(-1)).toMatchObject({ kind: 'status', status: { state: 'completed' } });
      }),
      { numRuns: 12 },
    );
  });
});

describe('resuming from the store', () => {
  const rpc = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers }, body: JSON.stringify(body) });
  const events = (text: string) =>
    text
      .split('\n\n')
      .filter((chunk) => chunk !== '')
      .map((chunk) => ({ id: /^id: (\d+)$/m.exec(chunk)?.[1], data: JSON.parse(chunk.slice(chunk.indexOf('data: ') + 6)) as { result: Record<string, { metadata?: Record<string, unknown> }> } }));

  /** A task a client streamed to its end: it has a cursor for each event. */
  async function finishedTask(): Promise<Task> {
    let task: Task | undefined;
    for await (const event of await agent.stream(message(JSON.stringify([{ kind: 'progress' }, { kind: 'chunk', text: 'a' }, { kind: 'chunk', text: 'b' }])))) {
      if (event.kind === 'task') task = event.task;
    }
    return task as Task;
  }

  it('replays the rest of an ended task after the last event seen, then ends', async () => {
    const task = await finishedTask();
    const response = await rpc({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: task.id } }, { 'last-event-id': '2' });
    const got = events(await response.text());
    expect(got.map((e) => e.id)).toEqual(['3', '4']);
    expect(Object.keys(got[0]!.data.result)).toEqual(['artifactUpdate']);
    expect(got[1]!.data.result).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } } });
    // Without the cursor, an ended task has nothing to follow, as the spec says.
    const plain = (await (await rpc({ jsonrpc: '2.0', id: 2, method: 'SubscribeToTask', params: { id: task.id } })).json()) as { error?: { code: number } };
    expect(plain.error?.code).toBe(-32004);
  });

  it('numbers each object in metadata for a client that activates the extension, and says so', async () => {
    const task = await finishedTask();
    const response = await rpc({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: task.id, lastEventId: 1 } }, { 'a2a-extensions': RESUME_EXTENSION });
    expect(response.headers.get('a2a-extensions')).toBe(RESUME_EXTENSION);
    const got = events(await response.text());
    expect(got.map((e) => Object.values(e.data.result)[0]?.metadata?.[RESUME_EXTENSION])).toEqual([{ seq: 2 }, { seq: 3 }, { seq: 4 }]);
  });

  it('says plainly when the missed events are no longer kept: the task whole, marked as a gap', async () => {
    const task = await finishedTask();
    const { db } = await openDatabase(join(dir, 'tasks.db'));
    db.prepare('DELETE FROM task_events WHERE task_id = (SELECT id FROM tasks WHERE json ->> \'$.id\' = ?) AND first_seq <= 2').run(task.id);
    db.close();
    const response = await fetch(`${server.url}/tasks/${task.id}:subscribe?lastEventId=1`, { headers: { 'a2a-version': '1.0', 'a2a-extensions': RESUME_EXTENSION } });
    const got = events(await response.text()) as unknown as { id: string; data: Record<string, { status: unknown; metadata?: Record<string, unknown> }> }[];
    expect(got).toHaveLength(1);
    expect(got[0]!.id).toBe('4');
    expect(got[0]!.data.task).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' }, metadata: { [RESUME_EXTENSION]: { seq: 4, gap: true } } });
  });

  it('refuses an event id it never handed out, naming it', async () => {
    const task = await finishedTask();
    const past = (await (await rpc({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: task.id } }, { 'last-event-id': '99' })).json()) as { error: { code: number; message: string } };
    expect(past.error).toMatchObject({ code: -32602, message: expect.stringContaining('no event 99') });
    const garbage = await fetch(`${server.url}/tasks/${task.id}:subscribe`, { headers: { 'a2a-version': '1.0', 'last-event-id': 'abc' } });
    expect(garbage.status).toBe(400);
    expect(((await garbage.json()) as { error: { message: string } }).error.message).toContain('Last-Event-ID must be the id of an event');
  });
});

describe('a task nobody followed', () => {
  it('logs nothing, and a cursor for it gets the task whole, as a gap', async () => {
    const sent = await agent.send(message(JSON.stringify([{ kind: 'chunk', text: 'a' }])));
    expect(sent.status.state).toBe('completed');
    expect(await agent.store.events(sent.id, 0)).toEqual({ events: [], last: 0 });
    const replayed: TaskEvent[] = [];
    for await (const event of await agent.subscribe(sent.id, {}, 0)) replayed.push(event);
    expect(replayed).toMatchObject([{ kind: 'task', gap: true, task: { id: sent.id, status: { state: 'completed' } } }]);
  });
});

describe('resuming across a restart', () => {
  it('replays what a task did before the agent died, and the failure recorded at start-up', async () => {
    const path = join(tempHome('resume-restart'), 'tasks.db');
    const first = await scriptedAgent(path);
    const stream = await first.stream(message('hold'));
    const iterator = stream[Symbol.asyncIterator]();
    const snapshot = (await iterator.next()).value as Extract<TaskEvent, { kind: 'task' }>;
    // The process dies with the task running: its store is closed without ending it.
    await iterator.return?.();
    await first.store.close();
    const second = await scriptedAgent(path);
    try {
      await second.store.recoverInterrupted('the agent restarted while this task was running');
      const replayed: TaskEvent[] = [];
      for await (const event of await second.subscribe(snapshot.task.id, {}, snapshot.seq)) replayed.push(event);
      expect(replayed).toMatchObject([{ kind: 'status', seq: (snapshot.seq ?? 0) + 1, status: { state: 'failed' } }]);
    } finally {
      await second.close();
    }
  });
});

describe('the client resumes where its stream broke', () => {
  it('asks for the events after the last one it saw and gets each chunk once', async () => {
    const proxy = await cuttingProxy(new URL(server.url).port, { afterEvents: 3, when: 'SendStreamingMessage' });
    try {
      const transport = openTransport({ url: `${proxy.url}/jsonrpc`, binding: 'JSONRPC', version: '1.0' });
      const script: Step[] = ['one ', 'two ', 'three ', 'four ', 'five'].map((text) => ({ kind: 'chunk', text }));
      const chunks: string[] = [];
      const resumed: string[] = [];
      const outcome = await sendAndFollow(transport, message(JSON.stringify(script)), {
        stream: true,
        deadline: Date.now() + 20_000,
        pauseMs: 20,
        onResume: (how) => resumed.push(how),
        onEvent: (event) => {
          if (event.kind === 'artifact') chunks.push(textOfParts(event.artifact.parts));
        },
      });
      expect(resumed).toEqual(['subscribe']);
      expect(proxy.cuts).toBe(1);
      expect(proxy.lastEventIds).toHaveLength(1);
      expect(chunks.join('')).toBe('one two three four five');
      expect(outcome).toMatchObject({ kind: 'task', task: { status: { state: 'completed' } } });
    } finally {
      await proxy.close();
    }
  });
});
