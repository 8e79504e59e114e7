// The relay link batched (a2a-lite-relay.v2) against a hub in this process, and the pairings
// with an older end: an agent of this build and a hub that speaks only v1, a hub of this build
// and an agent that speaks only v1, each relaying many requests at once; and batches a hostile
// agent sends, each closed with 1002 and its reason while the other agents are served.
import { afterEach, describe, expect, it } from 'vitest';
import { createA2AHandler } from '../../src/a2a/server/handler.js';
import { jiajiaCard } from '../../src/card/examples.js';
import { decodeDownFrame, encodeLinkFrame } from '../../src/hub/frames.js';
import { LENGTH_BYTES, packFrames } from '../../src/net/link-batch.js';
import { BATCHED_RELAY_PROTOCOL, CLOSE, RELAY_PROTOCOL, type WebSocketLink } from '../../src/net/websocket.js';
import { dialLink } from '../../src/net/websocket-dial.js';
import { createAgent } from '../../src/runtime/agent.js';
import { MemoryTaskStore } from '../../src/store/task-store.js';
import { until } from './hub-processes.js';
import { closeFrame, closeOpened, echoAgent, handshake, open, OPCODE, raw, rawFrame, send, startHub, TOKEN } from './link-peers.js';

afterEach(closeOpened);

const batch = (...frames: Buffer[]): Buffer => packFrames(frames, frames.reduce((sum, frame) => sum + LENGTH_BYTES + frame.length, 0));

/** Sends `count` tasks at once to `id` through the hub at `url`; their answers, in order. */
const many = (url: string, id: string, count: number): Promise<string[]> => Promise.all(Array.from({ length: count }, (_, i) => send(`${url}/agents/${id}/jsonrpc`, `hello ${i}`)));
const echoes = (count: number): string[] => Array.from({ length: count }, (_, i) => `echo: hello ${i}`);

/**
 * An agent as one built before v2 would be: it offers only a2a-lite-relay.v1, reads each message
 * as one frame and answers each request with one message, through an echo agent's own handler.
 */
async function olderAgent(url: string, id: string): Promise<WebSocketLink> {
  const agent = createAgent({ card: jiajiaCard(), store: new MemoryTaskStore(), onTask: (task) => `echo: ${task.text}` });
  let base = '';
  const handler = createA2AHandler({ agent, baseUrl: () => base });
  const dialled = await dialLink(`${url}/hub/v1/connect?agent=${id}`, { authorization: `Bearer ${TOKEN}` }, { maxMessageBytes: 1 << 20, maxBacklogBytes: 1 << 22, protocols: [RELAY_PROTOCOL] }, new AbortController().signal);
  if (!('link' in dialled)) throw new Error(`the hub did not upgrade: HTTP ${dialled.response.statusCode}`);
  const link = dialled.link;
  open.push({ close: () => link.close() });
  link.messages((payload) => {
    const frame = decodeDownFrame(payload);
    if (frame.type === 'hello') base = frame.baseUrl;
    else if (frame.type === 'ping') link.send(encodeLinkFrame({ type: 'pong', seq: frame.seq }));
    else if (frame.type === 'request') {
      void Promise.resolve(handler({ method: frame.method, path: frame.path, query: new URLSearchParams(frame.query), headers: frame.headers, body: frame.body })).then((response) => {
        if ('body' in response) link.send(encodeLinkFrame({ type: 'response', rid: frame.rid, status: response.status, headers: response.headers, body: response.body }));
      });
    }
  });
  return link;
}

describe('the relay link batched', () => {
  it('carries many requests at once between an agent and a hub that both speak v2', async () => {
    const { url } = await startHub();
    await echoAgent(url, 'echo').ready();
    const text = await raw(url, handshake('probe', { 'sec-websocket-protocol': `${BATCHED_RELAY_PROTOCOL}, ${RELAY_PROTOCOL}` }), (socket) => socket.end(), 2_000);
    expect(text).toMatch(new RegExp(`\\r\\nSec-WebSocket-Protocol: ${BATCHED_RELAY_PROTOCOL.replace(/\./g, '\\.')}\\r\\n`, 'i'));
    expect(await many(url, 'echo', 64)).toEqual(echoes(64));
  });

  it('keeps an agent of this build working with a hub that speaks only v1 (an older hub)', async () => {
    const { url } = await startHub({ protocols: [RELAY_PROTOCOL] });
    const agent = echoAgent(url, 'echo');
    await until(() => agent.connected || undefined, 10_000, 'the agent to connect to the older hub');
    await until(async () => (await send(`${url}/agents/echo/jsonrpc`, 'first')) === 'echo: first' || undefined, 10_000, 'the hub to read the card');
    expect(await many(url, 'echo', 64)).toEqual(echoes(64));
    const refused = await raw(url, handshake('probe', { 'sec-websocket-protocol': BATCHED_RELAY_PROTOCOL }));
    expect(refused).toMatch(/^HTTP\/1\.1 400 /);
    expect(refused).toContain(`subprotocol ${RELAY_PROTOCOL}; offer it`);
  });

  it('keeps an agent that speaks only v1 (an older agent) working with a hub of this build, one frame a message', async () => {
    const { url, hub } = await startHub();
    const link = await olderAgent(url, 'older');
    expect(link.protocol).toBe(RELAY_PROTOCOL);
    await until(() => hub.registry.lookup('older'), 10_000, 'the hub to read the older agent\'s card');
    expect(await many(url, 'older', 64)).toEqual(echoes(64));
  });

  it.each([
    ['a length past the end', batch(Buffer.from('{"type":"pong","seq":1}\n')).subarray(0, 10), 'frame 0 of the batch says 24 bytes, past the end (6 left)'],
    ['bytes trailing the last frame', Buffer.concat([batch(Buffer.from('{"type":"pong","seq":1}\n')), Buffer.from([0])]), "the batch has 1 bytes after frame 0, too few for a frame's length"],
    ['an empty message', Buffer.alloc(0), 'a batch is empty: it holds one frame or more'],
    ['a frame of an unknown type after a good one', batch(Buffer.from('{"type":"pong","seq":1}\n'), Buffer.from('{"type":"launch","rid":"1"}\n')), 'frame 0: "type" is response, head, chunk, end or pong'],
  ])('closes the link of an agent that sends %s with 1002 and why, and keeps the others', async (_name, message, reason) => {
    const { url } = await startHub();
    await echoAgent(url, 'steady').ready();
    const text = await raw(url, handshake('hostile', { 'sec-websocket-protocol': BATCHED_RELAY_PROTOCOL }), (socket) => socket.write(rawFrame(OPCODE.binary, message)));
    expect(text).toMatch(/^HTTP\/1\.1 101 /);
    expect(closeFrame(text)).toEqual({ code: CLOSE.protocolError, reason });
    expect(await send(`${url}/agents/steady/jsonrpc`, 'still here')).toBe('echo: still here');
  });
});
