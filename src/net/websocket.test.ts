import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CLOSE, MAX_UNSENT_PONGS, type WebSocketLink } from './websocket.js';
import { drainedOrClosed } from '../../test/sockets.js';
import { closed, closeOf, closePeers, dial, gone, handServer, head, linkServer, rawClient } from '../../test/ws-peers.js';

afterEach(closePeers);

describe('the WebSocket link', () => {
  it('carries messages both ways, whole and in order, those sent right after the handshake too', async () => {
    const url = await linkServer((link) => {
      // Sent before the client listens: held for it.
      for (const word of ['one', 'two', 'three']) link.send(Buffer.from(word));
      link.messages((payload) => link.send(payload));
    });
    const client = await dial(url);
    const got: Buffer[] = [];
    const sizes = [0, 1, 125, 126, 65_535, 65_536, 1 << 19];
    const all = new Promise<void>((resolve) =>
      client.messages((payload) => {
        got.push(payload);
        if (got.length === 3 + sizes.length) resolve();
      }),
    );
    const sent = sizes.map((size, i) => Buffer.alloc(size, i + 1));
    for (const payload of sent) client.send(Buffer.from(payload));
    await all;
    expect(got.slice(0, 3).map(String)).toEqual(['one', 'two', 'three']);
    expect(got.slice(3)).toEqual(sent);
    client.close(CLOSE.goingAway);
  });

  it('refuses a message over the limit from its head, before its bytes come, and counts fragments together', async () => {
    const url = await linkServer(() => undefined, { maxMessageBytes: 65_536, maxBacklogBytes: 1 << 20 });
    const huge = await rawClient(url);
    huge.socket.write(head(0x82, 2 ** 40));
    await gone(huge.socket);
    expect(closeOf(huge.read)?.code).toBe(CLOSE.tooBig);
    const fragments = await rawClient(url);
    fragments.socket.write(Buffer.concat([head(0x02, 40_000), Buffer.alloc(40_000), head(0x80, 40_000), Buffer.alloc(40_000)]));
    await gone(fragments.socket);
    expect(closeOf(fragments.read)?.code).toBe(CLOSE.tooBig);
  });

  it('answers the pings of a peer that reads its pongs, however many', async () => {
    let server: WebSocketLink | undefined;
    const url = await linkServer((link) => (server = link));
    const { socket, read } = await rawClient(url);
    const before = Buffer.concat(read).length;
    // Bursts of half the limit, each read before the next is sent: ten times the limit in all.
    const burst = Buffer.concat(Array.from({ length: MAX_UNSENT_PONGS / 2 }, () => Buffer.concat([head(0x89, 4), Buffer.from('ping')])));
    const pongBytes = 2 + 4;
    const rounds = 20;
    for (let round = 1; round <= rounds; round += 1) {
      socket.write(burst);
      const expected = before + (round * MAX_UNSENT_PONGS * pongBytes) / 2;
      for (let wait = 0; wait < 2000 && Buffer.concat(read).length < expected; wait += 1) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(Buffer.concat(read).length - before).toBe((rounds * MAX_UNSENT_PONGS * pongBytes) / 2);
    expect(server?.open).toBe(true);
    socket.destroy();
  });

  it('drops a peer whose pongs pile up unread, saying why', async () => {
    let reason: Promise<string> | undefined;
    const url = await linkServer((link) => (reason = closed(link)));
    const { socket } = await rawClient(url);
    socket.pause();
    const burst = Buffer.concat(Array.from({ length: 256 }, () => Buffer.concat([head(0x89, 125), Buffer.alloc(125)])));
    // Bounded: the kernel holds a few MiB unread on loopback, and the link no more than its limits.
    let sent = 0;
    for (; !socket.destroyed && sent < 24 * 1024 * 1024; sent += burst.length) {
      if (!socket.write(burst)) await drainedOrClosed(socket);
    }
    expect(socket.destroyed, `the peer was still connected after ${sent} bytes of pings`).toBe(true);
    expect(await reason).toMatch(/^the other side sent pings and did not read the pongs/);
  });

  it('refuses a server that upgrades without the relay\'s subprotocol, saying so', async () => {
    const url = await handServer((req: IncomingMessage, socket: Socket) => {
      const accept = createHash('sha1').update(`${req.headers['sec-websocket-key'] as string}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
      socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    });
    await expect(dial(url)).rejects.toThrow(/^the hub answered the WebSocket handshake wrongly: Server sent no subprotocol$/);
  });

  it('cuts a close reason longer than a close frame holds between characters', async () => {
    const url = await linkServer((link) => link.close(CLOSE.refused, '字'.repeat(100)));
    const client = await dial(url);
    expect(await closed(client)).toBe(`the other side closed the link (close code 1008: ${'字'.repeat(41)})`);
  });
});
