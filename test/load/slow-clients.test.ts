// Slow and silent clients against `listen`, with raw sockets and short limits: each is closed
// after a bounded time and its connection freed, others are served meanwhile, and neither a
// long stream nor a slow handler is cut by the same limits.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2AHandler } from '../../src/a2a/server/handler.js';
import { jiajiaCard } from '../../src/card/examples.js';
import { createAgent } from '../../src/runtime/agent.js';
import { listen, type Listening } from '../../src/net/node-http.js';

const HEADERS_MS = 300;
const REQUEST_MS = 600;
const KEEP_ALIVE_MS = 300;
/** How late a close may come on a loaded machine and still count as bounded. */
const SLACK_MS = 10_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const agent = createAgent({
  card: jiajiaCard(),
  async onTask(task, ctx) {
    // "sleep N": a slow handler. "quiet N": a stream that says nothing for N ms, then ends.
    const [verb, arg] = task.text.split(' ');
    if (verb === 'quiet') await ctx.status('working');
    if (verb === 'sleep' || verb === 'quiet') await sleep(Number(arg));
    return `done: ${task.text}`;
  },
});
let server: Listening;

beforeAll(async () => {
  server = await listen(createA2AHandler({ agent, baseUrl: 'http://127.0.0.1' }), {
    headersTimeout: HEADERS_MS,
    requestTimeout: REQUEST_MS,
    keepAliveTimeout: KEEP_ALIVE_MS,
  });
});

afterAll(async () => {
  await agent.shutdown();
  await server.close();
});

const connections = () => new Promise<number>((resolve, reject) => server.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));

/** Polls until the server holds no connection or `ms` have passed; returns the last count. */
async function connectionsDropToZero(ms: number): Promise<number> {
  const deadline = Date.now() + ms;
  let count = await connections();
  while (count > 0 && Date.now() < deadline) {
    await sleep(20);
    count = await connections();
  }
  return count;
}

interface RawClient {
  socket: Socket;
  /** Everything the server sent. */
  received(): string;
  /** Resolves with the milliseconds from connecting to the server closing the socket. */
  closed: Promise<number>;
}

async function rawClient(): Promise<RawClient> {
  const url = new URL(server.url);
  const socket = connect(Number(url.port), url.hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const start = performance.now();
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  // A reset counts as a close too: what matters is that the server let go.
  socket.on('error', () => {});
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - start)));
  return { socket, received: () => text, closed };
}

/** Writes `bytes` one at a time, `everyMs` apart, until done or the socket closes. */
async function trickle(socket: Socket, bytes: string, everyMs: number): Promise<void> {
  for (const byte of bytes) {
    if (socket.destroyed || socket.closed) return;
    socket.write(byte);
    await sleep(everyMs);
  }
}

const rpc = (method: string, text: string) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] } } });

const head = (length: number) => `POST /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: ${length}\r\n\r\n`;

/** A client that behaves: a blocking SendMessage over a connection of its own. */
async function wellBehaved(text = 'hello'): Promise<string> {
  const response = await fetch(`${server.url}/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', connection: 'close' },
    body: rpc('SendMessage', text),
  });
  expect(response.status).toBe(200);
  return JSON.stringify(await response.json());
}

const body = rpc('SendMessage', 'hello');
const keepAliveGet = 'GET /.well-known/agent-card.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';

// [what the client does, what it writes at once, what it then trickles a byte every 20 ms, the limit that closes it, whether it gets 408]
const cases: [string, string, string, number, boolean][] = [
  ['connects and sends nothing', '', '', HEADERS_MS, true],
  ['trickles its request line', 'GET /', 'a'.repeat(1000), HEADERS_MS, true],
  ['trickles its headers', 'POST /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1\r\n', `X-Pad: ${'a'.repeat(1000)}\r\n`, HEADERS_MS, true],
  ['stops in the middle of its headers', 'POST /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty', '', HEADERS_MS, true],
  ['trickles its body', head(body.length * 10), body.repeat(10), REQUEST_MS, true],
  ['stops in the middle of its body', head(body.length) + body.slice(0, 20), '', REQUEST_MS, true],
  ['stays idle on a keep-alive connection after a response', keepAliveGet, '', KEEP_ALIVE_MS, false],
];

describe('a slow or silent client', () => {
  it.each(cases)('that %s is closed after a bounded time while others are served', async (_what, first, rest, limit, gets408) => {
    const client = await rawClient();
    if (first !== '') client.socket.write(first);
    void trickle(client.socket, rest, 20);
    // While it holds its connection, other clients are served.
    expect(await wellBehaved()).toContain('TASK_STATE_COMPLETED');
    const race = await Promise.race([client.closed, sleep(limit + SLACK_MS).then(() => 'still open')]);
    expect(race).not.toBe('still open');
    // Not before its limit: the server does not guess.
    expect(race as number).toBeGreaterThanOrEqual(limit - 20);
    if (gets408) expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
    else expect(client.received()).toMatch(/^HTTP\/1\.1 200 [\s\S]*"name"/);
    expect(await connectionsDropToZero(SLACK_MS)).toBe(0);
  });

  it('200 silent and 200 trickling clients at once are all closed, and their slots freed', async () => {
    let accepted = 0;
    const onConnection = (): void => void (accepted += 1);
    server.server.on('connection', onConnection);
    const silent = await Promise.all(Array.from({ length: 200 }, () => rawClient()));
    const trickling = await Promise.all(Array.from({ length: 200 }, () => rawClient()));
    for (const client of trickling) void trickle(client.socket, `POST /jsonrpc HTTP/1.1\r\nX-Pad: ${'a'.repeat(1000)}`, 20);
    expect(await wellBehaved()).toContain('TASK_STATE_COMPLETED');
    // The kernel completes a connection before the server accepts it: count what the server
    // accepted rather than what it holds at one moment, which the limits are already reducing.
    for (let tries = 0; tries < 500 && accepted < 400; tries += 1) await sleep(10);
    server.server.off('connection', onConnection);
    expect(accepted).toBeGreaterThanOrEqual(400);
    const closes = await Promise.race([Promise.all([...silent, ...trickling].map((client) => client.closed)), sleep(HEADERS_MS + SLACK_MS).then(() => [])]);
    expect(closes).toHaveLength(400);
    expect(await connectionsDropToZero(SLACK_MS)).toBe(0);
  });
});

describe('work that outlasts the limits', () => {
  const LONG_MS = 4 * REQUEST_MS;

  it('a stream that stays quiet longer than every limit is not cut', async () => {
    const response = await fetch(`${server.url}/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: rpc('SendStreamingMessage', `quiet ${LONG_MS}`),
    });
    const start = performance.now();
    const text = await response.text();
    expect(performance.now() - start).toBeGreaterThanOrEqual(LONG_MS - 50);
    expect(text).toContain(`done: quiet ${LONG_MS}`);
    expect(text).toContain('TASK_STATE_COMPLETED');
  });

  it('a blocking SendMessage whose handler takes longer than every limit is answered', async () => {
    const start = performance.now();
    const answer = await wellBehaved(`sleep ${LONG_MS}`);
    expect(performance.now() - start).toBeGreaterThanOrEqual(LONG_MS - 50);
    expect(answer).toContain('TASK_STATE_COMPLETED');
    expect(answer).toContain(`done: sleep ${LONG_MS}`);
  });

  it('a stream over a raw socket outlives the limits and the connection closes after it', async () => {
    const client = await rawClient();
    const streamBody = rpc('SendStreamingMessage', `quiet ${LONG_MS}`);
    client.socket.write(head(streamBody.length) + streamBody);
    await sleep(LONG_MS / 2);
    expect(client.socket.closed).toBe(false);
    expect(client.received()).toContain('TASK_STATE_WORKING');
    // The stream ends with the task; the idle connection then goes after its keep-alive limit.
    const race = await Promise.race([client.closed, sleep(LONG_MS + SLACK_MS).then(() => 'still open')]);
    expect(race).not.toBe('still open');
    expect(race as number).toBeGreaterThanOrEqual(LONG_MS);
    expect(client.received()).toContain('TASK_STATE_COMPLETED');
    expect(await connectionsDropToZero(SLACK_MS)).toBe(0);
  });
});
