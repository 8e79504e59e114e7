// The relay's WebSocket link over real sockets on 127.0.0.1, against a hub in this process: an
// agent dials in over a WebSocket, or over an event stream where the hub does not upgrade (as
// behind a proxy that drops the Upgrade header); a WebSocket client written by others (Node's
// own, from undici) speaks to the hub; and hostile handshakes and frames each get the HTTP
// status or close code that names what was wrong, leaving the agents that are connected alone.
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import { connect as connectTcp, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createA2AHandler } from '../../src/a2a/server/handler.js';
import { jiajiaCard } from '../../src/card/examples.js';
import { connectToHub } from '../../src/hub/connector.js';
import { encodeLinkFrame, type DownFrame } from '../../src/hub/frames.js';
import { acceptLink, CLOSE, RELAY_PROTOCOL, WebSocketLink } from '../../src/net/websocket.js';
import { createAgent } from '../../src/runtime/agent.js';
import { MemoryTaskStore } from '../../src/store/task-store.js';
import { until } from './hub-processes.js';
import { closeCode, closeOpened, echoAgent, handshake, linkOf, open, OPCODE, raw, rawFrame, send, startHub, TOKEN } from './link-peers.js';
import { drainedOrClosed } from '../sockets.js';

afterEach(closeOpened);

describe('the relay link', () => {
  it('carries an agent\'s tasks over a WebSocket, and over an event stream where the hub does not upgrade', async () => {
    for (const upgrades of [true, false]) {
      const { url } = await startHub({ upgrades });
      const agent = echoAgent(url, 'echo');
      await agent.ready();
      expect(await until(() => linkOf(url, 'echo'), 10_000, 'the agent to be registered')).toBe(upgrades ? 'websocket' : 'event-stream');
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => send(`${url}/agents/echo/jsonrpc`, `hello ${i}`)));
      expect(answers).toEqual(Array.from({ length: 20 }, (_, i) => `echo: hello ${i}`));
    }
  });

  it('answers a plain request that also asks to upgrade (h2c), as if it had not', async () => {
    const { url } = await startHub();
    await echoAgent(url, 'echo').ready();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'SendMessage', params: { message: { messageId: 'h2c', role: 'ROLE_USER', parts: [{ text: 'plain' }] } } });
    const text = await raw(url, `POST /agents/echo/jsonrpc HTTP/1.1\r\nhost: x\r\nconnection: Upgrade, HTTP2-Settings\r\nupgrade: h2c\r\nhttp2-settings: AAMAAABkAAQAoAAAAAIAAAAA\r\nauthorization: Bearer ${TOKEN}\r\ncontent-type: application/json\r\na2a-version: 1.0\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(text).toContain('echo: plain');
  });

  it.each([
    ['no token', { authorization: '' }, 401, ''],
    ['another version', { 'sec-websocket-version': '8' }, 426, 'only WebSocket version 13'],
    ['a malformed key', { 'sec-websocket-key': 'short' }, 400, 'Sec-WebSocket-Key is not 16 bytes in base64'],
    ['no subprotocol', { 'sec-websocket-protocol': '' }, 400, `subprotocol ${RELAY_PROTOCOL}`],
  ])('refuses a handshake with %s, naming what is wrong', async (_name, headers, status, words) => {
    const { url } = await startHub();
    const text = await raw(url, handshake('x', headers));
    expect(text).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(text).toContain(words);
  });

  it('closes a link that breaks the framing or sends what is not a frame, with the code that says why, and keeps the others', async () => {
    const { url } = await startHub();
    const other = echoAgent(url, 'steady');
    await other.ready();
    const cases: [string, Buffer, number][] = [
      ['an unmasked frame', rawFrame(OPCODE.binary, Buffer.from('{"type":"pong","seq":1}\n'), false), CLOSE.protocolError],
      ['a message over the limit', rawFrame(OPCODE.binary, Buffer.alloc(65 * 1024 + 1)), CLOSE.tooBig],
      ['a message that is no frame', rawFrame(OPCODE.binary, Buffer.from('not json\n')), CLOSE.protocolError],
      ['a frame of an unknown type', rawFrame(OPCODE.binary, Buffer.from('{"type":"launch","rid":"1"}\n')), CLOSE.protocolError],
    ];
    for (const [name, bytes, code] of cases) {
      const text = await raw(url, handshake(`bad-${code}-${name.length}`), (socket) => socket.write(bytes));
      expect(text, name).toMatch(/^HTTP\/1\.1 101 /);
      expect(closeCode(text), name).toBe(code);
    }
    expect(await send(`${url}/agents/steady/jsonrpc`, 'still here')).toBe('echo: still here');
  });

  it('drops a peer that floods pings and never reads the pongs, long before its backlog grows with the flood', async () => {
    // The flooder never gives its card; the hub would drop it for that after cardReadMs, so
    // that limit is set out of reach: only the pings may get it dropped.
    const { url } = await startHub({ cardReadMs: 600_000 });
    await echoAgent(url, 'steady').ready();
    const socket = connectTcp(Number(new URL(url).port), '127.0.0.1');
    // Never read: every pong the hub writes stays unread, in the kernel's buffers and then the hub's.
    socket.pause();
    let closed = false;
    socket.on('error', () => undefined);
    socket.on('close', () => (closed = true));
    socket.write(handshake('flooder'));
    const burst = Buffer.concat(Array.from({ length: 512 }, () => rawFrame(OPCODE.ping, Buffer.alloc(125, 0x70))));
    // The kernel holds a few MiB of unread pongs on loopback; past that, the hub would hold
    // about as many bytes of pongs as it is sent pings.
    const budget = 48 * 1024 * 1024;
    let sent = 0;
    while (!closed && sent < budget) {
      if (!socket.write(burst)) await drainedOrClosed(socket);
      sent += burst.length;
    }
    socket.destroy();
    expect(closed, `the flooder was still connected after ${sent} bytes of pings`).toBe(true);
    expect(await send(`${url}/agents/steady/jsonrpc`, 'still here')).toBe('echo: still here');
  });

  it('dials again when the hub goes quiet without closing, over a WebSocket and over an event stream', async () => {
    // A hub that says hello, promising a ping every 100 ms, and then never sends anything again:
    // as a connection through NAT looks when its mapping has expired.
    for (const upgrade of [true, false]) {
      let dials = 0;
      const hello = { type: 'hello', session: '00000000-0000-4000-8000-000000000000', agentId: 'quiet', baseUrl: 'http://hub/agents/quiet', heartbeatMs: 100 };
      const server = createServer((_req, res) => {
        dials += 1;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify(hello)}\n\n`);
      });
      if (upgrade) {
        server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
          dials += 1;
          const link = acceptLink({ method: 'GET', path: '/hub/v1/connect', query: new URLSearchParams(), headers: req.headers as Record<string, string>, body: '', upgrade: { socket, head } }, { maxMessageBytes: 1 << 20, maxBacklogBytes: 1 << 20 });
          if (link instanceof WebSocketLink) link.send(encodeLinkFrame(hello as DownFrame));
        });
      }
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      open.push({ close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }) });
      const lines: string[] = [];
      const connection = connectToHub({ hubUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, agentId: 'quiet', handler: async () => ({ status: 200, headers: {}, body: '' }), log: (line) => lines.push(line), minBackoffMs: 20, maxBackoffMs: 50 });
      open.push(connection);
      await until(() => dials >= 3 || undefined, 15_000, 'the agent to dial again');
      // A hub that says no `missed` is heard for three heartbeats and a half; the line says that this side noticed.
      expect(lines.some((line) => /^lost the hub \S+: noticed here: no heartbeat from the hub for 0.4 s \(one every 0.1 s, 3 missed\), at /.test(line)), lines.join('\n')).toBe(true);
    }
  });

  it('speaks with a WebSocket client written by others (Node\'s own, from undici)', async () => {
    const { url, hub } = await startHub({ auth: false });
    const agent = createAgent({ card: jiajiaCard(), store: new MemoryTaskStore(), onTask: () => 'unused' });
    const card = await createA2AHandler({ agent, baseUrl: () => 'http://outsider.invalid' })({ method: 'GET', path: '/.well-known/agent-card.json', query: new URLSearchParams(), headers: {}, body: '' });
    // The client answers every request with its card; after two (the hub's read of the card,
    // then the test's), it reports what it read and closes.
    const script = `
      const ws = new WebSocket(${JSON.stringify(`${url.replace('http', 'ws')}/hub/v1/connect?agent=outsider`)}, [${JSON.stringify(RELAY_PROTOCOL)}]);
      ws.binaryType = 'arraybuffer';
      const seen = [];
      let answered = 0;
      ws.onmessage = (event) => {
        const text = Buffer.from(event.data).toString();
        const frame = JSON.parse(text.slice(0, text.indexOf('\\n')));
        seen.push(frame.type);
        if (frame.type !== 'request') return;
        ws.send(Buffer.from(JSON.stringify({ type: 'response', rid: frame.rid, status: 200, headers: { 'content-type': 'application/json' } }) + '\\n' + ${JSON.stringify('body' in card ? card.body : '')}));
        answered += 1;
        if (answered === 2) setImmediate(() => { console.log(JSON.stringify({ protocol: ws.protocol, seen })); ws.close(1000); });
      };
      ws.onerror = (event) => { console.log('error ' + event.message); process.exit(1); };
    `;
    const child = spawn(process.execPath, [...(typeof WebSocket === 'undefined' ? ['--experimental-websocket'] : []), '--no-warnings', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await until(() => hub.relay.isConnected('outsider'), 10_000, 'the outside client to connect');
    await until(() => hub.registry.lookup('outsider'), 10_000, 'the hub to read its card');
    const published = (await (await fetch(`${url}/agents/outsider/.well-known/agent-card.json`)).json()) as { name: string; supportedInterfaces: { url: string }[] };
    expect(published.name).toBe(jiajiaCard().agent.name);
    expect(published.supportedInterfaces[0]?.url).toContain(`${url}/agents/outsider`);
    await new Promise((resolve) => child.on('close', resolve));
    const report = JSON.parse(out.trim()) as { protocol: string; seen: string[] };
    expect(report.protocol).toBe(RELAY_PROTOCOL);
    expect(report.seen.slice(0, 2)).toEqual(['hello', 'request']);
    await until(() => !hub.relay.isConnected('outsider'), 10_000, 'the hub to see the client close');
  });
});
