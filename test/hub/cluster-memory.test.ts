// A hub cluster in this process (several Hub instances on one in-process store and bus): an agent
// dialled in to one instance is one hub's agent for a client of any other, in every call and
// stream; owners, the feed, health, routing and the checks are the cluster's, not one instance's;
// an instance that stops or dies loses no request silently. test/hub/cluster.test.ts does the
// same with real processes, PostgreSQL and NATS.
import { describe, expect, it } from 'vitest';
import { cancelTask, feed, getTask, send, stateOf, stream, subscribe, until } from './a2a-calls.js';
import { dialAgent, memoryCluster, TOKENS, urlAgent } from './cluster-harness.js';

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
const api = async (url: string, token?: string): Promise<Record<string, unknown>> => (await (await fetch(url, { headers: token === undefined ? {} : bearer(token) })).json()) as Record<string, unknown>;
const agentAt = async (hub: string, id: string, token?: string): Promise<Record<string, unknown> | undefined> =>
  ((await api(`${hub}/hub/v1/agents`, token)).agents as Record<string, unknown>[]).find((agent) => agent.id === id);
const register = (hub: string, url: string, token: string): Promise<Response> =>
  fetch(`${hub}/hub/v1/agents`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(token) }, body: JSON.stringify({ url }) });

describe('a hub cluster in one process', () => {
  it('reaches an agent dialled in to B through A: send, stream, get, cancel, subscribe', async () => {
    const { instances, errors } = await memoryCluster(2);
    const [a, b] = instances as [typeof instances[0], typeof instances[0]];
    const agent = dialAgent('echo', [b.url]);
    await agent.ready();
    await until(() => a.hub.isConnected('echo'), 5_000, 'A to know of the link');
    expect([a.hub.relay.isConnected('echo'), b.hub.relay.isConnected('echo')]).toEqual([false, true]);
    expect(await agentAt(a.url, 'echo')).toMatchObject({ connected: true, link: 'websocket', instance: b.hub.instance, health: { up: true } });
    // Its card at A points at A; the AI Catalog of A lists it.
    const card = (await (await fetch(`${a.url}/agents/echo/.well-known/agent-card.json`)).json()) as { supportedInterfaces: { url: string }[] };
    expect(card.supportedInterfaces.map((i) => i.url).every((url) => url.startsWith(`${a.url}/agents/echo`))).toBe(true);
    const catalog = (await (await fetch(`${a.url}/.well-known/ai-catalog.json`)).json()) as { entries: { url: string }[] };
    expect(catalog.entries.map((entry) => entry.url)).toEqual([`${a.url}/agents/echo/.well-known/agent-card.json`]);

    const sent = await send(a.url, 'echo', 'echo hello');
    expect(sent.status).toBe(200);
    const task = sent.body.task as { id: string; status: { state: string }; artifacts: { parts: { text: string }[] }[] };
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts[0]?.parts[0]?.text).toBe('echo: hello');

    const streamed = stream(a.url, 'echo', 'slow 3');
    await streamed.ended;
    const states = streamed.events.map((event) => stateOf(event).state);
    expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');
    expect(states.filter((state) => state === 'TASK_STATE_WORKING').length).toBeGreaterThanOrEqual(3);

    const got = await getTask(a.url, 'echo', task.id);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: task.id, status: { state: 'TASK_STATE_COMPLETED' } });

    const waiting = stream(a.url, 'echo', 'wait');
    const waitingId = await until(() => stateOf(waiting.events[0] ?? {}).taskId, 5_000, 'the task to start');
    const watching = subscribe(a.url, 'echo', waitingId);
    expect(await watching.status).toBe(200);
    const cancelled = await cancelTask(a.url, 'echo', waitingId);
    expect(cancelled.status).toBe(200);
    expect(stateOf(cancelled.body).state).toBe('TASK_STATE_CANCELED');
    await watching.ended;
    await waiting.ended;
    expect(stateOf(watching.events.at(-1) ?? {}).state).toBe('TASK_STATE_CANCELED');
    expect(errors).toEqual([]);
  });

  it('keeps each caller to its own tasks across instances, for connected agents and agents at URLs', async () => {
    const { instances } = await memoryCluster(2, { auth: true });
    const [a, b] = instances as [typeof instances[0], typeof instances[0]];
    const agent = dialAgent('echo', [b.url], { token: TOKENS.alice });
    await agent.ready();
    await until(() => a.hub.isConnected('echo'), 5_000, 'A to know of the link');
    const made = await send(a.url, 'echo', 'echo mine', { token: TOKENS.alice });
    const taskId = (made.body.task as { id: string }).id;
    expect((await getTask(b.url, 'echo', taskId, TOKENS.alice)).status).toBe(200);
    for (const hub of [a.url, b.url]) expect((await getTask(hub, 'echo', taskId, TOKENS.bob)).status, hub).toBe(404);
    // The id is alice's at every instance.
    const squatter = dialAgent('echo', [a.url], { token: TOKENS.bob });
    await until(() => (squatter.connected ? undefined : true), 2_000, 'the refusal');
    expect(squatter.connected).toBe(false);
    squatter.close();

    const plain = await urlAgent('plain');
    expect((await register(a.url, plain.url, TOKENS.alice)).status).toBe(201);
    const atUrl = await send(a.url, 'plain', 'echo by url', { token: TOKENS.alice });
    const urlTask = (atUrl.body.task as { id: string }).id;
    expect((await getTask(b.url, 'plain', urlTask, TOKENS.alice)).status).toBe(200);
    expect((await getTask(b.url, 'plain', urlTask, TOKENS.bob)).status).toBe(404);
    // Removing another's agent is refused at every instance.
    expect((await fetch(`${b.url}/hub/v1/agents/plain`, { method: 'DELETE', headers: bearer(TOKENS.bob) })).status).toBe(403);
  });

  it("shows B's agents, their health and the tasks sent through B on the feed and the API at A", async () => {
    const { instances } = await memoryCluster(2);
    const [a, b] = instances as [typeof instances[0], typeof instances[0]];
    const watcher = feed(a.url);
    await until(() => watcher.events[0], 5_000, 'the snapshot');
    const agent = dialAgent('echo', [b.url]);
    await agent.ready();
    await until(() => watcher.events.find((event) => event.event === 'agent.registered' && event.agentId === 'echo'), 5_000, 'the registration at B on the feed at A');
    await until(() => watcher.events.find((event) => event.event === 'agent.health' && (event.health as { up: boolean }).up), 5_000, 'the agent up');
    const streamed = stream(b.url, 'echo', 'slow 2');
    await streamed.ended;
    const taskId = stateOf(streamed.events[0] ?? {}).taskId as string;
    await until(() => watcher.events.find((event) => event.event === 'task' && (event.task as { state: string; taskId: string }).state === 'completed'), 5_000, 'the task on the feed');
    expect(watcher.events.filter((event) => event.event === 'task').map((event) => (event.task as { taskId: string }).taskId)).toContain(taskId);
    // The tasks B saw, listed at A; and an event id of A's feed is no id at B's.
    expect(((await api(`${a.url}/hub/v1/tasks`)).tasks as { taskId: string; state: string }[]).find((task) => task.taskId === taskId)).toMatchObject({ state: 'completed' });
    const elsewhere = feed(b.url, undefined, watcher.ids.at(-1));
    expect((await until(() => elsewhere.events[0], 5_000, 'the first event at B')).event).toBe('snapshot');
    elsewhere.stop();
    watcher.stop();
  });

  it('routes by skill across instances, counting the load of every instance', async () => {
    const { instances } = await memoryCluster(2);
    const [a, b] = instances as [typeof instances[0], typeof instances[0]];
    await dialAgent('worker-b', [b.url], { skills: ['work'] }).ready();
    await dialAgent('worker-a', [a.url], { skills: ['work'] }).ready();
    const ranked = async (hub: string): Promise<{ id: string; active: number }[]> =>
      ((await api(`${hub}/hub/v1/route?skill=work`)).candidates as { agent: { id: string; health: { activeTasks: number } } }[]).map((c) => ({ id: c.agent.id, active: c.agent.health.activeTasks }));
    await until(async () => (await ranked(a.url)).length === 2, 5_000, 'both candidates at A');
    // A task through B on worker-b: A ranks worker-b after worker-a.
    const busy = stream(b.url, 'worker-b', 'wait');
    await until(() => busy.events[0], 5_000, 'the task to start');
    await until(async () => (await ranked(a.url))[1]?.id === 'worker-b' && (await ranked(a.url))[1]?.active === 1, 5_000, 'the load of B at A');
    expect((await ranked(a.url))[0]).toEqual({ id: 'worker-a', active: 0 });
    busy.stop();
    await until(async () => (await ranked(a.url)).every((c) => c.active === 0), 5_000, 'the load to go');
  });

  it('refuses a registration whose URL leads back to any instance of the cluster', async () => {
    const { instances } = await memoryCluster(2, { auth: true });
    const [a, b] = instances as [typeof instances[0], typeof instances[0]];
    await dialAgent('echo', [b.url], { token: TOKENS.alice }).ready();
    const refused = await register(a.url, `${b.url}/agents/echo`, TOKENS.alice);
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('the request came back to this hub (HTTP 508: a loop)');
  });
});

describe('a hub cluster in one process, when an instance stops or dies', () => {
  it('serves the agents of an instance that stops from the one they dial next, a request meanwhile waiting for them', async () => {
    const { instances } = await memoryCluster(3);
    const [a, b, c] = instances as [typeof instances[0], typeof instances[0], typeof instances[0]];
    const agent = dialAgent('echo', [b.url, c.url]);
    await agent.ready();
    await until(() => a.hub.linkOf('echo')?.instance === b.hub.instance, 5_000, 'A to know the link at B');
    await b.stop();
    const sent = await send(a.url, 'echo', 'echo after the switch');
    expect(sent.status).toBe(200);
    expect(stateOf(sent.body).state).toBe('TASK_STATE_COMPLETED');
    expect(agent.hubUrl).toBe(c.url);
    expect(a.hub.linkOf('echo')?.instance).toBe(c.hub.instance);
  });

  it('ends the streams and answers the requests that crossed to an instance that dies; the task goes on at the agent and is followed again', async () => {
    const { instances } = await memoryCluster(3);
    const [a, b, c] = instances as [typeof instances[0], typeof instances[0], typeof instances[0]];
    const agent = dialAgent('echo', [b.url, a.url]);
    await agent.ready();
    await until(() => c.hub.linkOf('echo')?.instance === b.hub.instance, 5_000, 'C to know the link at B');
    const streamed = stream(c.url, 'echo', 'slow 20');
    const blocking = send(c.url, 'echo', 'slow 20');
    // Past the first steps, and past the time the word that the blocking send was taken is held for its answer.
    await until(() => streamed.events.length >= 8, 5_000, 'the first steps');
    await b.crash();
    await streamed.ended;
    expect(stateOf(streamed.events.at(-1) ?? {}).state).toBe('TASK_STATE_WORKING');
    const lost = await blocking;
    expect(lost.status).toBe(502);
    expect(JSON.stringify(lost.body)).toContain('stopped before the agent answered; a task it accepted is still at the agent');

    // The agent dials A; the client resubscribes through C from the last event it had.
    const taskId = stateOf(streamed.events[0] ?? {}).taskId as string;
    await until(() => c.hub.linkOf('echo')?.instance === a.hub.instance, 5_000, 'the agent at A');
    const rest = subscribe(c.url, 'echo', taskId, { lastEventId: streamed.ids.at(-1) as string });
    await rest.ended;
    const all = [...streamed.events, ...rest.events].map((event) => (event.statusUpdate as { status: { message?: { parts: { text: string }[] } } } | undefined)?.status.message?.parts[0]?.text);
    const steps = all.filter((text) => text?.startsWith('step '));
    expect(steps).toEqual(Array.from({ length: 20 }, (_, i) => `step ${i + 1}`));
    expect(stateOf(rest.events.at(-1) ?? {}).state).toBe('TASK_STATE_COMPLETED');
    expect(new Set([...streamed.ids, ...rest.ids]).size).toBe(streamed.ids.length + rest.ids.length);
  });

  it('answers 503 with Retry-After when the agent of a dead instance comes back nowhere within the grace', async () => {
    const { instances } = await memoryCluster(2, { graceMs: 500 });
    const [a, b] = instances as [typeof instances[0], typeof instances[0]];
    const agent = dialAgent('lonely', [b.url]);
    await agent.ready();
    await until(() => a.hub.isConnected('lonely'), 5_000, 'A to know of the link');
    await b.crash();
    const refused = await send(a.url, 'lonely', 'echo anyone');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(JSON.stringify(refused.body)).toContain('agent lonely is not connected to the hub; try again when it is');
  });

  it('says once that the registry went away, not at every renewal, and says when it is back', async () => {
    const { instances, errors } = await memoryCluster(1);
    const [a] = instances as [(typeof instances)[0]];
    a.directory.cut = true;
    await until(() => a.hub.cluster?.leads === false, 2_000, 'the lead to be let go');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(errors).toEqual(['0: renewing the lease of this hub instance: this instance is dead']);
    a.directory.cut = false;
    await until(() => a.hub.cluster?.leads === true, 2_000, 'the lead again');
    expect(errors.at(-1)).toBe('0: renewing the lease of this hub instance: the registry answers again');
  });

  it('checks the agents at URLs from one instance only, and from another once that one dies', async () => {
    const { instances } = await memoryCluster(3, { checkMs: 40 });
    const plain = await urlAgent('plain');
    expect((await fetch(`${instances[0]?.url}/hub/v1/agents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: plain.url }) })).status).toBe(201);
    await until(() => plain.cardReads() >= 8, 5_000, 'eight card reads');
    const leaders = instances.filter((instance) => instance.hub.cluster?.leads === true);
    expect(leaders).toHaveLength(1);
    const leader = leaders[0] as (typeof instances)[0];
    expect(instances.filter((instance) => instance !== leader).map((instance) => instance.hub.checkRounds)).toEqual([0, 0]);
    // One read at registration, then one a round (one may be on its way).
    expect(plain.cardReads()).toBeLessThanOrEqual(leader.hub.checkRounds + 2);

    await leader.crash();
    const next = await until(() => instances.find((instance) => instance !== leader && instance.hub.cluster?.leads === true), 5_000, 'another leader');
    const reads = plain.cardReads();
    await until(() => next.hub.checkRounds >= 3 && plain.cardReads() >= reads + 3, 5_000, 'checks from the new leader');
    expect(instances.filter((instance) => instance !== leader && instance !== next).map((instance) => instance.hub.checkRounds)).toEqual([0]);
  });
});
