// The hub's live feed: every change a watcher (the console, a script) should see, in order,
// each with a number. `GET /hub/v1/events` streams them; a watcher that reconnects with
// Last-Event-ID gets those it missed while the hub still holds them (the last 1000). In a
// cluster the feed holds the other instances' events too (cluster/feed-share.ts), and each
// instance numbers its own feed: its ids carry its tag, so that an id from another instance
// (a watcher sent elsewhere by a load balancer) is known as such and answered with a snapshot.

import { sseComment, sseEvent } from '../net/sse.js';
import { Channel } from './channel.js';

/** An agent's health as the hub last saw it. */
export interface AgentHealth {
  up: boolean;
  /** ISO time of the last sign of life: a connection, a pong, an answer, a card fetch. */
  lastSeen?: string;
  /** Recent round trip in milliseconds (moving average), when one was measured. */
  latencyMs?: number;
  /** Requests that start or follow a task, relayed to it and not yet answered. */
  activeTasks: number;
  /** Failures in a row: missed heartbeats, failed checks, failed relays. */
  failures: number;
  /** Why it is down, when it is. */
  reason?: string;
}

/** A task as the hub saw it pass through, from the answers and stream events it relayed. */
export interface TaskSeen {
  agentId: string;
  /** Who sent it through the hub: only they see it in the API and the feed. */
  principal: string;
  taskId: string;
  contextId?: string;
  state: string;
  /** From the lite header's `progress=`, when the agent sent one. */
  progress?: number;
  /** The words of the last status or of the result, cut to 500 characters. */
  text?: string;
  updatedAt: string;
}

export type HubEvent =
  | { type: 'agent.registered'; agentId: string; kind: 'url' | 'connected'; name: string; version: string }
  | { type: 'agent.removed'; agentId: string }
  | { type: 'agent.health'; agentId: string; health: AgentHealth }
  /** `event` is the answer or stream event as relayed; `lite`, the same said as A2A-Lite text. */
  | { type: 'task'; task: TaskSeen; event: unknown; lite?: string };

const KEPT = 1000;

/** An event as kept: written out as a line only when someone reads it. */
interface Kept {
  seq: number;
  event: HubEvent;
  at: number;
  line?: string;
}

/** Told each event as it is published; `from`, the instance of a cluster it came from (none: this one). */
export type HubListener = (event: HubEvent, at: number, from?: string) => void;

export class HubEvents {
  private seq = 0;
  private readonly recent: Kept[] = [];
  /** Each watcher's stream, and the principal it sees tasks of. */
  private readonly watchers = new Map<Channel, string>();
  private timer: NodeJS.Timeout | undefined;
  private readonly listeners: HubListener[] = [];
  private taskListeners = 0;
  private readonly catchUps: (() => void)[] = [];
  /** True while a watcher follows the feed at another instance of the cluster. */
  followedElsewhere: () => boolean = () => false;
  /** Told when a watcher starts, before it is sent anything. */
  onWatch: (() => void) | undefined;

  /** `tag`, in a cluster: what this instance's event ids start with. */
  constructor(private readonly tag = '') {}

  /**
   * Calls `listener` with every event from now on, in this process (the hub's own log). Task
   * events come as the answers are relayed only with `tasks: true`; otherwise the hub may read
   * answers later, when someone asks for them.
   */
  listen(listener: HubListener, options: { tasks?: boolean } = {}): void {
    this.listeners.push(listener);
    if (options.tasks === true) this.taskListeners += 1;
  }

  /** True while someone follows the tasks live: a watcher of the feed, or a listener that asked for them. */
  get followed(): boolean {
    return this.watchers.size > 0 || this.taskListeners > 0 || this.followedElsewhere();
  }

  /** True while a watcher follows the feed here. */
  get watched(): boolean {
    return this.watchers.size > 0;
  }

  /** Puts in the feed now what was put off (the answers nobody read yet). */
  catchUp(): void {
    for (const catchUp of this.catchUps) catchUp();
  }

  /** Runs `catchUp` before a watcher starts, so that what was put off is in the feed first. */
  beforeWatch(catchUp: () => void): void {
    this.catchUps.push(catchUp);
  }

  /** Publishes `event`, which happened at `at` (ms since the epoch; default now) at instance `from` (default: this one). */
  publish(event: HubEvent, at = Date.now(), from?: string): void {
    for (const listener of this.listeners) listener(event, at, from);
    const kept: Kept = { seq: ++this.seq, event, at };
    this.recent.push(kept);
    if (this.recent.length > KEPT) this.recent.shift();
    // Most relayed requests happen with nobody watching: their events are not written out.
    if (this.watchers.size > 0) for (const [watcher, principal] of this.watchers) if (visible(kept.event, principal)) watcher.push(this.lineOf(kept));
  }

  /**
   * A stream for one watcher, with the tasks of `principal` only: first `snapshot` (the state now, as an event of its own), or,
   * after `lastEventId`, the events it missed when the hub still holds them all; then every
   * new event. Ends when the watcher goes away.
   */
  watch(principal: string, snapshot: () => unknown, lastEventId?: string): AsyncIterable<string> {
    this.onWatch?.();
    this.catchUp();
    const channel = new Channel();
    const after = this.seqOf(lastEventId);
    const oldest = this.recent[0]?.seq ?? this.seq + 1;
    if (after !== undefined && after <= this.seq && after + 1 >= oldest) {
      for (const kept of this.recent) if (kept.seq > after && visible(kept.event, principal)) channel.push(this.lineOf(kept));
    } else {
      channel.push(sseEvent(snapshot(), `${this.tag}${this.seq}`, 'snapshot'));
    }
    this.watchers.set(channel, principal);
    channel.onClose(() => this.watchers.delete(channel));
    return channel;
  }

  /**
   * A comment line to every watcher each `ms`, so that a proxy between them and the hub does
   * not close a quiet feed as idle; readers ignore comments.
   */
  keepAlive(ms: number): void {
    clearInterval(this.timer);
    this.timer = setInterval(() => {
      for (const watcher of this.watchers.keys()) watcher.push(sseComment('keep-alive'));
    }, ms);
    this.timer.unref();
  }

  /** Ends every watcher's stream (the hub is stopping). */
  close(): void {
    clearInterval(this.timer);
    for (const watcher of this.watchers.keys()) watcher.end();
  }

  /** The number of an event id of this feed; undefined for another's (or none). */
  private seqOf(id: string | undefined): number | undefined {
    if (id === undefined || !id.startsWith(this.tag)) return undefined;
    const seq = id.slice(this.tag.length);
    return /^\d+$/.test(seq) ? Number(seq) : undefined;
  }

  private lineOf(kept: Kept): string {
    return (kept.line ??= sseEvent({ ...kept.event, at: new Date(kept.at).toISOString() }, `${this.tag}${kept.seq}`, kept.event.type));
  }
}

/** Agents are everyone's to see; a task only its maker's. */
function visible(event: HubEvent, principal: string): boolean {
  return event.type !== 'task' || event.task.principal === principal;
}
