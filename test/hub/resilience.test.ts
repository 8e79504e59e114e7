// Cuts on either side of the hub, with real processes on 127.0.0.1: an agent's connection to the
// hub cut mid-stream (through a TCP relay the test can sever) and restored, and the hub itself
// killed with SIGKILL and started again on its SQLite registry. No accepted task is lost.
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SseParser } from '../../src/net/sse.js';
import { cliAsync } from '../cli/run-cli.js';
import { tempHome } from '../fixtures/home.js';
import { freePort, getJson, startAgent, startHub, until } from './hub-processes.js';

/** A TCP relay to `port` whose connections the test can cut at once. */
async function cuttable(port: number): Promise<{ url: string; cut(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((inbound) => {
    const outbound = connect(port, '127.0.0.1');
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

const relays: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const relay of relays.splice(0)) await relay.close();
});

interface Seen {
  id: number;
  /** An HTTP+JSON stream event: one of task, statusUpdate, artifactUpdate. */
  json: Record<string, { id?: string; status?: { state: string; message?: { parts: { text?: string }[] } } } | undefined>;
}

/** Reads an SSE response to its end, each event with its number. */
async function readEvents(response: Response, onEvent: (seen: Seen) => void): Promise<void> {
  const parser = new SseParser();
  const decoder = new TextDecoder();
  try {
    for await (const bytes of response.body as AsyncIterable<Uint8Array>) {
      for (const event of parser.push(decoder.decode(bytes, { stream: true }))) onEvent({ id: Number(event.id), json: JSON.parse(event.data) as Seen['json'] });
    }
  } catch {
    // The connection was cut: what arrived before is what counts.
  }
}

const V1 = { 'content-type': 'application/json', 'a2a-version': '1.0' };
const words = (seen: Seen): string => seen.json.statusUpdate?.status?.message?.parts.map((p) => p.text ?? '').join('') ?? '';

describe('the hub and its agents across cuts', () => {
  it('ends a relayed stream when the agent connection is cut, and the client resubscribes with Last-Event-ID and misses no event', async () => {
    const hub = await startHub();
    const port = Number(new URL(hub.url).port);
    const relay = await cuttable(port);
    relays.push(relay);
    await startAgent(relay.url, 'worker');
    await until(async () => (await getJson(`${hub.url}/hub/v1/agents`)).body.agents, 10_000, 'the agent registered');

    const stream = await fetch(`${hub.url}/agents/worker/message:stream`, { method: 'POST', headers: V1, body: JSON.stringify({ message: { messageId: 'm-cut', role: 'ROLE_USER', parts: [{ text: 'slow 30' }] } }) });
    expect(stream.status).toBe(200);
    const seen: Seen[] = [];
    let taskId = '';
    await readEvents(stream, (event) => {
      seen.push(event);
      taskId ||= event.json.task?.id ?? '';
      if (seen.length === 4) relay.cut();
    });
    // The stream ended with the cut, the task still running at the agent.
    expect(seen.length).toBeGreaterThanOrEqual(4);
    expect(words(seen.at(-1) as Seen)).not.toBe('done after 30 steps');
    expect(taskId).not.toBe('');
    await until(async () => ((await getJson(`${hub.url}/hub/v1/agents`)).body.agents as { connected: boolean }[])[0]?.connected || undefined, 15_000, 'the agent reconnected');

    const last = (seen.at(-1) as Seen).id;
    const resumed = await fetch(`${hub.url}/agents/worker/tasks/${taskId}:subscribe`, { method: 'POST', headers: { ...V1, 'last-event-id': String(last) } });
    expect(resumed.status).toBe(200);
    await readEvents(resumed, (event) => seen.push(event));
    const ids = seen.map((event) => event.id);
    expect(ids).toEqual(ids.map((_, index) => (ids[0] as number) + index));
    const steps = seen.map(words).filter((text) => text.startsWith('step '));
    expect(steps).toEqual(Array.from({ length: 30 }, (_, i) => `step ${i + 1} of 30`));
    expect(seen.at(-1)?.json.statusUpdate?.status?.state).toBe('TASK_STATE_COMPLETED');
  }, 60_000);

  it('lets a2a-lite send follow a task through the hub across a cut, printing every step once', async () => {
    const hub = await startHub();
    const relay = await cuttable(Number(new URL(hub.url).port));
    relays.push(relay);
    const agent = await startAgent(relay.url, 'worker');
    await until(async () => ((await getJson(`${hub.url}/hub/v1/agents`)).body.agents as { connected: boolean }[])[0]?.connected || undefined, 10_000, 'the agent connected');
    const sending = cliAsync(['send', `${hub.url}/agents/worker`, 'slow 25'], { home: tempHome('client') });
    await until(async () => ((await getJson(`${hub.url}/hub/v1/tasks`)).body.tasks as { progress?: number }[]).some((t) => (t.progress ?? 0) >= 15) || undefined, 15_000, 'the task under way');
    relay.cut();
    const sent = await sending;
    expect(sent.code, sent.stderr).toBe(0);
    const steps = [...sent.stdout.matchAll(/step (\d+) of 25/g)].map((m) => Number(m[1]));
    expect(steps).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(sent.stdout).toContain('done after 25 steps');
    // The agent did lose its connection on the way, and dialled again.
    expect(agent.stderr()).toMatch(/lost the hub \S+: noticed here: the TCP connection ended without a close frame \(by the other side, or something in between\), at \S+; reconnecting|cannot reach the hub/);
  }, 60_000);

  it('holds a request for an agent that is reconnecting, and answers it once the agent is back', async () => {
    const hub = await startHub();
    const relay = await cuttable(Number(new URL(hub.url).port));
    relays.push(relay);
    await startAgent(relay.url, 'worker');
    await until(async () => ((await getJson(`${hub.url}/hub/v1/agents`)).body.agents as { connected: boolean }[])[0]?.connected || undefined, 10_000, 'the agent connected');
    relay.cut();
    await until(async () => ((await getJson(`${hub.url}/hub/v1/agents`)).body.agents as { connected: boolean }[])[0]?.connected === false || undefined, 10_000, 'the hub to see the cut');
    // Sent while the agent is away: it waits (up to --grace, 10 s) for the agent to dial in again.
    const sent = await fetch(`${hub.url}/agents/worker/message:send`, { method: 'POST', headers: V1, body: JSON.stringify({ message: { messageId: 'm-grace', role: 'ROLE_USER', parts: [{ text: 'echo while away' }] } }) });
    expect(sent.status).toBe(200);
    expect(((await sent.json()) as { task: { artifacts: { parts: { text: string }[] }[] } }).task.artifacts[0]?.parts[0]?.text).toBe('echo: while away');
  }, 60_000);

  it('loses no accepted task when the hub is killed with SIGKILL and started again on its registry', async () => {
    const port = await freePort();
    const db = join(tempHome('hub-db'), 'hub.db');
    const first = await startHub(['--store', 'sqlite', '--db', db, '--port', String(port)]);
    await startAgent(first.url, 'worker');
    await until(async () => (await getJson(`${first.url}/hub/v1/agents`)).body.agents, 10_000, 'the agent registered');
    const sent = await fetch(`${first.url}/agents/worker/message:send`, {
      method: 'POST',
      headers: V1,
      body: JSON.stringify({ message: { messageId: 'm-kill', role: 'ROLE_USER', parts: [{ text: 'slow 20' }] }, configuration: { returnImmediately: true } }),
    });
    const taskId = ((await sent.json()) as { task: { id: string } }).task.id;

    first.child.kill('SIGKILL');
    await first.exited;
    const second = await startHub(['--store', 'sqlite', '--db', db, '--port', String(port)]);
    // The registry is back from SQLite at once, before the agent has dialled in again.
    const listed = (await getJson(`${second.url}/hub/v1/agents`)).body.agents as { id: string }[];
    expect(listed.map((agent) => agent.id)).toEqual(['worker']);
    const done = await until(
      async () => {
        const response = await fetch(`${second.url}/agents/worker/tasks/${taskId}`, { headers: V1 });
        if (response.status !== 200) return undefined;
        const task = (await response.json()) as { status: { state: string }; artifacts?: { parts: { text?: string }[] }[] };
        return task.status.state === 'TASK_STATE_COMPLETED' ? task : undefined;
      },
      30_000,
      'the task completed',
    );
    expect(done.artifacts?.[0]?.parts[0]?.text).toBe('done after 20 steps');
  }, 60_000);
});
