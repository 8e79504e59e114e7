// Each agent's health as the hub sees it, kept in memory: up or down, when it last gave a sign
// of life, a moving average of its latency, how many task requests it is working through, and
// failures in a row. Every change is published, so a watcher sees agents go down and come back.
// In a cluster each instance also holds what the others report (cluster/health-share.ts): an
// agent's health is then the latest word on it from any instance (the one holding its link, the
// one checking its card, one whose relay to it failed), with the load of every instance added up.

import type { AgentHealth, HubEvents } from './hub-events.js';

/** Weight of the newest measure in the moving average of latency. */
const ALPHA = 0.3;

const UNSEEN: AgentHealth = { up: false, activeTasks: 0, failures: 0, reason: 'not seen since the hub started' };

/** One instance's view of an agent: its health, and when it last learned whether the agent is up (ms since the epoch). */
export interface HealthView {
  health: AgentHealth;
  changedAt: number;
}

export class HealthBoard {
  private readonly health = new Map<string, AgentHealth>();
  /** When this instance last learned whether each agent is up: a sign of life, or it going down. */
  private readonly changedAt = new Map<string, number>();
  /** What the other instances of a cluster report, by instance. */
  private readonly reported = new Map<string, Map<string, HealthView>>();
  /** Agents whose load changed in this turn of the event loop, published once at its end. */
  private readonly loaded = new Set<string>();
  /** Told of each change of this instance's own view; `live` when it says more than the load. */
  onChange: ((agentId: string, live: boolean) => void) | undefined;

  constructor(
    private readonly events: HubEvents,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The agent's health: this instance's view, merged with the others' in a cluster. */
  of(agentId: string): AgentHealth {
    const own = this.health.get(agentId);
    if (this.reported.size === 0) return { ...(own ?? UNSEEN) };
    let best = own !== undefined && this.changedAt.has(agentId) ? own : undefined;
    let at = this.changedAt.get(agentId) ?? -Infinity;
    let active = own?.activeTasks ?? 0;
    for (const views of this.reported.values()) {
      const view = views.get(agentId);
      if (view === undefined) continue;
      active += view.health.activeTasks;
      if (view.changedAt > at) [best, at] = [view.health, view.changedAt];
    }
    return { ...(best ?? { ...UNSEEN, failures: own?.failures ?? 0 }), activeTasks: active };
  }

  /** This instance's own view of `agentId`, when it has one. */
  own(agentId: string): HealthView | undefined {
    const health = this.health.get(agentId);
    return health === undefined ? undefined : { health: { ...health }, changedAt: this.changedAt.get(agentId) ?? 0 };
  }

  /** The agents this instance has a view of. */
  ownAgents(): string[] {
    return [...this.health.keys()];
  }

  /** What instance `from` reports of `agentId`; the merged health is published when this is news. */
  report(from: string, agentId: string, view: HealthView): void {
    let views = this.reported.get(from);
    if (views === undefined) this.reported.set(from, (views = new Map()));
    const before = views.get(agentId);
    views.set(agentId, view);
    // Views are sent again now and then, to mend lost messages: the same one again is no event.
    if (before === undefined || before.changedAt !== view.changedAt || JSON.stringify(before.health) !== JSON.stringify(view.health)) this.publish(agentId, false);
  }

  /** Forgets what instance `from` reported (it stopped): the agents it spoke of are published again. */
  forgetInstance(from: string): void {
    const views = this.reported.get(from);
    if (views === undefined) return;
    this.reported.delete(from);
    for (const agentId of views.keys()) this.publish(agentId, false);
  }

  up(agentId: string, latencyMs?: number): void {
    const health = this.entry(agentId);
    const changed = !health.up || health.failures > 0;
    health.up = true;
    health.failures = 0;
    delete health.reason;
    const now = this.now();
    health.lastSeen = now.toISOString();
    this.changedAt.set(agentId, now.getTime());
    if (latencyMs !== undefined) health.latencyMs = Math.round(health.latencyMs === undefined ? latencyMs : ALPHA * latencyMs + (1 - ALPHA) * health.latencyMs);
    // Latency alone changes too often to publish every time; a watcher gets it with the next change.
    if (changed || latencyMs !== undefined) this.publish(agentId, true);
  }

  /** A failure: the agent is down after `limit` in a row (1: at once). */
  failed(agentId: string, reason: string, limit = 1): void {
    const health = this.entry(agentId);
    health.failures += 1;
    if (health.failures >= limit) {
      health.up = false;
      health.reason = reason;
      this.changedAt.set(agentId, this.now().getTime());
    }
    this.publish(agentId, true);
  }

  /**
   * A task request starts (+1) or ends (-1). Under load many start and end in one turn of the
   * event loop: the agent's load is published once, as it is at the end of that turn.
   */
  busy(agentId: string, delta: 1 | -1): void {
    const health = this.entry(agentId);
    health.activeTasks = Math.max(0, health.activeTasks + delta);
    if (this.loaded.size === 0) setImmediate(() => this.publishLoads());
    this.loaded.add(agentId);
  }

  private publishLoads(): void {
    for (const agentId of this.loaded) if (this.health.has(agentId)) this.publish(agentId, false, true);
    this.loaded.clear();
  }

  forget(agentId: string): void {
    this.health.delete(agentId);
    this.changedAt.delete(agentId);
    for (const views of this.reported.values()) views.delete(agentId);
  }

  private entry(agentId: string): AgentHealth {
    let health = this.health.get(agentId);
    if (health === undefined) {
      health = { up: false, activeTasks: 0, failures: 0 };
      this.health.set(agentId, health);
    }
    return health;
  }

  /** Publishes the agent's health; `live`/`load`: this instance's own view changed (passed on to the cluster). */
  private publish(agentId: string, live: boolean, load = false): void {
    this.events.publish({ type: 'agent.health', agentId, health: this.of(agentId) });
    if (live || load) this.onChange?.(agentId, live);
  }
}
