// The two ends of a WebSocket link on 127.0.0.1 for tests of src/net/websocket.ts: a server that
// takes every upgrade as a link, our own dialler, and a raw client that writes frames by hand and
// reads what the server writes byte for byte.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { acceptLink, RELAY_PROTOCOL, WebSocketLink, type LinkOptions } from '../src/net/websocket.js';
import { dialLink } from '../src/net/websocket-dial.js';

const servers: Server[] = [];
/** Connections taken over by upgrades: a server's close does not end them. */
const sockets: Socket[] = [];

/** Closes every server and connection the helpers below opened (for `afterEach`). */
export async function closePeers(): Promise<void> {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** A server on 127.0.0.1 that takes every upgrade as a link and gives it to `taken`. */
export async function linkServer(taken: (link: WebSocketLink) => void, options: LinkOptions = { maxMessageBytes: 1 << 20, maxBacklogBytes: 1 << 20 }): Promise<string> {
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

/** A server that upgrades by hand with `respond`, for answers no `ws` server would give. */
export async function handServer(respond: (req: IncomingMessage, socket: Socket) => void): Promise<string> {
  const server = createServer();
  server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
    sockets.push(socket);
    respond(req, socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function dial(url: string, options: Partial<LinkOptions> = {}): Promise<WebSocketLink> {
  const dialled = await dialLink(url, {}, { maxMessageBytes: 1 << 20, maxBacklogBytes: 1 << 20, ...options }, new AbortController().signal);
  if (!('link' in dialled)) throw new Error(`no upgrade: HTTP ${dialled.response.statusCode}`);
  return dialled.link;
}

export const closed = (link: WebSocketLink): Promise<string> => new Promise((resolve) => link.onClose(resolve));

export const gone = (socket: Socket): Promise<void> => new Promise((resolve) => (socket.destroyed ? resolve() : socket.on('close', () => resolve())));

/** A raw client that has done the handshake offering `protocol`, and what it has read so far (the 101 included). */
export async function rawClient(url: string, protocol = RELAY_PROTOCOL): Promise<{ socket: Socket; read: Buffer[] }> {
  const socket = connect(Number(new URL(url).port), '127.0.0.1');
  sockets.push(socket);
  const read: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => read.push(chunk));
  socket.on('error', () => undefined);
  socket.write(`GET / HTTP/1.1\r\nhost: x\r\nconnection: Upgrade\r\nupgrade: websocket\r\nsec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-protocol: ${protocol}\r\n\r\n`);
  await new Promise<void>((resolve) =>
    socket.on('data', () => {
      if (Buffer.concat(read).includes('\r\n\r\n')) resolve();
    }),
  );
  return { socket, read };
}

/** A frame's head as a client sends it: first byte `first`, `length` bytes declared, a mask of zeros. */
export function head(first: number, length: number): Buffer {
  if (length < 126) return Buffer.from([first, 0x80 | length, 0, 0, 0, 0]);
  const out = Buffer.alloc(14);
  out[0] = first;
  out[1] = 0x80 | 127;
  out.writeBigUInt64BE(BigInt(length), 2);
  return out;
}

/** A whole binary message as a client sends it (masked with zeros, which leaves the bytes as they are). */
export function clientMessage(payload: Buffer): Buffer {
  const length = payload.length;
  const extra = length < 126 ? 0 : length < 0x10000 ? 2 : 8;
  const out = Buffer.alloc(2 + extra + 4);
  out[0] = 0x82;
  out[1] = 0x80 | (extra === 0 ? length : extra === 2 ? 126 : 127);
  if (extra === 2) out.writeUInt16BE(length, 2);
  else if (extra === 8) out.writeBigUInt64BE(BigInt(length), 2);
  return Buffer.concat([out, payload]);
}

/** The frames a server (its frames unmasked) sent among `read`, after its 101; a frame cut short is left out. */
export function serverFrames(read: Buffer[]): { opcode: number; payload: Buffer }[] {
  const all = Buffer.concat(read);
  const bytes = all.subarray(all.indexOf('\r\n\r\n') + 4);
  const frames: { opcode: number; payload: Buffer }[] = [];
  for (let at = 0; at + 1 < bytes.length; ) {
    const short = (bytes[at + 1] as number) & 0x7f;
    const extra = short === 126 ? 2 : short === 127 ? 8 : 0;
    if (at + 2 + extra > bytes.length) break;
    const length = extra === 2 ? bytes.readUInt16BE(at + 2) : extra === 8 ? Number(bytes.readBigUInt64BE(at + 2)) : short;
    const start = at + 2 + extra;
    if (start + length > bytes.length) break;
    frames.push({ opcode: (bytes[at] as number) & 0x0f, payload: bytes.subarray(start, start + length) });
    at = start + length;
  }
  return frames;
}

/** The code and reason of the close frame a server sent among `read`. */
export function closeOf(read: Buffer[]): { code: number; reason: string } | undefined {
  const frame = serverFrames(read).find(({ opcode }) => opcode === 0x8);
  return frame === undefined ? undefined : { code: frame.payload.readUInt16BE(0), reason: frame.payload.subarray(2).toString() };
}
