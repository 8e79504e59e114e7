import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { acceptLink, CLOSE, dialLink, MAX_UNSENT_PONGS, RELAY_PROTOCOL, WebSocketLink, type LinkOptions } from './websocket.js';
import { drainedOrClosed } from '../../test/sockets.js';

const servers: Server[] = [];
/** Connections taken over by upgrades: a server's close does not end them. */
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A server on 127.0.0.1 that takes every upgrade as a link and gives it to `taken`. */
async function linkServer(taken: (link: WebSocketLink) => void, options: LinkOptions = { maxMessageBytes: 1 << 20, maxBacklogBytes: 1 << 20 }): Promise<string> {
  const server = createServer((_req, res) => res.end());
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    sockets.push(socket);
    const link = acceptLink({ method: 'GET', path: '/', query: new URLSearchParams(), headers: req.headers as Record<string, string>, body: '', upgrade: { socket, head } }, options);
    if (link instanceof WebSocketLink) taken(link);
    else socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function dial(url: string): Promise<WebSocketLink> {
  const dialled = await dialLink(url, {}, { maxMessageBytes: 1 << 20, maxBacklogBytes: 1 << 20 }, new AbortController().signal);
  if (!('link' in dialled)) throw new Error(`no upgrade: HTTP ${dialled.response.statusCode}`);
  return dialled.link;
}

const closed = (link: WebSocketLink): Promise<string> => new Promise((resolve) => link.onClose(resolve));

/** A raw client that has done the handshake, and what it has read so far. */
async function rawClient(url: string): Promise<{ socket: Socket; read: Buffer[] }> {
  const socket = connect(Number(new URL(url).port), '127.0.0.1');
  sockets.push(socket);
  const read: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => read.push(chunk));
  socket.on('error', () => undefined);
  socket.write(`GET / HTTP/1.1\r\nhost: x\r\nconnection: Upgrade\r\nupgrade: websocket\r\nsec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-protocol: ${RELAY_PROTOCOL}\r\n\r\n`);
  await new Promise<void>((resolve) =>
    socket.on('data', () => {
      if (Buffer.concat(read).includes('\r\n\r\n')) resolve();
    }),
  );
  return { socket, read };
}

/** A frame's head as a client sends it: first byte `first`, `length` bytes declared, a mask of zeros. */
function head(first: number, length: number): Buffer {
  if (length < 126) return Buffer.from([first, 0x80 | length, 0, 0, 0, 0]);
  const out = Buffer.alloc(14);
  out[0] = first;
  out[1] = 0x80 | 127;
  out.writeBigUInt64BE(BigInt(length), 2);
  return out;
}

/** The close code of the close frame a server (its frames unmasked) sent among `read`. */
function closeCode(read: Buffer[]): number | undefined {
  const all = Buffer.concat(read);
  const bytes = all.subarray(all.indexOf('\r\n\r\n') + 4);
  for (let at = 0; at + 1 < bytes.length; ) {
    const short = (bytes[at + 1] as number) & 0x7f;
    const extra = short === 126 ? 2 : short === 127 ? 8 : 0;
    if (((bytes[at] as number) & 0x0f) === 0x8) return bytes.readUInt16BE(at + 2 + extra);
    at += 2 + extra + (extra === 2 ? bytes.readUInt16BE(at + 2) : extra === 8 ? Number(bytes.readBigUInt64BE(at + 2)) : short);
  }
  return undefined;
}

const gone = (socket: Socket): Promise<void> => new Promise((resolve) => (socket.destroyed ? resolve() : socket.on('close', () => resolve())));

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
    expect(closeCode(huge.read)).toBe(CLOSE.tooBig);
    const fragments = await rawClient(url);
    fragments.socket.write(Buffer.concat([head(0x02, 40_000), Buffer.alloc(40_000), head(0x80, 40_000), Buffer.alloc(40_000)]));
    await gone(fragments.socket);
    expect(closeCode(fragments.read)).toBe(CLOSE.tooBig);
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
    const server = createServer();
    server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
      sockets.push(socket);
      const accept = createHash('sha1').update(`${req.headers['sec-websocket-key'] as string}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
      socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    await expect(dial(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)).rejects.toThrow(/^the hub answered the WebSocket handshake wrongly: Server sent no subprotocol$/);
  });

  it('cuts a close reason longer than a close frame holds between characters', async () => {
    const url = await linkServer((link) => link.close(CLOSE.refused, '字'.repeat(100)));
    const client = await dial(url);
    expect(await closed(client)).toBe(`the other side closed the link (1008: ${'字'.repeat(41)})`);
  });
});
