// Squatting an agent id, against `a2a-lite hub` with two principals as a real process: a
// connection that dials in under an id and never gives its card (over a WebSocket or an event
// stream, held open or dropped) keeps the id from nobody and is sent nobody's requests; the id
// becomes the principal's whose card the hub read first, and stays its. A connection that never
// gives its card is dropped after a time limit (a hub in this process, with a short one).
import { describe, expect, it } from 'vitest';
import { createA2AHandler } from '../../src/a2a/server/handler.js';
import { jiajiaCard } from '../../src/card/examples.js';
import { decodeDownFrame, encodeLinkFrame } from '../../src/hub/frames.js';
import { createHubHandler, hubUpgrades } from '../../src/hub/hub-handler.js';
import { MemoryHubStore } from '../../src/hub/hub-store.js';
import { Hub } from '../../src/hub/hub.js';
import { listen } from '../../src/net/node-http.js';
import { createAgent } from '../../src/runtime/agent.js';
import { MemoryTaskStore } from '../../src/store/task-store.js';
import { dialLink } from '../../src/net/websocket-dial.js';
import { SseParser } from '../../src/net/sse.js';
import { startAgent, startHub, until } from './hub-processes.js';

const ALICE = 'alice-token-3e8b1d7c52';
const BOB = 'bob-token-9c4f2a6e18';
const TOKENS = { HUB_ALICE: ALICE, HUB_BOB: BOB };
const as = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json', 'a2a-version': '1.0' });
const LINK = { maxMessageBytes: 1 << 20, maxBacklogBytes: 1 << 20 };

/** A connection under `id` that never answers: the types of the frames it was sent, and how to hang up. */
interface Squatter {
  seen: string[];
  hangUp(): void;
}

async function squatOverWebSocket(hubUrl: string, id: string, token: string): Promise<Squatter> {
  const stop = new AbortController();
  const dialled = await dialLink(`${hubUrl}/hub/v1/connect?agent=${id}`, { authorization: `Bearer ${token}` }, LINK, stop.signal);
  if (!('link' in dialled)) throw new Error(`the hub answered HTTP ${dialled.response.statusCode}`);
  const seen: string[] = [];
  dialled.link.messages((payload) => seen.push(decodeDownFrame(payload).type));
  return { seen, hangUp: () => dialled.link.drop('the squatter hung up') };
}

async function squatOverEventStream(hubUrl: string, id: string, token: string): Promise<Squatter> {
  const stop = new AbortController();
  const response = await fetch(`${hubUrl}/hub/v1/connect?agent=${id}`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal: stop.signal });
  if (response.status !== 200) throw new Error(`the hub answered HTTP ${response.status}`);
  const seen: string[] = [];
  const parser = new SseParser();
  void (async () => {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      for (const event of parser.push(Buffer.from(chunk).toString('utf8'))) seen.push((JSON.parse(event.data) as { type: string }).type);
    }
  })().catch(() => undefined);
  return { seen, hangUp: () => stop.abort() };
}

async function agentView(hubUrl: string, id: string, token: string): Promise<{ status: number; mine?: boolean }> {
  const response = await fetch(`${hubUrl}/hub/v1/agents/${id}`, { headers: as(token) });
  const body = (await response.json()) as { agent?: { mine: boolean } };
  return { status: response.status, ...(body.agent === undefined ? {} : { mine: body.agent.mine }) };
}

async function send(hubUrl: string, id: string, token: string, text: string): Promise<string> {
  const response = await fetch(`${hubUrl}/agents/${id}/message:send`, { method: 'POST', headers: as(token), body: JSON.stringify({ message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] } }) });
  const body = (await response.json()) as { task?: { artifacts?: { parts: { text?: string }[] }[] }; error?: { message: string } };
  return body.task?.artifacts?.[0]?.parts[0]?.text ?? `HTTP ${response.status}: ${body.error?.message ?? ''}`;
}

describe('an agent id dialled in without a card', () => {
  it.each([
    ['a WebSocket', squatOverWebSocket],
    ['an event stream', squatOverEventStream],
  ])('over %s, held open or dropped, keeps the id from nobody and is sent nothing', async (_how, squat) => {
    const hub = await startHub(['--store', 'memory', '--token-env', 'HUB_ALICE', '--token-env', 'HUB_BOB'], TOKENS);
    // Bob dials in as "target" and as "other", and never answers the hub's read of the card.
    const held = await squat(hub.url, 'target', BOB);
    const dropped = await squat(hub.url, 'other', BOB);
    await until(() => (held.seen.includes('request') && dropped.seen.includes('request') ? true : undefined), 10_000, 'the hub to ask for the cards');
    dropped.hangUp();
    // No agent "target" meanwhile: a send is not handed to Bob's silent connection.
    expect(await agentView(hub.url, 'target', ALICE)).toEqual({ status: 404 });
    expect(await send(hub.url, 'target', ALICE, 'echo early')).toMatch(/^HTTP 404/);

    // Alice's agents come with their cards: the ids are hers, though Bob's first connection is still open.
    await startAgent(hub.url, 'target', { extra: ['--port', 'none', '--hub-token-env', 'HUB_ALICE'], env: TOKENS });
    await startAgent(hub.url, 'other', { extra: ['--port', 'none', '--hub-token-env', 'HUB_ALICE'], env: TOKENS });
    for (const id of ['target', 'other']) {
      expect(await until(async () => ((await agentView(hub.url, id, ALICE)).mine === true ? true : undefined), 10_000, `${id} to be Alice's`)).toBe(true);
      expect(await agentView(hub.url, id, BOB)).toEqual({ status: 200, mine: false });
      expect(await send(hub.url, id, ALICE, `echo hello ${id}`)).toBe(`echo: hello ${id}`);
    }
    // Bob's connection was sent the card read alone, and now he is refused the id.
    expect(held.seen.filter((type) => type === 'request')).toHaveLength(1);
    await expect(squat(hub.url, 'target', BOB)).rejects.toThrow('HTTP 403');
    held.hangUp();
    expect(await send(hub.url, 'target', ALICE, 'echo still')).toBe('echo: still');
  }, 60_000);

  it('goes to the first of two principals whose card the hub reads, and the other is dropped saying why', async () => {
    const hub = await startHub(['--store', 'memory', '--token-env', 'HUB_ALICE', '--token-env', 'HUB_BOB'], TOKENS);
    // Both dial in before either gives its card; Bob answers first.
    const alice = await holdCard(hub.url, 'race', ALICE);
    const bob = await holdCard(hub.url, 'race', BOB);
    await until(() => (alice.asked() && bob.asked() ? true : undefined), 10_000, 'both to be asked for their cards');
    bob.answer();
    expect(await until(async () => (await agentView(hub.url, 'race', BOB)).mine, 10_000, 'race to be Bob\'s')).toBe(true);
    alice.answer();
    expect(await alice.closed).toBe('the other side closed the link (close code 1008: the agent id "race" is registered by another principal)');
    expect(await agentView(hub.url, 'race', BOB)).toEqual({ status: 200, mine: true });
    // Requests for "race" go to Bob's connection.
    const sent = fetch(`${hub.url}/agents/race/message:send`, { method: 'POST', headers: as(ALICE), body: JSON.stringify({ message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }) });
    await until(() => (bob.requests() === 2 ? true : undefined), 10_000, 'the send to reach Bob');
    bob.hangUp();
    expect((await sent).status).toBe(502);
  }, 60_000);
});

describe('a connection that never gives its card', () => {
  it('is dropped after the time limit, saying why, and leaves no agent', async () => {
    let url = '';
    const hub = new Hub({ store: new MemoryHubStore(), baseUrl: () => url, allowPrivate: true, checkMs: 0, graceMs: 0 });
    const handler = createHubHandler(hub, { cardReadMs: 300, auth: { bearerTokens: [{ principal: 'bob', secret: BOB }] } });
    const limits = { maxBodyBytes: 1 << 20, maxStreamBacklogBytes: 1 << 20, requestTimeout: 5_000 };
    const server = await listen(handler, { port: 0, ...limits, upgrades: hubUpgrades(handler, limits) });
    url = server.url;
    try {
      const silent = await holdCard(url, 'quiet', BOB);
      expect(await silent.closed).toBe('the other side closed the link (close code 1008: its card did not come through its connection within 0.3 s)');
      expect(await hub.registry.lookup('quiet')).toBeUndefined();
      expect(hub.relay.connectedCount()).toBe(0);
    } finally {
      hub.close();
      await server.close();
    }
  });
});

/** A connection under `id` that answers the hub's read of its card when told to, with a real card. */
async function holdCard(hubUrl: string, id: string, token: string): Promise<{ asked(): boolean; answer(): void; requests(): number; closed: Promise<string>; hangUp(): void }> {
  const agent = createAgent({ card: jiajiaCard(), store: new MemoryTaskStore(), onTask: () => 'done' });
  const card = await createA2AHandler({ agent, baseUrl: `${hubUrl}/agents/${id}` })({ method: 'GET', path: '/.well-known/agent-card.json', query: new URLSearchParams(), headers: {}, body: '' });
  const dialled = await dialLink(`${hubUrl}/hub/v1/connect?agent=${id}`, { authorization: `Bearer ${token}` }, LINK, new AbortController().signal);
  if (!('link' in dialled)) throw new Error(`the hub answered HTTP ${dialled.response.statusCode}`);
  const link = dialled.link;
  const asks: string[] = [];
  let requests = 0;
  link.messages((payload) => {
    const frame = decodeDownFrame(payload);
    if (frame.type !== 'request') return;
    requests += 1;
    if (frame.path === '/.well-known/agent-card.json') asks.push(frame.rid);
  });
  const closed = new Promise<string>((resolve) => link.onClose(resolve));
  return {
    asked: () => asks.length > 0,
    answer: () => link.send(encodeLinkFrame({ type: 'response', rid: asks[0] as string, status: 200, headers: { 'content-type': 'application/json' }, body: 'body' in card ? card.body : '' })),
    requests: () => requests,
    closed,
    hangUp: () => link.drop('hung up'),
  };
}
