// The hub's side of the relay: agents behind NAT hold a connection open to the hub, and every
// request for such an agent goes down it whole and comes back as frames (frames.ts); one made
// while its agent reconnects waits a short grace period. A lost connection fails the requests not
// yet answered and ends the relayed streams: the task lives at the agent, and its client resubscribes
// with Last-Event-ID. A new agent's connection carries only the hub's card read until it registers.
// A link found dead (no answer to pings, a write unacknowledged: net/link-watch.ts) ends in seconds;
// a request to a link silent lately waits for a ping's pong, and is refused unsent when none comes.

import { randomUUID } from 'node:crypto';
import { statusError } from '../a2a/server/http.js';
import { overBytes } from '../net/body.js';
import { SSE_HEADERS, sseEvent } from '../net/sse.js';
import { whenGone, type HttpRequest, type HttpResponse } from '../net/http-types.js';
import { Channel } from './channel.js';
import { headersToPass, queryToPass } from './passed-headers.js';
import { decodeUpFrame, encodeLinkFrame, type DownFrame, type UpFrame } from './frames.js';
import { CLOSE, type WebSocketLink } from '../net/websocket.js';
import { HUB_ENDED, lostWords, seconds, takeFrame, unavailable, type LinkKind, type RelayOptions, type Session, type Transport } from './relay-session.js';

/** The defaults: a ping once a link is silent for 2 s, dead after 2 missed; data unacknowledged for 3 s, too. */
const DEFAULTS = { heartbeatMs: 2000, missed: 2, writeTimeoutMs: 3000 };
const DOUBT_MIN_MS = 1000; // The least time a link in doubt has to answer its ping before a request is refused unsent.

export type { LinkKind, RelayObserver, RelayOptions } from './relay-session.js';

export class Relay {
  private readonly sessions = new Map<string, Session>();
  private readonly byAgent = new Map<string, Session>();
  private readonly arrivals = new Map<string, (() => void)[]>();
  private readonly heartbeatMs: number;
  private readonly maxMissed: number;
  private readonly writeTimeoutMs: number;
  private readonly graceMs: number;
  /** Why each agent's last link ended, for the requests that find it gone. */
  private readonly lost = new Map<string, { words: string; dead: boolean }>();
  private readonly timer: NodeJS.Timeout;
  private seq = 0;
  private rids = 0;

  constructor(private readonly options: RelayOptions) {
    this.heartbeatMs = options.heartbeatMs ?? DEFAULTS.heartbeatMs;
    this.maxMissed = Math.max(1, options.maxMissed ?? DEFAULTS.missed);
    this.writeTimeoutMs = options.writeTimeoutMs ?? DEFAULTS.writeTimeoutMs;
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
    const session = this.start(agentId, baseUrl, principal, { kind: 'event-stream', send: (frame) => events.push(sseEvent(frame)), end: () => events.end() }, routed, maxBody, true);
    events.onClose(() => this.closed(session, 'its event stream ended'));
    return { status: 200, headers: { ...SSE_HEADERS }, events, session: session.id };
  }

  /**
   * Opens a session for `agentId` over a WebSocket link, which carries its answers too; routed as
   * `open` says. The link is watched with WebSocket pings; an agent that does not watch its own
   * (`watches` false: one built before) still gets the relay's heartbeat frames it listens for. Its id.
   */
  attach(agentId: string, baseUrl: string, principal: string, link: WebSocketLink, routed: boolean, maxBody?: number, watches = false): string {
    const down: Transport = { kind: 'websocket', link, send: (frame) => link.send(encodeLinkFrame(frame)), end: (why) => link.close(why === undefined ? CLOSE.goingAway : CLOSE.refused, why) };
    const session = this.start(agentId, baseUrl, principal, down, routed, maxBody, !watches);
    link.keepWatch({
      intervalMs: this.heartbeatMs,
      missed: this.maxMissed,
      writeTimeoutMs: this.writeTimeoutMs,
      onRtt: (ms) => {
        session.ackedUpTo = performance.now() - ms;
        session.rttMs = session.rttMs === undefined ? ms : 0.7 * session.rttMs + 0.3 * ms;
        if (this.byAgent.get(agentId) === session) this.options.observer.latency(agentId, ms);
      },
    });
    link.onClose((why) => this.closed(session, why));
    link.messages((payload) => {
      if (session.over) return;
      let frame: UpFrame;
      try {
        frame = decodeUpFrame(payload);
      } catch (error) {
        link.close(CLOSE.protocolError, (error as Error).message);
        return;
      }
      takeFrame(session, frame, this.options.observer);
    });
    return session.id;
  }

  private start(agentId: string, baseUrl: string, principal: string, down: Transport, routed: boolean, maxBody: number | undefined, appPings: boolean): Session {
    const session: Session = { id: randomUUID(), agentId, principal, down, over: false, pending: new Map(), appPings, pings: new Map(), missed: 0, heardAt: performance.now(), rttMs: undefined, ackedUpTo: -Infinity, maxBody };
    this.sessions.set(session.id, session);
    send(session, { type: 'hello', session: session.id, agentId, baseUrl, heartbeatMs: this.heartbeatMs, missed: this.maxMissed, writeTimeoutMs: this.writeTimeoutMs, routed });
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
    // Not a loss: the agent is up on its new connection (it found the old one dead first, or came back).
    this.byAgent.delete(session.agentId);
    if (previous !== undefined) this.end(previous, undefined, 'a new connection of the agent replaced it');
    this.byAgent.set(session.agentId, session);
    this.options.observer.up(session.agentId);
    for (const wake of this.arrivals.get(session.agentId)?.splice(0) ?? []) wake();
  }

  /** Ends session `sessionId`, telling its agent `why` where the link can say it (a WebSocket's close reason). */
  drop(sessionId: string, why: string): void {
    const session = this.sessions.get(sessionId);
    if (session !== undefined) this.end(session, why, why);
  }

  /** Ends every session `principal` opened (its credential was withdrawn), telling each agent `why`; how many. */
  dropPrincipal(principal: string, why: string): number {
    const theirs = [...this.sessions.values()].filter((session) => session.principal === principal);
    for (const session of theirs) this.end(session, why, why);
    return theirs.length;
  }

  /** Ends the routed session of `agentId` as going away (it dialled another instance of a cluster since). */
  release(agentId: string): void {
    const session = this.byAgent.get(agentId);
    if (session !== undefined) this.end(session, undefined, 'the agent dialled another instance of the cluster');
  }

  /** The agent and the principal of a live session, so that posts to it can be checked against their sender. */
  sessionOf(sessionId: string): { agentId: string; principal: string } | undefined {
    const session = this.sessions.get(sessionId);
    return session === undefined ? undefined : { agentId: session.agentId, principal: session.principal };
  }

  /** Sends `request` to the connected agent `agentId` (path relative to the agent) and relays its answer; at once down a link heard a moment ago. */
  forward(agentId: string, request: HttpRequest, path: string, principal: string): Promise<HttpResponse> {
    const session = this.byAgent.get(agentId);
    if (session !== undefined && !this.inDoubt(session)) return this.exchange(session, request, path, principal);
    return this.forwardWhenSure(agentId, session, request, path, principal);
  }

  private async forwardWhenSure(agentId: string, routed: Session | undefined, request: HttpRequest, path: string, principal: string): Promise<HttpResponse> {
    const session = routed ?? (await this.arrival(agentId));
    if (session === undefined) {
      const lost = this.lost.get(agentId);
      return unavailable(503, `agent ${agentId} is unavailable: ${lost === undefined ? 'it is not connected to the hub' : `its link to the hub is down (${lost.words})`}; the request was not sent to it`, 'none');
    }
    const doubt = await this.doubt(session);
    if (doubt !== undefined) return unavailable(503, `agent ${agentId} is unavailable: ${doubt}; the request was not sent to it`, 'none');
    return this.exchange(session, request, path, principal);
  }

  /** Whether `session` is to be checked (`doubt`) before a request goes down it: an event stream, or a link silent a while. */
  private inDoubt(session: Session, silent = session.down.link?.silence() ?? 0): boolean {
    return session.down.link === undefined || silent > Math.max(100, 2 * (session.rttMs ?? 0));
  }

  /**
   * Why the hub cannot be sure that `session` reaches its agent, if it cannot: a link silent for
   * more than two round trips (100 ms at least) is pinged first, and the request goes down only
   * once the pong comes, within four round trips and 100 ms (1 s at least, the write timeout at
   * most): an agent on a busy machine may take a second, and is only slow.
   */
  private async doubt(session: Session): Promise<string | undefined> {
    const link = session.down.link;
    if (link === undefined) {
      const silent = performance.now() - session.heardAt;
      return silent > this.heartbeatMs * 1.5 + 500 ? `its event stream gave no sign of life for ${seconds(silent)} s` : undefined;
    }
    const silent = link.silence() ?? 0;
    if (!this.inDoubt(session, silent)) return undefined;
    const bound = Math.round(Math.min(this.writeTimeoutMs, Math.max(DOUBT_MIN_MS, 4 * (session.rttMs ?? 50) + 100)));
    if (await link.ask(bound)) return undefined;
    if (session.over) return `its link to the hub ended (${this.lost.get(session.agentId)?.words ?? 'closed'})`;
    return `its link to the hub was silent for ${seconds(silent)} s and did not answer a ping within ${bound} ms`;
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
    const answered = new Promise<HttpResponse>((resolve) => session.pending.set(rid, { answer: resolve, sentAt: performance.now(), taken: false }));
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
    for (const frame of frames) takeFrame(session, frame, this.options.observer);
    return true;
  }

  /** Ends every session (the hub is stopping). */
  close(): void {
    clearInterval(this.timer);
    for (const session of [...this.sessions.values()]) this.end(session, undefined, 'the hub is stopping');
  }

  /** Ends `session` now, telling the agent `told`: its requests fail at once, whenever its connection is seen to close. */
  private end(session: Session, told: string | undefined, why: string): void {
    this.closed(session, `${HUB_ENDED}${why}`);
    session.down.end(told);
  }

  private arrival(agentId: string): Promise<Session | undefined> {
    const graceMs = this.lost.get(agentId)?.dead === true ? Math.min(this.graceMs, this.heartbeatMs) : this.graceMs;
    if (graceMs <= 0) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiting = this.arrivals.get(agentId) ?? [];
      this.arrivals.set(agentId, waiting);
      const timer = setTimeout(() => {
        const at = waiting.indexOf(wake);
        if (at !== -1) waiting.splice(at, 1);
        if (waiting.length === 0) this.arrivals.delete(agentId);
        resolve(undefined);
      }, graceMs);
      const wake = (): void => {
        clearTimeout(timer);
        resolve(this.byAgent.get(agentId));
      };
      waiting.push(wake);
    });
  }

  private closed(session: Session, why: string): void {
    if (session.over) return;
    session.over = true;
    this.sessions.delete(session.id);
    const current = this.byAgent.get(session.agentId) === session;
    const words = lostWords(why);
    if (current) {
      this.byAgent.delete(session.agentId);
      // Found dead, not closed: an agent that is alive finds it so too, and is back within a heartbeat.
      this.lost.set(session.agentId, { words, dead: !why.startsWith(HUB_ENDED) && !why.startsWith('the other side closed') });
    }
    for (const pending of session.pending.values()) {
      if (pending.stream !== undefined) pending.stream.end();
      else if (pending.taken || pending.sentAt <= session.ackedUpTo) pending.answer(unavailable(502, `the link of agent ${session.agentId} to the hub was lost after the agent took the request (${words}); a task it accepted is still at the agent`, 'taken'));
      else pending.answer(unavailable(502, `the link of agent ${session.agentId} to the hub was lost before the agent acknowledged the request (${words}); it may not have reached the agent`, 'unknown'));
    }
    session.pending.clear();
    if (current) this.options.observer.down(session.agentId, words);
  }

  private heartbeat(): void {
    const now = performance.now();
    for (const session of [...this.sessions.values()]) {
      if (!session.appPings) continue;
      // A WebSocket is watched by its link; an event stream by the pongs posted back.
      if (session.down.link === undefined && session.missed >= this.maxMissed) {
        session.down.end();
        this.closed(session, `no pong for ${seconds(performance.now() - session.heardAt)} s (${session.missed} heartbeats unanswered, one every ${seconds(this.heartbeatMs)} s)`);
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
