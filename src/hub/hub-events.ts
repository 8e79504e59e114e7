// The hub's live feed: every change a watcher (the console, a script) should see, in order,
// each with a number. `GET /hub/v1/events` streams them; a watcher that reconnects with
// Last-Event-ID gets those it missed while the hub still holds them (the last 1000).

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

export class HubEvents {
  private seq = 0;
  private readonly recent: { seq: number; line: string }[] = [];
  private readonly watchers = new Set<Channel<string>>();

  publish(event: HubEvent): void {
    const seq = ++this.seq;
    const line = `id: ${seq}\nevent: ${event.type}\ndata: ${JSON.stringify({ ...event, at: new Date().toISOString() })}\n\n`;
    this.recent.push({ seq, line });
    if (this.recent.length > KEPT) this.recent.shift();
    for (const watcher of this.watchers) watcher.push(line);
  }

  /**
   * A stream for one watcher: first `snapshot` (the state now, as an event of its own), or,
   * after `lastEventId`, the events it missed when the hub still holds them all; then every
   * new event. Ends when the watcher goes away.
   */
  watch(snapshot: () => unknown, lastEventId?: string): AsyncIterable<string> {
    const channel = new Channel<string>();
    const after = lastEventId === undefined || !/^\d+$/.test(lastEventId) ? undefined : Number(lastEventId);
    const oldest = this.recent[0]?.seq ?? this.seq + 1;
    if (after !== undefined && after <= this.seq && after + 1 >= oldest) {
      for (const { seq, line } of this.recent) if (seq > after) channel.push(line);
    } else {
      channel.push(`id: ${this.seq}\nevent: snapshot\ndata: ${JSON.stringify(snapshot())}\n\n`);
    }
    this.watchers.add(channel);
    channel.onClose(() => this.watchers.delete(channel));
    return channel;
  }

  /** Ends every watcher's stream (the hub is stopping). */
  close(): void {
    for (const watcher of this.watchers) watcher.end();
  }
}
