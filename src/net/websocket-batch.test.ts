import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BATCH_BYTES, LENGTH_BYTES, packFrames, unpackFrames } from './link-batch.js';
import { BATCHED_RELAY_PROTOCOL, CLOSE, RELAY_PROTOCOL, type WebSocketLink } from './websocket.js';
import { clientMessage, closed, closeOf, closePeers, dial, linkServer, rawClient, serverFrames } from '../../test/ws-peers.js';

afterEach(closePeers);

const LIMITS = { maxMessageBytes: 1 << 20, maxBacklogBytes: 1 << 20 };

/** The message `frames` make as a batch. */
const batch = (...frames: Buffer[]): Buffer => packFrames(frames, frames.reduce((sum, frame) => sum + LENGTH_BYTES + frame.length, 0));

/** Waits (bounded) until `read` holds binary messages of `count` frames in all, and gives those messages' frames. */
async function messagesRead(read: Buffer[], unpack: boolean, count: number): Promise<Buffer[][]> {
  let messages: Buffer[][] = [];
  for (let wait = 0; wait < 1000; wait += 1) {
    messages = serverFrames(read).filter(({ opcode }) => opcode === 0x2).map(({ payload }) => (unpack ? unpackFrames(payload) : [payload]));
    if (messages.flat().length >= count) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return messages;
}

/** Waits (bounded) for the server's close frame among `read`, then leaves; gives its code and reason. */
async function closeRead(socket: Socket, read: Buffer[]): Promise<{ code: number; reason: string } | undefined> {
  for (let wait = 0; wait < 1000 && closeOf(read) === undefined && !socket.destroyed; wait += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  socket.destroy();
  return closeOf(read);
}

describe('the link batched (a2a-lite-relay.v2)', () => {
  it('is agreed on where both ends speak it, and v1 where either end speaks only that', async () => {
    const pairs: [Partial<{ protocols: string[]; maxMessageBytes: number }>, Partial<{ protocols: string[]; maxMessageBytes: number }>, string][] = [
      [{}, {}, BATCHED_RELAY_PROTOCOL],
      [{ protocols: [RELAY_PROTOCOL] }, {}, RELAY_PROTOCOL],
      [{}, { protocols: [RELAY_PROTOCOL] }, RELAY_PROTOCOL],
      [{ protocols: [RELAY_PROTOCOL, BATCHED_RELAY_PROTOCOL] }, {}, BATCHED_RELAY_PROTOCOL],
      // An end that takes smaller messages than a batch may be leaves v2 out.
      [{ maxMessageBytes: BATCH_BYTES - 1 }, {}, RELAY_PROTOCOL],
      [{}, { maxMessageBytes: BATCH_BYTES - 1 }, RELAY_PROTOCOL],
    ];
    for (const [dialler, server, agreed] of pairs) {
      let taken: WebSocketLink | undefined;
      const url = await linkServer((link) => {
        taken = link;
        link.messages((payload) => link.send(payload));
      }, { ...LIMITS, ...server });
      const client = await dial(url, dialler);
      const words = ['one', 'two', 'three'];
      const echoed = new Promise<string[]>((resolve) => {
        const got: string[] = [];
        client.messages((payload) => {
          got.push(payload.toString());
          if (got.length === words.length) resolve(got);
        });
      });
      for (const word of words) client.send(Buffer.from(word));
      expect(await echoed).toEqual(words);
      expect([client.protocol, taken?.protocol]).toEqual([agreed, agreed]);
      client.close();
    }
  });

  it('refuses protocols it does not know, naming them', async () => {
    await expect(dial('http://127.0.0.1:1', { protocols: ['a2a-lite-relay.v9'] })).rejects.toThrow('a relay link speaks a2a-lite-relay.v1 or a2a-lite-relay.v2, not "a2a-lite-relay.v9"');
    await expect(dial('http://127.0.0.1:1', { protocols: [BATCHED_RELAY_PROTOCOL], maxMessageBytes: 1000 })).rejects.toThrow(`a2a-lite-relay.v2 takes messages of ${BATCH_BYTES} bytes; this link takes 1000`);
  });

  it('sends the frames of one turn as one message, never a batch past BATCH_BYTES, a larger frame alone; to a v1 peer, one message each', async () => {
    const sent = [
      ...Array.from({ length: 40 }, (_, i) => Buffer.alloc(100, i)),
      Buffer.alloc(100_000, 0xaa),
      ...Array.from({ length: 20 }, (_, i) => Buffer.alloc(4000, 0x40 + i)),
    ];
    const url = await linkServer((link) => {
      for (const frame of sent) link.send(frame);
    });
    const batched = await rawClient(url, BATCHED_RELAY_PROTOCOL);
    const messages = await messagesRead(batched.read, true, sent.length);
    expect(messages.map((frames) => frames.length)).toEqual([40, 1, 16, 4]);
    for (const frames of messages) {
      if (frames.length > 1) expect(frames.reduce((sum, frame) => sum + LENGTH_BYTES + frame.length, 0)).toBeLessThanOrEqual(BATCH_BYTES);
    }
    expect(Buffer.concat(messages.flat()).equals(Buffer.concat(sent))).toBe(true);
    const single = await rawClient(url, RELAY_PROTOCOL);
    const each = await messagesRead(single.read, false, sent.length);
    expect(each).toHaveLength(sent.length);
    expect(Buffer.concat(each.flat()).equals(Buffer.concat(sent))).toBe(true);
  });

  it.each([
    ['an empty message', Buffer.alloc(0), 'a batch is empty: it holds one frame or more'],
    ['a length past the end', Buffer.concat([batch(Buffer.from('first')), Buffer.from([0, 0, 0, 9, 0x61])]), 'frame 1 of the batch says 9 bytes, past the end (1 left)'],
    ['bytes trailing the last frame', Buffer.concat([batch(Buffer.from('first')), Buffer.from([0, 0])]), "the batch has 2 bytes after frame 0, too few for a frame's length"],
    ['several frames past the batch limit', batch(Buffer.alloc(BATCH_BYTES), Buffer.from('x')), `a batch of ${BATCH_BYTES + 9} bytes holds one frame alone (several take at most ${BATCH_BYTES})`],
  ])('closes the link with 1002 at %s, naming it, and takes none of its frames', async (_name, message, reason) => {
    const taken: Buffer[] = [];
    let why: Promise<string> | undefined;
    const url = await linkServer((link) => {
      why = closed(link);
      link.messages((payload) => taken.push(payload));
    });
    const { socket, read } = await rawClient(url, BATCHED_RELAY_PROTOCOL);
    socket.write(clientMessage(message));
    expect(await closeRead(socket, read)).toEqual({ code: CLOSE.protocolError, reason });
    expect(await why).toBe(reason);
    expect(taken).toEqual([]);
  });

  it('takes no more of a batch once its listener closed the link at a frame', async () => {
    const taken: string[] = [];
    const url = await linkServer((link) =>
      link.messages((payload) => {
        taken.push(payload.toString());
        if (payload.toString() === 'bad') link.close(CLOSE.protocolError, 'a bad frame');
      }),
    );
    const { socket, read } = await rawClient(url, BATCHED_RELAY_PROTOCOL);
    socket.write(clientMessage(batch(Buffer.from('good'), Buffer.from('bad'), Buffer.from('after'))));
    expect(await closeRead(socket, read)).toEqual({ code: CLOSE.protocolError, reason: 'a bad frame' });
    expect(taken).toEqual(['good', 'bad']);
  });

  it.each([BATCHED_RELAY_PROTOCOL, RELAY_PROTOCOL])('counts the frames of a turn not yet sent as backlog, dropping a peer past the limit (%s)', async (protocol) => {
    let why: Promise<string> | undefined;
    let sent: (count: number) => void = () => undefined;
    const sentBeforeDrop = new Promise<number>((resolve) => (sent = resolve));
    const url = await linkServer(
      (link) => {
        why = closed(link);
        let count = 0;
        for (let i = 0; i < 10 && link.open; i += 1) {
          link.send(Buffer.alloc(400));
          if (link.open) count += 1;
        }
        sent(count);
      },
      { maxMessageBytes: 1 << 20, maxBacklogBytes: 1000 },
    );
    await rawClient(url, protocol);
    // Three frames (about 1,200 bytes with their framing) were behind when the fourth came.
    expect(await sentBeforeDrop).toBe(3);
    expect(await why).toBe('the other side fell more than 1000 bytes behind');
  });
});
