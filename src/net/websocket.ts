// One WebSocket connection carrying binary messages both ways: the relay's link between an agent
// behind NAT and its hub. The framing is the `ws` library's; the handshake's rules, the limits
// and the answers to pings are ours. What is sent in one turn of the event loop goes out in one
// write; a peer that reads too slowly is dropped, as one that breaks the framing is, with the
// close code that says why. The relay's own heartbeats (frames.ts) measure the link.

import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import WebSocket, { WebSocketServer, type ClientOptions, type ServerOptions } from 'ws';
import { statusError, type HttpRequest, type HttpResponse } from './http-types.js';

/** The subprotocol both ends name: the relay's frames (frames.ts) in binary messages. */
export const RELAY_PROTOCOL = 'a2a-lite-relay.v1';

/** Close codes used here (RFC 6455 §7.4.1). */
export const CLOSE = { normal: 1000, goingAway: 1001, protocolError: 1002, refused: 1008, tooBig: 1009 } as const;

/**
 * Pongs written and not yet taken by the kernel beyond which a peer is dropped: one that sends
 * pings and never reads their answers would otherwise make us hold every pong.
 */
export const MAX_UNSENT_PONGS = 64;

/** How long a close handshake may take before the connection is dropped. */
const CLOSE_TIMEOUT_MS = 2000;

export interface LinkOptions {
  /** The largest message taken; a larger one closes the link with 1009. */
  maxMessageBytes: number;
  /** Bytes written and not yet sent beyond which the peer is dropped as too slow (one message alone never counts). */
  maxBacklogBytes: number;
}

/** What both ends give `ws`: no compression, our own pongs, our own close timeout. */
const settings = (options: LinkOptions) => ({ maxPayload: options.maxMessageBytes, perMessageDeflate: false, autoPong: false, closeTimeout: CLOSE_TIMEOUT_MS });

export class WebSocketLink {
  /** Messages that came before anyone listened (those sent right after the handshake). */
  private held: Buffer[] | undefined = [];
  private onMessage: (payload: Buffer) => void = (payload) => this.held?.push(payload);
  private readonly closers: ((reason: string) => void)[] = [];
  private gathering = false;
  private closeSent = false;
  private ended = false;
  private unsentPongs = 0;
  private why: string | undefined;

  /** `socket`: the connection under `ws`, corked for a turn of the event loop to gather writes. */
  constructor(
    private readonly ws: WebSocket,
    private readonly socket: Socket,
    private readonly options: LinkOptions,
  ) {
    // Once a close is sent, nothing more is taken: the other side's close, or its end, follows.
    ws.on('message', (data) => {
      if (!this.closeSent) this.onMessage(data as Buffer);
    });
    ws.on('ping', (data) => this.answer(data));
    ws.on('error', (error) => (this.why ??= `the other side broke the WebSocket framing: ${error.message}`));
    socket.on('error', (error) => (this.why ??= `the connection failed: ${error.message}`));
    // 1006: no close frame came; 1005: one came without a code.
    ws.on('close', (code, said) => {
      const peer = this.closeSent || code === 1006 ? undefined : `the other side closed the link${code === 1005 ? '' : ` (${code}${said.length === 0 ? '' : `: ${said.toString()}`})`}`;
      this.finish(this.why ?? peer ?? 'the connection closed');
    });
  }

  get open(): boolean {
    return !this.ended && !this.closeSent && this.ws.readyState === WebSocket.OPEN;
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
    if (this.ended) closer(this.why ?? 'the connection closed');
    else this.closers.push(closer);
  }

  /** Sends `payload` as one binary message, gathered with the rest of this turn's. */
  send(payload: Buffer): void {
    if (!this.open) return;
    if (this.ws.bufferedAmount > this.options.maxBacklogBytes) {
      this.drop(`the other side fell more than ${this.options.maxBacklogBytes} bytes behind`);
      return;
    }
    this.gather();
    this.ws.send(payload);
  }

  /** Drops the connection at once, without a close handshake (the other side is gone or silent). */
  drop(reason: string): void {
    this.why ??= reason;
    this.ws.terminate();
  }

  /** Closes the link with `code`, telling the other side why (§5.5.1). */
  close(code: number = CLOSE.normal, reason = ''): void {
    if (this.closeSent || this.ended) return;
    this.closeSent = true;
    if (reason !== '') this.why ??= reason;
    this.gather();
    this.ws.close(code, closeReason(reason));
  }

  /** A ping is answered unless the peer leaves its pongs unread: then it is dropped. */
  private answer(ping: Buffer): void {
    if (!this.open) return;
    if (this.unsentPongs >= MAX_UNSENT_PONGS || this.ws.bufferedAmount > this.options.maxBacklogBytes) {
      this.drop(`the other side sent pings and did not read the pongs (${this.unsentPongs} unsent, ${this.ws.bufferedAmount} bytes behind)`);
      return;
    }
    this.unsentPongs += 1;
    this.gather();
    this.ws.pong(ping, undefined, this.pongSent);
  }

  private readonly pongSent = (): void => {
    this.unsentPongs -= 1;
  };

  /** Holds this turn's writes back, to go out in one write once the turn ends. */
  private gather(): void {
    if (this.gathering) return;
    this.gathering = true;
    this.socket.cork();
    setImmediate(this.release);
  }

  private readonly release = (): void => {
    this.gathering = false;
    this.socket.uncork();
  };

  private finish(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    for (const closer of this.closers.splice(0)) closer(reason);
  }
}

/** A close frame's reason: at most 123 bytes of UTF-8 (§5.5), cut between characters. */
function closeReason(reason: string): string {
  let text = reason.slice(0, 123);
  while (Buffer.byteLength(text) > 123) text = text.slice(0, -1);
  return text;
}

/** An HTTP request the server may take over as a WebSocket: its connection, and the bytes read past its head. */
export interface UpgradeRequest extends HttpRequest {
  upgrade?: { socket: Socket; head: Buffer };
}

/** The answer a handler gives once it took the connection of an upgrade: nothing more is written. */
export const TAKEN: HttpResponse = { status: 101, headers: {}, body: '' };

/**
 * Completes the server's side of the handshake for `request` (§4.2): the WebSocket link, or the
 * HTTP error that names what is wrong with the request. Every rule is checked here, before `ws`
 * sees the request (it would take version 8, or a list of subprotocols), and `ws` is shown only
 * what was decided: version 13, the key, our subprotocol alone, no extensions.
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
  if (key === undefined || !/^[A-Za-z0-9+/]{22}==$/.test(key)) return statusError(400, 'INVALID_ARGUMENT', 'Sec-WebSocket-Key is not 16 bytes in base64');
  const offered = (request.headers['sec-websocket-protocol'] ?? '').split(',').map((name) => name.trim());
  if (!offered.includes(RELAY_PROTOCOL)) return statusError(400, 'INVALID_ARGUMENT', `this WebSocket speaks the subprotocol ${RELAY_PROTOCOL}; offer it in Sec-WebSocket-Protocol`);
  const decided = { method: 'GET', headers: { upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': key, 'sec-websocket-protocol': RELAY_PROTOCOL } };
  const server: ServerOptions = { noServer: true, clientTracking: false, ...settings(options) };
  const { socket, head } = upgrade;
  let link: WebSocketLink | undefined;
  new WebSocketServer(server).handleUpgrade(decided as IncomingMessage, socket, head, (ws) => (link = new WebSocketLink(ws, socket, options)));
  // No link: the client left during the handshake, and `ws` closed its connection.
  return link ?? TAKEN;
}

/** How a dial ended: a link, or the HTTP answer of a server that did not upgrade. */
export type Dialled = { link: WebSocketLink } | { response: IncomingMessage };

/**
 * Dials `url` asking for a WebSocket with the relay's subprotocol, and also accepting an event
 * stream, so that a server (or a proxy in between) that does not upgrade still answers.
 */
export function dialLink(url: string, headers: Record<string, string>, options: LinkOptions, signal: AbortSignal): Promise<Dialled> {
  if (signal.aborted) return Promise.reject(new Error('the dial was aborted'));
  return new Promise((resolve, reject) => {
    const client: ClientOptions = { headers: { ...headers, accept: 'text/event-stream' }, followRedirects: false, ...settings(options) };
    const ws = new WebSocket(url, [RELAY_PROTOCOL], client);
    const abort = (): void => ws.terminate();
    signal.addEventListener('abort', abort, { once: true });
    let socket: Socket | undefined;
    ws.on('upgrade', (response) => (socket = response.socket));
    ws.on('unexpected-response', (_request, response) => {
      response.once('close', () => signal.removeEventListener('abort', abort));
      resolve({ response });
    });
    ws.once('open', () => {
      signal.removeEventListener('abort', abort);
      // `ws` tells of the upgrade, with its connection, before it is open.
      resolve({ link: new WebSocketLink(ws, socket as Socket, options) });
    });
    // Before the link is open: the connection failed (a system error, with its code), or the
    // hub answered the handshake wrongly (no code). After, the link's own listener says why.
    ws.on('error', (error: Error & { code?: string }) => reject(error.code === undefined ? new Error(`the hub answered the WebSocket handshake wrongly: ${error.message}`) : error));
  });
}
