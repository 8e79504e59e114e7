// Real `a2a-lite serve` replicas on one PostgreSQL database, reaching each other over NATS, as a
// load balancer would use them: a task started on one is followed, resumed and cancelled on
// another; one killed with SIGKILL mid-stream loses no accepted task, its client resumes on a
// survivor with exactly the events it missed, and no task runs twice.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NATS_URL, natsAnswers } from '../fixtures/nats.js';
import { agentHome, NODE, script, start, until, type Running } from '../hub/hub-processes.js';
import { needsTool } from '../needs-tool.js';
import { needsPostgres, useTestDatabase } from '../postgres.js';
import { SseParser } from '../../src/net/sse.js';

const noPostgres = needsPostgres('serve replicas on PostgreSQL and NATS (test/cluster/serve-replicas.test.ts)');
const noNats = needsTool('serve replicas on PostgreSQL and NATS (test/cluster/serve-replicas.test.ts)', await natsAnswers(), `no NATS server answers at ${NATS_URL}`);

/** The program (written per test): notes each run in RUNS (one file per run), then "slow N" says N steps, 300 ms apart. */
const PROGRAM_TEXT = `import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
const task = process.env.A2A_TASK_ID;
writeFileSync(join(process.env.RUNS, task + '-' + process.pid), '');
const text = readFileSync(0, 'utf8');
const n = Number(/slow (\\d+)/.exec(text)?.[1] ?? '0');
for (let i = 1; i <= n; i += 1) {
  process.stdout.write('[A2A:status task=' + task + ' state=working]\\nstep ' + i + '\\n\\n');
  await new Promise((resolve) => setTimeout(resolve, 300));
}
process.stdout.write('[A2A:result task=' + task + ' state=completed]\\ndone after ' + n + '\\n\\n');
`;

const running: Running[] = [];
afterEach(() => {
  for (const replica of running.splice(0)) replica.child.kill('SIGKILL');
});

describe.skipIf(noPostgres || noNats)('serve replicas on PostgreSQL and NATS', () => {
  const db = useTestDatabase();

  async function replicas(names: string[]): Promise<{ url: (name: string) => string; runs: () => string[]; kill: (name: string) => void }> {
    const runsDir = mkdtempSync(join(tmpdir(), 'a2a-runs-'));
    const prefix = `test.${randomUUID()}`;
    // Made per test: the folder of test scripts goes after each test.
    const program = script('replica-program.mjs', PROGRAM_TEXT);
    const started = new Map<string, Running>();
    for (const name of names) {
      const home = agentHome('replicated');
      const replica = await start(
        ['serve', '--home', home, '--store', db.url(), '--cluster', NATS_URL, '--cluster-prefix', prefix, '--replica', name, '--replica-lease', '2', '--port', '0', '--exec', `${NODE} ${JSON.stringify(program)}`],
        { A2A_LITE_HOME: home, RUNS: runsDir },
      );
      running.push(replica);
      started.set(name, replica);
    }
    return {
      url: (name) => String(started.get(name)?.info.url),
      runs: () => readdirSync(runsDir),
      kill: (name) => started.get(name)?.child.kill('SIGKILL'),
    };
  }

  it('streams, on a second replica, a task running on the first, and a cancel there stops it', async () => {
    const cluster = await replicas(['a', 'b']);
    const task = await sendTask(cluster.url('a'), 'slow 20', false);
    const events = follow(`${cluster.url('b')}/tasks/${task}:subscribe`, {});
    await until(async () => ((await events.seen()).some((e) => e.includes('step 2')) ? true : undefined), 15_000, 'events of A’s task on B');
    const cancelled = await rest(cluster.url('b'), `/tasks/${task}:cancel`, 'POST');
    expect(cancelled.status.state).toBe('TASK_STATE_CANCELED');
    expect((await rest(cluster.url('a'), `/tasks/${task}`)).status.state).toBe('TASK_STATE_CANCELED');
    expect(cluster.runs()).toHaveLength(1);
  }, 60_000);

  it('loses no accepted task when a replica is killed mid-stream: its client resumes on a survivor with exactly the missed events, and nothing runs twice', async () => {
    const cluster = await replicas(['a', 'b']);
    const stream = follow(`${cluster.url('a')}/message:stream`, message('slow 40'));
    const seen = await until(async () => {
      const now = await stream.seen();
      return now.filter((e) => e.includes('step')).length >= 3 ? now : undefined;
    }, 15_000, 'three steps streamed from A');
    const task = stream.taskId();
    const last = stream.lastId();
    cluster.kill('a');
    // B finds A dead once its 2 s lease has run out, and ends the task as failed with the reason.
    const resumed = follow(`${cluster.url('b')}/tasks/${task}:subscribe`, {}, last);
    const after = await until(async () => {
      const now = await resumed.seen();
      return now.some((e) => e.includes('TASK_STATE_FAILED')) ? now : undefined;
    }, 30_000, 'the task to end as failed on B');
    const ids = [...stream.ids(), ...resumed.ids()];
    expect(new Set(ids).size).toBe(ids.length);
    expect(resumed.ids().every((id) => Number(id) > Number(last))).toBe(true);
    expect(after.length).toBeGreaterThan(0);
    expect(seen.length).toBeGreaterThan(0);
    const stored = await rest(cluster.url('b'), `/tasks/${task}`);
    expect(stored.status.state).toBe('TASK_STATE_FAILED');
    expect(cluster.runs()).toHaveLength(1);
  }, 90_000);

  it('starts the work once for one Idempotency-Key sent to two replicas at the same instant', async () => {
    const cluster = await replicas(['a', 'b']);
    const key = `key-${randomUUID()}`;
    const [one, two] = await Promise.all([sendTask(cluster.url('a'), 'slow 1', true, key), sendTask(cluster.url('b'), 'slow 1', true, key)]);
    expect(one, 'the task of the send on A').toMatch(/^[0-9a-f-]{36}$/);
    expect(one).toBe(two);
    const stored = await rest(cluster.url('a'), `/tasks/${one}`);
    expect(JSON.stringify(stored.status)).toContain('TASK_STATE_COMPLETED');
    expect(cluster.runs()).toHaveLength(1);
  }, 60_000);
});

function message(text: string): Record<string, unknown> {
  return { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] } };
}

async function rest(base: string, path: string, method = 'GET', body?: unknown, headers: Record<string, string> = {}): Promise<{ id: string; status: { state: string } } & Record<string, unknown>> {
  const response = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const json = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${JSON.stringify(json)}`);
  return (json.task ?? json) as { id: string; status: { state: string } };
}

/** Sends `text`; returns the task id (blocking: once the task is done). */
async function sendTask(base: string, text: string, blocking: boolean, key?: string): Promise<string> {
  const body = { ...message(text), configuration: { returnImmediately: !blocking } };
  return (await rest(base, '/message:send', 'POST', body, key === undefined ? {} : { 'idempotency-key': key })).id;
}

/** Opens an event stream (a POST with `body`), resuming after `lastEventId` when given; reads it in the background. */
function follow(url: string, body: unknown, lastEventId?: string) {
  const events: { id?: string; data: string }[] = [];
  const parser = new SseParser();
  const done = (async () => {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) }, body: JSON.stringify(body) });
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      for (const event of parser.push(decoder.decode(chunk, { stream: true }))) events.push({ ...(event.id === undefined ? {} : { id: event.id }), data: event.data });
    }
  })().catch((error: unknown) => events.push({ data: `ERROR ${String(error)}` }));
  return {
    seen: async () => events.map((e) => e.data),
    ids: () => events.flatMap((e) => (e.id === undefined ? [] : [e.id])),
    lastId: () => events.flatMap((e) => (e.id === undefined ? [] : [e.id])).at(-1) ?? '0',
    taskId: () => {
      const first = JSON.parse(events[0]?.data ?? '{}') as { task?: { id?: string } };
      return String(first.task?.id);
    },
    done,
  };
}
