// A hub in this process with agents dialled in over its relay link, and raw clients that write
// what no WebSocket library would, for the tests of the link (ws-link.test.ts, ws-batch.test.ts).
import { connect as connectTcp, type Socket } from 'node:net';
import { expect } from 'vitest';
import { createA2AHandler } from '../../src/a2a/server/handler.js';
import { jiajiaCard } from '../../src/card/examples.js';
import { connectToHub, type HubConnection } from '../../src/hub/connector.js';
import { createHubHandler, hubUpgrades } from '../../src/hub/hub-handler.js';
import { MemoryHubStore } from '../../src/hub/hub-store.js';
import { Hub } from '../../src/hub/hub.js';
import { RELAY_PROTOCOL } from '../../src/net/websocket.js';
import { createAgent } from '../../src/runtime/agent.js';
import { listen, type Listening } from '../../src/net/node-http.js';
import { MemoryTaskStore } from '../../src/store/task-store.js';

/** What a test opened, closed in reverse order by `closeOpened` (for `afterEach`). */
export const open: { close(): unknown }[] = [];

export async function closeOpened(): Promise<void> {
  for (const thing of open.splice(0).reverse()) await thing.close();
}

export const TOKEN = 'ws-link-secret';
const limits = { maxBodyBytes: 1 << 20, maxStreamBacklogBytes: 1 << 22, requestTimeout: 5_000 };

/**
 * A hub in this process; `upgrades: false` serves it as a proxy that drops Upgrade would, and
 * `protocols` are the link's subprotocols (an older hub speaks only a2a-lite-relay.v1).
 */
export async function startHub(options: { upgrades?: boolean; auth?: boolean; cardReadMs?: number; protocols?: string[] } = {}): Promise<{ url: string; hub: Hub }> {
  let url = '';
  const hub = new Hub({ store: new MemoryHubStore(), baseUrl: () => url, allowPrivate: true, checkMs: 0, graceMs: 0 });
  const handler = createHubHandler(hub, {
    ...(options.auth === false ? {} : { auth: { bearerTokens: [{ principal: 'alice', secret: TOKEN }] } }),
    link: { maxMessageBytes: 64 * 1024, maxBacklogBytes: 1 << 22, ...(options.protocols === undefined ? {} : { protocols: options.protocols }) },
    ...(options.cardReadMs === undefined ? {} : { cardReadMs: options.cardReadMs }),
    onError: (error) => void expect.fail(`the hub failed on its own: ${String(error)}`),
  });
  const server: Listening = await listen(handler, { port: 0, ...limits, ...(options.upgrades === false ? {} : { upgrades: hubUpgrades(handler, limits) }) });
  url = server.url;
  open.push(server, hub);
  return { url, hub };
}

/** An echo agent in this process, dialled out to `hubUrl` as `id`. */
export function echoAgent(hubUrl: string, id: string): HubConnection {
  const agent = createAgent({ card: jiajiaCard(), store: new MemoryTaskStore(), onTask: (task) => `echo: ${task.text}` });
  let base = '';
  const connection = connectToHub({ hubUrl, agentId: id, token: TOKEN, handler: createA2AHandler({ agent, baseUrl: () => base }), onBaseUrl: (url) => (base = url), minBackoffMs: 20, maxBackoffMs: 200 });
  open.push(connection);
  return connection;
}

export async function send(url: string, text: string): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] } } }),
  });
  const body = (await response.json()) as { result?: { task?: { artifacts?: { parts: { text: string }[] }[] } } };
  return body.result?.task?.artifacts?.[0]?.parts[0]?.text ?? JSON.stringify(body);
}

export const linkOf = async (url: string, id: string): Promise<unknown> => {
  const response = await fetch(`${url}/hub/v1/agents/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  return ((await response.json()) as { agent?: { link?: unknown } }).agent?.link;
};

/** A raw TCP client: writes `request`, then gives everything it reads until the hub closes or `ms` pass. */
export async function raw(url: string, request: string | Buffer, after?: (socket: Socket) => void, ms = 10_000): Promise<string> {
  const { port } = new URL(url);
  const socket = connectTcp(Number(port), '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    if (after !== undefined && Buffer.concat(chunks).includes('\r\n\r\n')) {
      const go = after;
      after = undefined;
      go(socket);
    }
  });
  socket.write(request);
  await new Promise<void>((resolve) => {
    socket.on('close', () => resolve());
    setTimeout(() => {
      socket.destroy();
      resolve();
    }, ms).unref();
  });
  return Buffer.concat(chunks).toString('latin1');
}

export const handshake = (agent: string, headers: Record<string, string> = {}): string => {
  const all: Record<string, string> = { host: '127.0.0.1', connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-protocol': RELAY_PROTOCOL, authorization: `Bearer ${TOKEN}`, ...headers };
  return `GET /hub/v1/connect?agent=${agent} HTTP/1.1\r\n${Object.entries(all).filter(([, value]) => value !== '').map(([name, value]) => `${name}: ${value}`).join('\r\n')}\r\n\r\n`;
};

export const OPCODE = { binary: 0x2, close: 0x8, ping: 0x9 } as const;

/**
 * One whole frame as raw bytes, to send what no WebSocket library would: `masked` with a mask of
 * zeros (which leaves the payload as it is), as a client must, or unmasked, as it must not.
 */
export function rawFrame(opcode: number, payload: Buffer, masked = true): Buffer {
  const length = payload.length;
  const extra = length < 126 ? 0 : length < 0x10000 ? 2 : 8;
  const head = Buffer.alloc(2 + extra + (masked ? 4 : 0));
  head[0] = 0x80 | opcode;
  head[1] = (masked ? 0x80 : 0) | (extra === 0 ? length : extra === 2 ? 126 : 127);
  if (extra === 2) head.writeUInt16BE(length, 2);
  else if (extra === 8) head.writeBigUInt64BE(BigInt(length), 2);
  return Buffer.concat([head, payload]);
}

/** The code and reason of the first close frame the hub sent after its 101 (its frames are unmasked). */
export function closeFrame(text: string): { code: number; reason: string } | undefined {
  const bytes = Buffer.from(text.slice(text.indexOf('\r\n\r\n') + 4), 'latin1');
  for (let at = 0; at + 1 < bytes.length; ) {
    const opcode = (bytes[at] as number) & 0x0f;
    const short = (bytes[at + 1] as number) & 0x7f;
    const extra = short === 126 ? 2 : short === 127 ? 8 : 0;
    const length = extra === 2 ? bytes.readUInt16BE(at + 2) : extra === 8 ? Number(bytes.readBigUInt64BE(at + 2)) : short;
    if (opcode === OPCODE.close) return { code: bytes.readUInt16BE(at + 2 + extra), reason: bytes.subarray(at + 4 + extra, at + 2 + extra + length).toString() };
    at += 2 + extra + length;
  }
  return undefined;
}

/** The close code in the first close frame the hub sent after its 101. */
export const closeCode = (text: string): number | undefined => closeFrame(text)?.code;
