// The shapes of the hub's relay (relay.ts): what it tells of agents coming and going, its
// options, and one agent's session: the connection it dialled in on and its requests in flight.

import type { Channel } from './channel.js';
import type { DownFrame } from './frames.js';
import type { HttpResponse } from '../net/http-types.js';

export interface RelayObserver {
  up(agentId: string): void;
  down(agentId: string, reason: string): void;
  /** A heartbeat came back after `ms`. */
  latency(agentId: string, ms: number): void;
}

export interface RelayOptions {
  observer: RelayObserver;
  /** How often each connection is pinged (default 10 s). */
  heartbeatMs?: number;
  /** Pings unanswered in a row before the connection is dropped (default 3). */
  maxMissed?: number;
  /** How long a request waits for its agent to (re)connect (default 10 s). */
  graceMs?: number;
}

export interface Pending {
  /** Settles the client's response, once: whole, or a stream's head. */
  answer(response: HttpResponse): void;
  /** The stream's body, once a head came. */
  stream?: Channel;
}

/** How frames reach a connected agent: a WebSocket link, or an event stream (its answers then come as posts). */
export interface Transport {
  kind: LinkKind;
  send(frame: DownFrame): void;
  /** Ends the connection; `why`, when the hub refuses the agent, is told where the link can say it. */
  end(why?: string): void;
}

/** How a connected agent reaches the hub: a WebSocket, or an event stream with posts back. */
export type LinkKind = 'websocket' | 'event-stream';

export interface Session {
  id: string;
  agentId: string;
  /** Who opened it: only they may post its answers. */
  principal: string;
  down: Transport;
  /** True once the session is over; its frames are no longer taken. */
  over: boolean;
  pending: Map<string, Pending>;
  pings: Map<number, number>;
  missed: number;
  /** The largest request body the agent takes (its `serve --max-body`), when it said. */
  maxBody: number | undefined;
}
