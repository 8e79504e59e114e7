// Health across a cluster: each instance sends its own view of agents' health on the bus (the
// instance holding an agent's link sees its pongs, the one leading the checks fetches the cards
// of agents at URLs, any instance counts the requests it relays), and merges what the others send
// (health.ts). Up and down go out at once; a change of load alone at most every `loadMs`, as one
// message for all that changed. Every view is sent again when a new instance asks, and now and
// then, so that a lost message is mended.

import type { Bus } from '../../cluster/bus.js';
import type { AgentHealth } from '../hub-events.js';
import type { HealthBoard } from '../health.js';
import { HEALTH, record, type HealthMessage } from './messages.js';

/** The most views in one message. */
const BATCH = 200;

export interface HealthShareOptions {
  bus: Bus;
  self: string;
  health: HealthBoard;
  /** How often a change of load alone is sent (default 100 ms). */
  loadMs?: number;
}

export class HealthShare {
  private readonly changed = new Set<string>();
  private soon: NodeJS.Immediate | undefined;
  private later: NodeJS.Timeout | undefined;
  private end: (() => void) | undefined;

  constructor(private readonly options: HealthShareOptions) {}

  async start(): Promise<void> {
    this.options.health.onChange = (agentId, live) => this.note(agentId, live);
    this.end = await this.options.bus.subscribe(HEALTH, (message) => this.heard(message));
  }

  /** Sends this instance's view of every agent it has one of. */
  announce(): void {
    this.send(this.options.health.ownAgents());
  }

  close(): void {
    this.options.health.onChange = undefined;
    this.end?.();
    if (this.soon !== undefined) clearImmediate(this.soon);
    clearTimeout(this.later);
  }

  private note(agentId: string, live: boolean): void {
    this.changed.add(agentId);
    if (live) this.soon ??= setImmediate(() => this.flush());
    else if (this.later === undefined) {
      this.later = setTimeout(() => this.flush(), this.options.loadMs ?? 100);
      this.later.unref();
    }
  }

  private flush(): void {
    if (this.soon !== undefined) clearImmediate(this.soon);
    clearTimeout(this.later);
    this.soon = undefined;
    this.later = undefined;
    const agents = [...this.changed];
    this.changed.clear();
    this.send(agents);
  }

  private send(agents: readonly string[]): void {
    const { bus, self, health } = this.options;
    let views: HealthMessage['views'] = [];
    for (const agentId of agents) {
      const view = health.own(agentId);
      if (view === undefined) continue;
      views.push({ agentId, ...view });
      if (views.length === BATCH) {
        bus.publish(HEALTH, { from: self, views } satisfies HealthMessage);
        views = [];
      }
    }
    if (views.length > 0) bus.publish(HEALTH, { from: self, views } satisfies HealthMessage);
  }

  private heard(message: unknown): void {
    const heard = record(message);
    if (heard === undefined || typeof heard.from !== 'string' || heard.from === this.options.self || !Array.isArray(heard.views)) return;
    for (const item of heard.views) {
      const view = record(item);
      const health = healthOf(view?.health);
      if (view === undefined || typeof view.agentId !== 'string' || typeof view.changedAt !== 'number' || health === undefined) continue;
      this.options.health.report(heard.from, view.agentId, { health, changedAt: view.changedAt });
    }
  }
}

/** An agent's health as an instance sent it, or undefined when it is not one. */
function healthOf(value: unknown): AgentHealth | undefined {
  const health = record(value);
  if (health === undefined || typeof health.up !== 'boolean' || typeof health.activeTasks !== 'number' || typeof health.failures !== 'number') return undefined;
  const out: AgentHealth = { up: health.up, activeTasks: health.activeTasks, failures: health.failures };
  if (typeof health.lastSeen === 'string') out.lastSeen = health.lastSeen;
  if (typeof health.latencyMs === 'number') out.latencyMs = health.latencyMs;
  if (typeof health.reason === 'string') out.reason = health.reason;
  return out;
}
