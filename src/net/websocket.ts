// One WebSocket connection carrying binary messages both ways: the relay's link between an agent
// behind NAT and its hub. The framing is the `ws` library's; the handshake's rules, the limits
// and the answers to pings are ours. What is sent in one turn of the event loop goes out in one
// write, and where both ends speak v2, in one message (link-batch.ts); a peer that reads too
// slowly is dropped, as one that breaks the framing is, with the close code that says why. The
// relay's own heartbeats (frames.ts) measure the link.

import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import WebSocket, { WebSocketServer, type ServerOptions } from 'ws';
import { LiteError } from '../errors.js';
import { statusError, type HttpRequest, type HttpResponse } from './http-types.js';
import { BATCH_BYTES, LENGTH_BYTES, packFrames, unpackFrames } from './link-batch.js';
import { LinkWatch, type WatchOptions } from './link-watch.js';

/** The relay's first subprotocol: each of its frames (frames.ts) is one binary message. */
export const RELAY_PROTOCOL = 'a2a-lite-relay.v1';

/** The relay's batched subprotocol: a binary message holds one frame or more (link-batch.ts). */
export const BATCHED_RELAY_PROTOCOL = 'a2a-lite-relay.v2';

/** The subprotocols a link speaks unless told otherwise, the one preferred first. */
export const RELAY_PROTOCOLS: readonly string[] = [BATCHED_RELAY_PROTOCOL, RELAY_PROTOCOL];

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
  /**
   * The subprotocols this end speaks, the one preferred first (default RELAY_PROTOCOLS): the
   * dialler offers them, the server picks the first of its own the dialler offered. v2 is left
   * out where `maxMessageBytes` is under BATCH_BYTES, since a batch could then be refused.
   */
  protocols?: readonly string[];
}

/** The subprotocols `options` let this end speak, in its order of preference. */
export function spoken(options: LinkOptions): string[] {
  const names = options.protocols ?? RELAY_PROTOCOLS;
  for (const name of names) {
    if (name !== RELAY_PROTOCOL && name !== BATCHED_RELAY_PROTOCOL) throw new LiteError('USAGE', `a relay link speaks ${RELAY_PROTOCOL} or ${BATCHED_RELAY_PROTOCOL}, not ${JSON.stringify(name)}`);
  }
  const usable = names.filter((name) => name !== BATCHED_RELAY_PROTOCOL || options.maxMessageBytes >= BATCH_BYTES);
  if (usable.length === 0) throw new LiteError('USAGE', `${BATCHED_RELAY_PROTOCOL} takes messages of ${BATCH_BYTES} bytes; this link takes ${options.maxMessageBytes}`);
  return usable;
}

/** What both ends give `ws`: no compression, our own pongs, our own close timeout. */
export const settings = (options: LinkOptions) => ({ maxPayload: options.maxMessageBytes, perMessageDeflate: false, autoPong: false, closeTimeout: CLOSE_TIMEOUT_MS });

export class WebSocketLink {
  /** The subprotocol the two ends agreed on. */
  readonly protocol: string;
  /** Messages that came before anyone listened (those sent right after the handshake). */
  private held: Buffer[] | undefined = [];
  private onMessage: (payload: Buffer) => void = (payload) => this.held?.push(payload);
  /** v2: messages hold frames, and this turn's frames wait in `batch` until its end. */
  private readonly batched: boolean;
  private batch: Buffer[] = [];
  /** The bytes of the message `batch` makes, prefixes included. */
  private batchBytes = 0;
  private readonly closers: ((reason: string) => void)[] = [];
  private gathering = false;
  private closeSent = false;
  private ended = false;
  private unsentPongs = 0;
  private why: string | undefined;
  private watch: LinkWatch | undefined;

  /** `socket`: the connection under `ws`, corked for a turn of the event loop to gather writes. */
  constructor(
    private readonly ws: WebSocket,
    private readonly socket: Socket,
    private readonly options: LinkOptions,
  ) {
    this.protocol = ws.protocol;
    this.batched = ws.protocol === BATCHED_RELAY_PROTOCOL;
    // Once a close is sent, nothing more is taken: the other side's close, or its end, follows.
    ws.on('message', (data) => {
      this.watch?.heard();
      if (this.closeSent) return;
      if (this.batched) this.unpack(data as Buffer);
      else this.onMessage(data as Buffer);
    });
    ws.on('ping', (data) => {
      this.watch?.heard();
      this.answer(data);
    });
    ws.on('pong', (data) => this.watch?.pong(data.toString('latin1')));
    ws.on('error', (error) => (this.why ??= `the other side broke the WebSocket framing: ${error.message}`));
    // A system error names itself by its code (ECONNRESET, ETIMEDOUT, EHOSTUNREACH…).
    socket.on('error', (error: Error & { code?: string }) => (this.why ??= `TCP error ${error.code ?? ''}: ${error.message}`.replace('  ', ' ')));
    // 1006: no close frame came; 1005: one came without a code.
    ws.on('close', (code, said) => {
      const peer = this.closeSent || code === 1006 ? undefined : `the other side closed the link${code === 1005 ? ' (no close code)' : ` (close code ${code}${said.length === 0 ? '' : `: ${said.toString()}`})`}`;
      this.finish(this.why ?? peer ?? 'the TCP connection ended without a close frame (by the other side, or something in between)');
    });
  }

  get open(): boolean {
    return !this.ended && !this.closeSent && this.ws.readyState === WebSocket.OPEN;
  }

  /** Where each frame goes (a v1 message, or each frame of a v2 one), starting with those that came before. */
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

  /**
   * Sends `payload` as one frame, gathered with the rest of this turn's: in one write, and on v2
   * in one message, or several where they would pass BATCH_BYTES (a larger frame goes alone).
   */
  send(payload: Buffer): void {
    if (!this.open) return;
    // Frames waiting for the end of the turn count as written: v1 would have written them.
    if (this.ws.bufferedAmount + this.batchBytes > this.options.maxBacklogBytes) {
      this.drop(`the other side fell more than ${this.options.maxBacklogBytes} bytes behind`);
      return;
    }
    this.gather();
    this.watch?.wrote();
    if (!this.batched) {
      this.ws.send(payload);
      return;
    }
    if (this.batchBytes + LENGTH_BYTES + payload.length > BATCH_BYTES) this.flush();
    this.batch.push(payload);
    this.batchBytes += LENGTH_BYTES + payload.length;
  }

  /** Drops the connection at once, without a close handshake (the other side is gone or silent). */
  drop(reason: string): void {
    this.why ??= reason;
    this.ws.terminate();
  }

  /**
   * Watches the link for silence (link-watch.ts): pings when nothing was heard for a while, and
   * drops the link, saying how it was noticed, once it is dead. Again: with new options.
   */
  keepWatch(options: WatchOptions): void {
    this.watch?.stop();
    if (this.ended) return;
    const ws = this.ws;
    this.watch = new LinkWatch({ bytesRead: () => this.socket.bytesRead, backlog: () => ws.bufferedAmount + this.batchBytes, ping: (payload) => this.open && ws.ping(payload), drop: (why) => this.drop(why) }, options);
  }

  /** Milliseconds since anything came from the other side; undefined when the link is not watched. */
  silence(): number | undefined {
    return this.watch?.silence();
  }

  /** Pings the other side now: true once its pong comes within `timeoutMs` (a link not watched answers true). */
  ask(timeoutMs: number): Promise<boolean> {
    return this.watch === undefined ? Promise.resolve(this.open) : this.watch.ask(timeoutMs);
  }

  /** Closes the link with `code`, telling the other side why (§5.5.1). */
  close(code: number = CLOSE.normal, reason = ''): void {
    if (this.closeSent || this.ended) return;
    this.closeSent = true;
    if (reason !== '') this.why ??= reason;
    this.gather();
    this.flush();
    this.ws.close(code, closeReason(reason));
  }

  /** Gives each frame of a v2 message to the listener, or closes the link if the message is no batch. */
  private unpack(message: Buffer): void {
    let frames: Buffer[];
    try {
      frames = unpackFrames(message);
    } catch (error) {
      this.close(CLOSE.protocolError, (error as Error).message);
      return;
    }
    // The listener may close the link at a frame it refuses: the rest is not taken.
    for (const frame of frames) {
      if (!this.open) return;
      this.onMessage(frame);
    }
  }

  /** Sends the frames gathered so far as one message. */
  private flush(): void {
    if (this.batch.length === 0) return;
    const message = packFrames(this.batch, this.batchBytes);
    this.batch = [];
    this.batchBytes = 0;
    this.ws.send(message);
  }

  /** A ping is answered unless the peer leaves its pongs unread: then it is dropped. */
  private answer(ping: Buffer): void {
    if (!this.open) return;
    const behind = this.ws.bufferedAmount + this.batchBytes;
    if (this.unsentPongs >= MAX_UNSENT_PONGS || behind > this.options.maxBacklogBytes) {
      this.drop(`the other side sent pings and did not read the pongs (${this.unsentPongs} unsent, ${behind} bytes behind)`);
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
    // A link closed meanwhile sends nothing more: what it had gathered is dropped, as `ws` would.
    if (this.open) {
      this.flush();
      this.watch?.sendProbe();
    } else {
      this.batch = [];
      this.batchBytes = 0;
    }
    this.socket.uncork();
  };

  private finish(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.watch?.stop();
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
 * what was decided: version 13, the key, the one subprotocol picked (the first of ours the client
 * offered: v2 from a dialler that speaks it, v1 from an older one), no extensions.
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
  const ours = spoken(options);
  const picked = ours.find((name) => offered.includes(name));
  if (picked === undefined) return statusError(400, 'INVALID_ARGUMENT', `this WebSocket speaks the subprotocol ${[...ours].sort().join(' or ')}; offer it in Sec-WebSocket-Protocol`);
  const decided = { method: 'GET', headers: { upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': key, 'sec-websocket-protocol': picked } };
  const server: ServerOptions = { noServer: true, clientTracking: false, ...settings(options) };
  const { socket, head } = upgrade;
  let link: WebSocketLink | undefined;
  new WebSocketServer(server).handleUpgrade(decided as IncomingMessage, socket, head, (ws) => (link = new WebSocketLink(ws, socket, options)));
  // No link: the client left during the handshake, and `ws` closed its connection.
  return link ?? TAKEN;
}
