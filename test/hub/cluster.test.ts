// A hub cluster of real processes: `a2a-lite hub --store postgres://… --cluster nats://…` three
// times on 127.0.0.1 over one database of this run's own and one NATS subject prefix, with real
// `serve --hub` agents. An agent dialled in to B is reached through A in every call; owners hold
// across instances; A's feed tells of B; routing sees every instance's agents; the checks of
// agents at URLs are done once; and an instance killed with SIGKILL mid-stream loses no task.
// Skipped, with a line in the summary, where PostgreSQL or NATS does not answer.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { cliAsync } from '../cli/run-cli.js';
import { tempHome } from '../fixtures/home.js';
import { NATS_URL, natsAnswers } from '../fixtures/nats.js';
import { needsTool } from '../needs-tool.js';
import { needsPostgres, uniqueName, useTestDatabase } from '../postgres.js';
import { cancelTask, feed, getTask, send, stateOf, stream, subscribe, until } from './a2a-calls.js';
import { startAgent, startHub, type Running } from './hub-processes.js';

const noPostgres = needsPostgres('the hub cluster of processes (test/hub/cluster.test.ts)');
const noNats = !noPostgres && needsTool('the hub cluster of processes (test/hub/cluster.test.ts)', await natsAnswers(), `no NATS server answers at ${NATS_URL}`);

type Hub = Running & { url: string; instance: string };

const ALICE = 'cluster-test-alice';
const BOB = 'cluster-test-bob';
const TOKENS = { HUB_ALICE: ALICE, HUB_BOB: BOB };

describe.skipIf(noPostgres || noNats)('a hub cluster of processes on PostgreSQL and NATS', () => {
  const db = useTestDatabase();

  /** `count` hubs of one new cluster (a schema and a subject prefix of their own). */
  async function cluster(count: number, extra: string[] = []): Promise<Hub[]> {
    const store = db.url({ schema: uniqueName('hub') });
    const prefix = `test.${randomUUID()}`;
    const hubs: Hub[] = [];
    for (let i = 0; i < count; i += 1) {
      const hub = await startHub(['--store', store, '--cluster', NATS_URL, '--cluster-prefix', prefix, '--grace', '8', '--heartbeat', '1', ...extra], TOKENS);
      hubs.push({ ...hub, instance: (hub.info.cluster as { instance: string }).instance });
    }
    return hubs;
  }

  const agentsAt = async (hub: string, token?: string): Promise<Record<string, { connected?: boolean; instance?: string; health: { up: boolean; activeTasks: number } }>> => {
    const body = (await (await fetch(`${hub}/hub/v1/agents`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } })).json()) as { agents: { id: string }[] };
    return Object.fromEntries(body.agents.map((agent) => [agent.id, agent])) as never;
  };

  it('takes its store from A2A_LITE_HUB_STORE and says where it and the bus are, without the password', async () => {
    const url = new URL(db.url({ schema: uniqueName('hub') }));
    url.password = 'hunter2';
    const hub = await startHub(['--cluster', NATS_URL, '--cluster-prefix', `test.${randomUUID()}`], { A2A_LITE_HUB_STORE: url.toString() });
    expect(hub.info.store).toBe(`${url.protocol}//${url.username}@${url.host}${url.pathname} (schema ${url.searchParams.get('schema')})`);
    expect(hub.info.cluster).toMatchObject({ bus: NATS_URL });
    expect(JSON.stringify(hub.info) + hub.stderr()).not.toContain('hunter2');
  }, 60_000);

  it('stops with the bus named, without its password, when NATS does not answer', async () => {
    const refused = await cliAsync(['hub', '--json', '--store', db.url({ schema: uniqueName('hub') })], { home: tempHome('hub'), env: { A2A_LITE_CLUSTER: 'nats://hub:hunter2@127.0.0.1:1' } });
    expect(refused.code).toBe(7);
    expect(refused.stderr).toContain('cannot reach the cluster bus at nats://127.0.0.1:1');
    expect(refused.stdout + refused.stderr).not.toContain('hunter2');
  }, 60_000);

  it('reaches an agent dialled in to B through A: send, stream, get, cancel, subscribe', async () => {
    const [a, b] = (await cluster(2)) as [Hub, Hub];
    await startAgent(b.url, 'echo');
    await until(async () => (await agentsAt(a.url)).echo?.instance === b.instance || undefined, 15_000, 'A to know the link at B');

    const sent = await send(a.url, 'echo', 'echo across');
    expect(sent.status).toBe(200);
    expect(JSON.stringify(sent.body)).toContain('echo: across');
    const taskId = stateOf(sent.body).taskId as string;
    expect(stateOf((await getTask(a.url, 'echo', taskId)).body).state).toBe('TASK_STATE_COMPLETED');

    const streamed = stream(a.url, 'echo', 'slow 3');
    await streamed.ended;
    expect(streamed.events.map((event) => stateOf(event).state).at(-1)).toBe('TASK_STATE_COMPLETED');
    expect(JSON.stringify(streamed.events)).toContain('step 3 of 3');

    const long = stream(a.url, 'echo', 'slow 100');
    const longId = await until(() => stateOf(long.events[0] ?? {}).taskId, 10_000, 'the long task');
    const watching = subscribe(a.url, 'echo', longId);
    await until(() => watching.events.length > 0 || undefined, 10_000, 'the subscription');
    const cancelled = await cancelTask(a.url, 'echo', longId);
    expect(cancelled.status).toBe(200);
    await watching.ended;
    await long.ended;
    expect(stateOf(watching.events.at(-1) ?? {}).state).toBe('TASK_STATE_CANCELED');
  }, 60_000);

  it('keeps each caller to its own tasks and agents across instances', async () => {
    const [a, b] = (await cluster(2, ['--token-env', 'HUB_ALICE', '--token-env', 'HUB_BOB'])) as [Hub, Hub];
    await startAgent(b.url, 'mine', { extra: ['--port', 'none', '--hub-token-env', 'HUB_ALICE'], env: TOKENS });
    await until(async () => (await agentsAt(a.url, ALICE)).mine?.connected || undefined, 15_000, 'A to know the agent');
    const made = await send(a.url, 'mine', 'echo private', { token: ALICE });
    const taskId = stateOf(made.body).taskId as string;
    expect((await getTask(b.url, 'mine', taskId, ALICE)).status).toBe(200);
    expect((await getTask(a.url, 'mine', taskId, BOB)).status).toBe(404);
    expect((await getTask(b.url, 'mine', taskId, BOB)).status).toBe(404);
    expect((await fetch(`${a.url}/hub/v1/agents/mine`, { method: 'DELETE', headers: { authorization: `Bearer ${BOB}` } })).status).toBe(403);
  }, 60_000);

  it("shows B's agents and tasks on A's live feed", async () => {
    const [a, b] = (await cluster(2)) as [Hub, Hub];
    const watcher = feed(a.url);
    await until(() => watcher.events[0], 10_000, 'the snapshot');
    await startAgent(b.url, 'seen');
    await until(() => watcher.events.find((event) => event.event === 'agent.registered' && event.agentId === 'seen'), 15_000, 'the registration at B');
    await until(() => watcher.events.find((event) => event.event === 'agent.health' && event.agentId === 'seen' && (event.health as { up: boolean }).up), 15_000, 'the agent up');
    const streamed = stream(b.url, 'seen', 'slow 2');
    await streamed.ended;
    await until(() => watcher.events.find((event) => event.event === 'task' && (event.task as { state: string }).state === 'completed'), 10_000, "the task at B on A's feed");
    const tasks = (await (await fetch(`${a.url}/hub/v1/tasks`)).json()) as { tasks: { taskId: string; state: string }[] };
    expect(tasks.tasks.find((task) => task.taskId === stateOf(streamed.events[0] ?? {}).taskId)).toMatchObject({ state: 'completed' });
    watcher.stop();
  }, 60_000);

  it('routes by skill to the agents of every instance, the less loaded first', async () => {
    const [a, b, c] = (await cluster(3)) as [Hub, Hub, Hub];
    const work = ['work:Work:Does the work'];
    await startAgent(a.url, 'worker-a', { skills: work });
    await startAgent(b.url, 'worker-b', { skills: work });
    const ranked = async (): Promise<string[]> => ((await (await fetch(`${c.url}/hub/v1/route?skill=work`)).json()) as { candidates: { agent: { id: string } }[] }).candidates.map((x) => x.agent.id);
    await until(async () => (await ranked()).length === 2 || undefined, 15_000, 'both workers at C');
    const busy = stream(b.url, 'worker-b', 'slow 100');
    await until(() => busy.events[0], 10_000, 'worker-b busy');
    await until(async () => (await agentsAt(c.url))['worker-b']?.health.activeTasks === 1 || undefined, 10_000, "B's load at C");
    expect(await ranked()).toEqual(['worker-a', 'worker-b']);
    const sent = await cliAsync(['send', '--hub', c.url, '--skill', 'work', 'echo routed'], { home: tempHome('client') });
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain('echo: routed');
    expect(sent.stderr).toMatch(/hub chose worker-a/);
    busy.stop();
  }, 60_000);

  it('checks the agents at URLs from one instance, not from each', async () => {
    const hubs = await cluster(2, ['--check', '1']);
    const reads = { count: 0 };
    const agent = await cardServer(reads);
    const registered = await fetch(`${hubs[0]?.url}/hub/v1/agents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: agent.url, id: 'plain' }) });
    expect(registered.status).toBe(201);
    await until(() => reads.count >= 5 || undefined, 20_000, 'five card reads');
    const states = await Promise.all(hubs.map(async (hub) => ((await (await fetch(`${hub.url}/hub/v1`)).json()) as { cluster: { leader: boolean; checkRounds: number; instances: number } }).cluster));
    expect(states.map((state) => state.leader).sort()).toEqual([false, true]);
    expect(states.every((state) => state.instances === 2)).toBe(true);
    const leader = states.find((state) => state.leader) as { checkRounds: number };
    expect(states.find((state) => !state.leader)?.checkRounds).toBe(0);
    expect(reads.count).toBeLessThanOrEqual(leader.checkRounds + 2);
    await new Promise((resolve) => agent.server.close(resolve));
  }, 60_000);

  it('loses no task when an instance is killed mid-stream: the stream ends, the agent dials the next, the client resubscribes', async () => {
    const [a, b, c] = (await cluster(3)) as [Hub, Hub, Hub];
    const agent = await startAgent(`${b.url},${a.url}`, 'survivor');
    await until(async () => (await agentsAt(c.url)).survivor?.instance === b.instance || undefined, 15_000, 'C to know the link at B');
    const streamed = stream(c.url, 'survivor', 'slow 40');
    const blocking = send(c.url, 'survivor', 'slow 40');
    await until(() => streamed.events.length >= 4 || undefined, 15_000, 'the first steps');
    b.child.kill('SIGKILL');
    await b.exited;
    await streamed.ended;
    expect(stateOf(streamed.events.at(-1) ?? {}).state).toBe('TASK_STATE_WORKING');
    // Answered, never left hanging: lost with its instance, or done if the agent was quicker.
    expect([200, 502]).toContain((await blocking).status);

    // Asked meanwhile, a new request waits for the agent to dial in again.
    const meanwhile = await send(c.url, 'survivor', 'echo after the kill');
    expect(meanwhile.status).toBe(200);
    expect(JSON.stringify(meanwhile.body)).toContain('echo: after the kill');
    expect((await agentsAt(c.url)).survivor?.instance).toBe(a.instance);
    expect(agent.stderr()).toContain(`dialling ${a.url}`);

    const taskId = stateOf(streamed.events[0] ?? {}).taskId as string;
    const rest = subscribe(c.url, 'survivor', taskId, { lastEventId: streamed.ids.at(-1) as string });
    await rest.ended;
    const steps = [...streamed.events, ...rest.events].map((event) => JSON.stringify(event).match(/step (\d+) of 40/)?.[1]).filter((step) => step !== undefined);
    expect(steps).toEqual(Array.from({ length: 40 }, (_, i) => String(i + 1)));
    expect(stateOf(rest.events.at(-1) ?? {}).state).toBe('TASK_STATE_COMPLETED');
  }, 90_000);
});

/** An agent card at a URL, counting its reads (the hub's checks). */
async function cardServer(reads: { count: number }): Promise<{ url: string; server: Server }> {
  const card = JSON.stringify({ name: 'Plain', description: 'an agent at a URL', version: '1.0.0', supportedInterfaces: [], capabilities: {}, defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [{ id: 'echo', name: 'Echo', description: 'says it back', tags: [] }] });
  const server = createServer((request, response) => {
    if (request.url === '/.well-known/agent-card.json') reads.count += 1;
    response.writeHead(200, { 'content-type': 'application/json' }).end(card);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
