// The hub's side of the relay: agents behind NAT hold a connection open to the hub, and every
// request for such an agent goes down it whole and comes back as frames (frames.ts); one made
// while its agent reconnects waits a short grace period. A lost connection fails the requests not
// yet answered and ends the relayed streams: the task lives at the agent, and its client resubscribes
// with Last-Event-ID. A new agent's connection carries only the hub's card read until it registers.

import { randomUUID } from 'node:crypto';
import { statusError } from '../a2a/server/http.js';
import { overBytes } from '../net/body.js';
import { SSE_HEADERS, sseEvent } from '../net/sse.js';
import { whenGone, type HttpRequest, type HttpResponse } from '../net/http-types.js';
import { Channel } from './channel.js';
import type { LinkKind, RelayOptions, Session, Transport } from './relay-session.js';
import { headersToPass, queryToPass } from './passed-headers.js';
import { decodeUpFrame, encodeLinkFrame, type DownFrame, type UpFrame } from './frames.js';
import { CLOSE, type WebSocketLink } from '../net/websocket.js';

export type { LinkKind, RelayObserver, RelayOptions } from './relay-session.js';

export class Relay {
  private readonly sessions = new Map<string, Session>();
  private readonly byAgent = new Map<string, Session>();
  private readonly arrivals = new Map<string, (() => void)[]>();
  private readonly heartbeatMs: number;
  private readonly maxMissed: number;
  private readonly graceMs: number;
  private readonly timer: NodeJS.Timeout;
  private seq = 0;
  private rids = 0;

  constructor(private readonly options: RelayOptions) {
    this.heartbeatMs = options.heartbeatMs ?? 10_000;
    this.maxMissed = options.maxMissed ?? 3;
    this.graceMs = options.graceMs ?? 10_000;
    this.timer = setInterval(() => this.heartbeat(), this.heartbeatMs);
    this.timer.unref();
  }

  isConnected(agentId: string): boolean {
    return this.byAgent.has(agentId);
  }

  /** How `agentId` is connected now; undefined when it is not. */
  linkOf(agentId: string): LinkKind | undefined {
    return this.byAgent.get(agentId)?.down.kind;
  }

  connectedCount(): number {
    return this.byAgent.size;
  }

  /**
   * Opens an event-stream session for `agentId`. The returned events are the connect response's
   * body; the agent posts its answers to the session (`accept`). A session `routed` at once
   * replaces the one the agent had (a reconnect seen before the old connection's end); any other
   * is sent nothing but what `forwardOn` sends until `route` makes it the agent's.
   */
  open(agentId: string, baseUrl: string, principal: string, routed: boolean, maxBody?: number): HttpResponse & { session: string } {
    // Many requests in one turn of the event loop go down in one write.
    const events = new Channel(true);
    const session = this.start(agentId, baseUrl, principal, { kind: 'event-stream', send: (frame) => events.push(sseEvent(frame)), end: () => events.end() }, routed, maxBody);
    events.onClose(() => this.closed(session));
    return { status: 200, headers: { ...SSE_HEADERS }, events, session: session.id };
  }

  /** Opens a session for `agentId` over a WebSocket link, which carries its answers too; routed as `open` says. Its id. */
  attach(agentId: string, baseUrl: string, principal: string, link: WebSocketLink, routed: boolean, maxBody?: number): string {
    const session = this.start(agentId, baseUrl, principal, { kind: 'websocket', send: (frame) => link.send(encodeLinkFrame(frame)), end: (why) => link.close(why === undefined ? CLOSE.goingAway : CLOSE.refused, why) }, routed, maxBody);
    link.onClose(() => this.closed(session));
    link.messages((payload) => {
      if (session.over) return;
      let frame: UpFrame;
      try {
        frame = decodeUpFrame(payload);
      } catch (error) {
        link.close(CLOSE.protocolError, (error as Error).message);
        return;
      }
      this.take(session, frame);
    });
    return session.id;
  }

  private start(agentId: string, baseUrl: string, principal: string, down: Transport, routed: boolean, maxBody: number | undefined): Session {
    const session: Session = { id: randomUUID(), agentId, principal, down, over: false, pending: new Map(), pings: new Map(), missed: 0, maxBody };
    this.sessions.set(session.id, session);
    send(session, { type: 'hello', session: session.id, agentId, baseUrl, heartbeatMs: this.heartbeatMs, routed });
    if (routed) this.makeRouted(session);
    return session;
  }

  /** Makes session `sessionId` the one its agent's requests go down, replacing the one before; false when it is over. */
  route(sessionId: string): boolean {
    const session = this.sessions.get(sessionId);
    if (session === undefined) return false;
    if (this.byAgent.get(session.agentId) !== session) {
      this.makeRouted(session);
      send(session, { type: 'routed' });
    }
    return true;
  }

  private makeRouted(session: Session): void {
    const previous = this.byAgent.get(session.agentId);
    if (previous !== undefined) this.end(previous);
    this.byAgent.set(session.agentId, session);
    this.options.observer.up(session.agentId);
    for (const wake of this.arrivals.get(session.agentId)?.splice(0) ?? []) wake();
  }

  /** Ends session `sessionId`, telling its agent `why` where the link can say it (a WebSocket's close reason). */
  drop(sessionId: string, why: string): void {
    const session = this.sessions.get(sessionId);
    if (session !== undefined) this.end(session, why);
  }

  /** Ends every session `principal` opened (its credential was withdrawn), telling each agent `why`; how many. */
  dropPrincipal(principal: string, why: string): number {
    const theirs = [...this.sessions.values()].filter((session) => session.principal === principal);
    for (const session of theirs) this.end(session, why);
    return theirs.length;
  }

  /** Ends the routed session of `agentId` as going away (it dialled another instance of a cluster since). */
  release(agentId: string): void {
    const session = this.byAgent.get(agentId);
    if (session !== undefined) this.end(session);
  }

  /** The agent and the principal of a live session, so that posts to it can be checked against their sender. */
  sessionOf(sessionId: string): { agentId: string; principal: string } | undefined {
    const session = this.sessions.get(sessionId);
    return session === undefined ? undefined : { agentId: session.agentId, principal: session.principal };
  }

  /** Sends `request` to the connected agent `agentId` (path relative to the agent) and relays its answer. */
  async forward(agentId: string, request: HttpRequest, path: string, principal: string): Promise<HttpResponse> {
    const session = this.byAgent.get(agentId) ?? (await this.arrival(agentId));
    if (session === undefined) return statusError(503, 'UNAVAILABLE', `agent ${agentId} is not connected to the hub; try again when it is`, { 'retry-after': '5' });
    return this.exchange(session, request, path, principal);
  }

  /** Sends `request` down session `sessionId` alone, routed or not (the hub's read of a new agent's card). */
  forwardOn(sessionId: string, request: HttpRequest, path: string, principal: string): Promise<HttpResponse> {
    const session = this.sessions.get(sessionId);
    if (session === undefined) return Promise.resolve(statusError(503, 'UNAVAILABLE', 'the connection closed'));
    return this.exchange(session, request, path, principal);
  }

  private async exchange(session: Session, request: HttpRequest, path: string, principal: string): Promise<HttpResponse> {
    // What the agent would refuse is not sent down its connection at all.
    if (session.maxBody !== undefined && overBytes(request.body, session.maxBody)) {
      return statusError(413, 'RESOURCE_EXHAUSTED', `agent ${session.agentId} takes request bodies of up to ${session.maxBody} bytes`);
    }
    // Unique in this hub's run: a session's answers come only from its own agent.
    const rid = (this.rids += 1).toString(36);
    const headers = headersToPass(request);
    const answered = new Promise<HttpResponse>((resolve) => session.pending.set(rid, { answer: resolve }));
    send(session, { type: 'request', rid, method: request.method, path, query: queryToPass(request), headers, body: request.body, principal });
    const onGone = (): void => {
      const pending = session.pending.get(rid);
      if (pending === undefined) return;
      session.pending.delete(rid);
      // Settled for nobody, so that nothing waits on an answer that will never be read.
      if (pending.stream === undefined) pending.answer(statusError(408, 'CANCELLED', 'the client went away before the agent answered'));
      else pending.stream.end();
      send(session, { type: 'abort', rid });
    };
    const stopListening = whenGone(request, onGone);
    const response = await answered;
    if (!('events' in response)) stopListening();
    return response;
  }

  /** Takes an agent's posted frames for `sessionId`; false when that session is gone. */
  accept(sessionId: string, frames: readonly UpFrame[]): boolean {
    const session = this.sessions.get(sessionId);
    if (session === undefined) return false;
    for (const frame of frames) this.take(session, frame);
    return true;
  }

  private take(session: Session, frame: UpFrame): void {
    session.missed = 0;
    if (frame.type === 'pong') {
      const sentAt = session.pings.get(frame.seq);
      session.pings.delete(frame.seq);
      if (sentAt !== undefined) this.options.observer.latency(session.agentId, performance.now() - sentAt);
      return;
    }
    const pending = session.pending.get(frame.rid);
    if (pending === undefined) return; // its client went away: the rest of its answer is dropped
    if (frame.type === 'response') {
      session.pending.delete(frame.rid);
      pending.answer({ status: frame.status, headers: frame.headers, body: frame.body });
    } else if (frame.type === 'head') {
      if (pending.stream !== undefined) return;
      const stream = (pending.stream = new Channel());
      // The client stopped reading: tell the agent, so its handler stops the stream too.
      stream.onClose(() => {
        if (session.pending.get(frame.rid) === pending) {
          session.pending.delete(frame.rid);
          send(session, { type: 'abort', rid: frame.rid });
        }
      });
      pending.answer({ status: frame.status, headers: frame.headers, events: stream });
    } else if (frame.type === 'chunk') {
      pending.stream?.push(frame.data);
    } else {
      session.pending.delete(frame.rid);
      if (pending.stream !== undefined) pending.stream.end();
      else pending.answer({ status: 204, headers: {}, body: '' });
    }
  }

  /** Ends every session (the hub is stopping). */
  close(): void {
    clearInterval(this.timer);
    for (const session of [...this.sessions.values()]) this.end(session);
  }

  /** Ends `session` now: its requests fail at once, whenever its connection is seen to close. */
  private end(session: Session, why?: string): void {
    session.down.end(why);
    this.closed(session);
  }

  private arrival(agentId: string): Promise<Session | undefined> {
    if (this.graceMs <= 0) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiting = this.arrivals.get(agentId) ?? [];
      this.arrivals.set(agentId, waiting);
      const timer = setTimeout(() => {
        const at = waiting.indexOf(wake);
        if (at !== -1) waiting.splice(at, 1);
        if (waiting.length === 0) this.arrivals.delete(agentId);
        resolve(undefined);
      }, this.graceMs);
      const wake = (): void => {
        clearTimeout(timer);
        resolve(this.byAgent.get(agentId));
      };
      waiting.push(wake);
    });
  }

  private closed(session: Session): void {
    if (session.over) return;
    session.over = true;
    this.sessions.delete(session.id);
    const current = this.byAgent.get(session.agentId) === session;
    if (current) this.byAgent.delete(session.agentId);
    for (const pending of session.pending.values()) {
      if (pending.stream !== undefined) pending.stream.end();
      else pending.answer(statusError(502, 'UNAVAILABLE', `the connection of agent ${session.agentId} to the hub was lost before it answered; a task it accepted is still at the agent`));
    }
    session.pending.clear();
    if (current) this.options.observer.down(session.agentId, 'its connection to the hub closed');
  }

  private heartbeat(): void {
    const now = performance.now();
    for (const session of [...this.sessions.values()]) {
      if (session.missed >= this.maxMissed) {
        this.end(session);
        continue;
      }
      session.missed += 1;
      const seq = ++this.seq;
      session.pings.set(seq, now);
      if (session.pings.size > this.maxMissed + 1) session.pings.delete(session.pings.keys().next().value as number);
      send(session, { type: 'ping', seq });
    }
  }
}

function send(session: Session, frame: DownFrame): void {
  session.down.send(frame);
}
