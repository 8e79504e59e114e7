// One WebSocket connection carrying binary messages both ways: the relay's link between an agent
// behind NAT and its hub. What is sent in one turn of the event loop goes out in one write; a
// peer that reads too slowly is dropped, as one that breaks the framing is, with the close code
// that says why. Pings are answered; the relay's own heartbeats measure the link.

import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { statusError } from '../a2a/server/http.js';
import { type HttpRequest, type HttpResponse } from '../net/http-types.js';
import { acceptKey, CLOSE, encodeFrame, FrameReader, newKey, OPCODE, validKey, WebSocketError } from './websocket.js';

/** The subprotocol both ends name: the relay's frames (frames.ts) in binary messages. */
export const RELAY_PROTOCOL = 'a2a-lite-relay.v1';

export interface LinkOptions {
  /** The largest message taken; a larger one closes the link with 1009. */
  maxMessageBytes: number;
  /** Bytes written and not yet sent beyond which the peer is dropped as too slow (one message alone never counts). */
  maxBacklogBytes: number;
}

export class WebSocketLink {
  private readonly reader: FrameReader;
  private readonly masked: boolean;
  /** Messages that came before anyone listened (those sent right after the handshake). */
  private held: Buffer[] | undefined = [];
  private onMessage: (payload: Buffer) => void = (payload) => this.held?.push(payload);
  private readonly closers: ((reason: string) => void)[] = [];
  private gathering = false;
  private closeSent = false;
  private ended = false;
  private why = 'the connection closed';

  constructor(
    private readonly socket: Socket,
    head: Buffer,
    role: 'server' | 'client',
    private readonly options: LinkOptions,
  ) {
    this.masked = role === 'client';
    this.reader = new FrameReader({ expectMasked: role === 'server', maxMessageBytes: options.maxMessageBytes });
    socket.setNoDelay(true);
    socket.setTimeout(0);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('end', () => socket.end());
    socket.on('error', (error) => (this.why = `the connection failed: ${error.message}`));
    socket.on('close', () => this.finish(this.why));
    // Bytes the other side sent right after the handshake: their messages are held for the listener.
    if (head.length > 0) this.receive(head);
  }

  get open(): boolean {
    return !this.ended && !this.closeSent;
  }

  /** Where each binary message goes, starting with those that came before. */
  messages(listener: (payload: Buffer) => void): void {
    const held = this.held ?? [];
    this.held = undefined;
    this.onMessage = listener;
    for (const payload of held) listener(payload);
  }

  /** Runs `closer` once the link is gone, with why. */
  onClose(closer: (reason: string) => void): void {
    if (this.ended) closer(this.why);
    else this.closers.push(closer);
  }

  /** Sends `payload` as one binary message, gathered with the rest of this turn's. */
  send(payload: Buffer): void {
    if (!this.open) return;
    if (this.socket.writableLength > this.options.maxBacklogBytes) {
      this.why = `the other side fell more than ${this.options.maxBacklogBytes} bytes behind`;
      this.socket.destroy();
      return;
    }
    this.write(encodeFrame(OPCODE.binary, payload, this.masked));
  }

  /** Drops the connection at once, without a close handshake (the other side is gone or silent). */
  drop(reason: string): void {
    this.why = reason;
    this.socket.destroy();
  }

  /** Closes the link with `code`, telling the other side why (§5.5.1). */
  close(code: number = CLOSE.normal, reason = ''): void {
    if (this.closeSent || this.ended) return;
    this.closeSent = true;
    if (reason !== '') this.why = reason;
    const text = Buffer.from(reason).subarray(0, 123);
    const payload = Buffer.allocUnsafe(2 + text.length);
    payload.writeUInt16BE(code, 0);
    text.copy(payload, 2);
    this.write(encodeFrame(OPCODE.close, payload, this.masked));
    this.socket.end();
    // A peer that never closes its side is not waited for.
    setTimeout(() => this.socket.destroy(), 2000).unref();
  }

  private write(parts: Buffer[]): void {
    if (!this.gathering) {
      this.gathering = true;
      this.socket.cork();
      setImmediate(() => {
        this.gathering = false;
        this.socket.uncork();
      });
    }
    for (const part of parts) this.socket.write(part);
  }

  private receive(chunk: Buffer): void {
    // Once a close is sent, nothing more is read: the other side's close, or its end, follows.
    if (this.ended || this.closeSent) return;
    try {
      for (const message of this.reader.push(chunk)) {
        if (message.opcode === OPCODE.binary || message.opcode === OPCODE.text) this.onMessage(message.payload);
        else if (message.opcode === OPCODE.ping) this.write(encodeFrame(OPCODE.pong, Buffer.from(message.payload), this.masked));
        else if (message.opcode === OPCODE.close) {
          const code = message.payload.length >= 2 ? message.payload.readUInt16BE(0) : CLOSE.normal;
          const said = message.payload.subarray(2).toString('utf8');
          this.close(code === CLOSE.normal || code === CLOSE.goingAway ? code : CLOSE.normal);
          this.why = `the other side closed the link (${code}${said === '' ? '' : `: ${said}`})`;
          return;
        }
        if (this.ended) return;
      }
    } catch (error) {
      if (!(error instanceof WebSocketError)) throw error;
      this.close(error.code, error.message);
      this.why = `the other side broke the WebSocket framing: ${error.message}`;
    }
  }

  private finish(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    for (const closer of this.closers.splice(0)) closer(reason);
  }
}

/** An HTTP request the server may take over as a WebSocket: its connection, and the bytes read past its head. */
export interface UpgradeRequest extends HttpRequest {
  upgrade?: { socket: Socket; head: Buffer };
}

/** The answer a handler gives once it took the connection of an upgrade: nothing more is written. */
export const TAKEN: HttpResponse = { status: 101, headers: {}, body: '' };

/**
 * Completes the server's side of the handshake for `request` (§4.2): the WebSocket link, or the
 * HTTP error that names what is wrong with the request.
 */
export function acceptLink(request: UpgradeRequest, options: LinkOptions): WebSocketLink | HttpResponse {
  const upgrade = request.upgrade;
  if (upgrade === undefined || !/\bwebsocket\b/i.test(request.headers.upgrade ?? '')) {
    return statusError(400, 'INVALID_ARGUMENT', 'this route is a WebSocket: send Upgrade: websocket');
  }
  if (request.method !== 'GET') return statusError(405, 'UNIMPLEMENTED', 'a WebSocket handshake is a GET', { allow: 'GET' });
  if (request.headers['sec-websocket-version'] !== '13') {
    return statusError(426, 'INVALID_ARGUMENT', 'only WebSocket version 13 is spoken here', { 'sec-websocket-version': '13' });
  }
  const key = request.headers['sec-websocket-key'];
  if (!validKey(key)) return statusError(400, 'INVALID_ARGUMENT', 'Sec-WebSocket-Key is not 16 bytes in base64');
  const offered = (request.headers['sec-websocket-protocol'] ?? '').split(',').map((name) => name.trim());
  if (!offered.includes(RELAY_PROTOCOL)) return statusError(400, 'INVALID_ARGUMENT', `this WebSocket speaks the subprotocol ${RELAY_PROTOCOL}; offer it in Sec-WebSocket-Protocol`);
  upgrade.socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${acceptKey(key)}\r\nSec-WebSocket-Protocol: ${RELAY_PROTOCOL}\r\n\r\n`,
  );
  return new WebSocketLink(upgrade.socket, upgrade.head, 'server', options);
}

/** How a dial ended: a link, or the HTTP answer of a server that did not upgrade. */
export type Dialled = { link: WebSocketLink } | { response: IncomingMessage };

/**
 * Dials `url` asking for a WebSocket with the relay's subprotocol, and also accepting an event
 * stream, so that a server (or a proxy in between) that does not upgrade still answers.
 */
export function dialLink(url: string, headers: Record<string, string>, options: LinkOptions, signal: AbortSignal): Promise<Dialled> {
  const key = newKey();
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, {
      signal,
      headers: { ...headers, accept: 'text/event-stream', connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': key, 'sec-websocket-protocol': RELAY_PROTOCOL },
    });
    req.on('upgrade', (res, socket: Socket, head) => {
      if (res.headers['sec-websocket-accept'] !== acceptKey(key) || res.headers['sec-websocket-protocol'] !== RELAY_PROTOCOL) {
        socket.destroy();
        reject(new Error('the hub answered the WebSocket handshake wrongly (Sec-WebSocket-Accept or subprotocol)'));
        return;
      }
      resolve({ link: new WebSocketLink(socket, head, 'client', options) });
    });
    req.on('response', (response) => resolve({ response }));
    req.on('error', reject);
    req.end();
  });
}
