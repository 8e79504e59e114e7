// The shapes of the hub's relay (relay.ts): what it tells of agents coming and going, its
// options, one agent's connection as the relay holds it, and the words the hub uses
// when that connection fails: which side noticed, how, and when, and whether a request it was
// carrying reached the agent.

import { json } from '../net/http-types.js';
import type { HttpResponse } from '../net/http-types.js';
import { Channel } from './channel.js';
import type { DownFrame, UpFrame } from './frames.js';
import type { WebSocketLink } from '../net/websocket.js';

/** How a connected agent reaches the hub: a WebSocket, or an event stream with posts back. */
export type LinkKind = 'websocket' | 'event-stream';

export interface RelayObserver {
  up(agentId: string): void;
  down(agentId: string, reason: string): void;
  /** A heartbeat came back after `ms`. */
  latency(agentId: string, ms: number): void;
}

export interface RelayOptions {
  observer: RelayObserver;
  /** How often a silent connection is pinged (default 2 s); the agent is told, and does the same. */
  heartbeatMs?: number;
  /** Heartbeats in a row with nothing heard before the connection is dropped (default 2). */
  maxMissed?: number;
  /** How long data written down a WebSocket may go unacknowledged before it is dropped (default 3 s). */
  writeTimeoutMs?: number;
  /** How long a request waits for its agent to (re)connect (default 10 s). */
  graceMs?: number;
}

/**
 * Whether a request the hub answers itself reached the agent: `none`, never sent (another agent
 * may take it); `unknown`, sent down a link that died before the agent acknowledged it; `taken`,
 * the agent had it (its task, if it made one, is still there).
 */
export type Delivery = 'none' | 'unknown' | 'taken';

/** The header that says it, beside `error.delivery` in the body. */
export const DELIVERY_HEADER = 'a2a-lite-delivery';

export interface Pending {
  /** Settles the client's response, once: whole, or a stream's head. */
  answer(response: HttpResponse): void;
  /** The stream's body, once a head came. */
  stream?: Channel;
  /** When it was written down the link (performance.now()). */
  sentAt: number;
  /** The agent had it: a frame of its answer came, or a pong to a ping sent after it. */
  taken: boolean;
}

/** How frames reach a connected agent: a WebSocket link, or an event stream (its answers then come as posts). */
export interface Transport {
  kind: LinkKind;
  send(frame: DownFrame): void;
  /** Ends the connection; `why`, when the hub refuses the agent, is told where the link can say it. */
  end(why?: string): void;
  /** The WebSocket, which watches itself (net/link-watch.ts). */
  link?: WebSocketLink;
}

export interface Session {
  id: string;
  agentId: string;
  /** Who opened it: only they may post its answers. */
  principal: string;
  down: Transport;
  /** True once the session is over; its frames are no longer taken. */
  over: boolean;
  pending: Map<string, Pending>;
  /** Relay heartbeats (frames): sent to an event stream, and to an agent that does not watch its WebSocket itself. */
  appPings: boolean;
  pings: Map<number, number>;
  missed: number;
  /** When the agent was last heard on an event stream (performance.now()). */
  heardAt: number;
  /** Round trip, moving average, in ms: what a ping's answer may take. */
  rttMs: number | undefined;
  /** Everything written before this moment reached the agent (a pong came for a ping sent then). */
  ackedUpTo: number;
  /** The largest request body the agent takes (its `serve --max-body`), when it said. */
  maxBody: number | undefined;
}

/** The hub's own answer for a request it could not relay, saying whether the agent had it. */
export function unavailable(status: 502 | 503, message: string, delivery: Delivery): HttpResponse {
  const headers: Record<string, string> = { 'content-type': 'application/json', [DELIVERY_HEADER]: delivery };
  if (status === 503) headers['retry-after'] = '1';
  return json(status, { error: { code: status, status: 'UNAVAILABLE', message, delivery } }, headers);
}

/**
 * Why a link ended, with who noticed and when: the agent's close (its code and reason), or what
 * the hub saw (no answer to pings, a write timeout, a TCP error, the hub's own decision).
 */
export function lostWords(why: string, at = new Date()): string {
  const peer = /^the other side closed the link(.*)$/.exec(why);
  const said = peer !== null ? `the agent closed its link${peer[1] ?? ''}` : why.startsWith(HUB_ENDED) ? `the hub ended it: ${why.slice(HUB_ENDED.length)}` : `the hub noticed: ${why}`;
  return `${said}, at ${at.toISOString()}`;
}

/** How the relay marks a reason that is its own decision, not something it noticed. */
export const HUB_ENDED = 'hub: ';

/** Takes one of the agent's frames for `session`: a heartbeat's pong, or part of an answer. */
export function takeFrame(session: Session, frame: UpFrame, observer: { latency(agentId: string, ms: number): void }): void {
  session.missed = 0;
  session.heardAt = performance.now();
  if (frame.type === 'pong') {
    const sentAt = session.pings.get(frame.seq);
    session.pings.delete(frame.seq);
    if (sentAt !== undefined) observer.latency(session.agentId, performance.now() - sentAt);
    return;
  }
  const pending = session.pending.get(frame.rid);
  if (pending === undefined) return; // its client went away: the rest of its answer is dropped
  pending.taken = true;
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
        session.down.send({ type: 'abort', rid: frame.rid });
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

/** `ms` in seconds, to a tenth. */
export function seconds(ms: number): string {
  return (Math.round(ms / 100) / 10).toString();
}
