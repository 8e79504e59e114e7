// Each agent's health as the hub sees it, kept in memory: up or down, when it last gave a sign
// of life, a moving average of its latency, how many task requests it is working through, and
// failures in a row. Every change is published, so a watcher sees agents go down and come back.

import type { AgentHealth, HubEvents } from './hub-events.js';

/** Weight of the newest measure in the moving average of latency. */
const ALPHA = 0.3;

export class HealthBoard {
  private readonly health = new Map<string, AgentHealth>();
  /** Agents whose load changed in this turn of the event loop, published once at its end. */
  private readonly loaded = new Set<string>();

  constructor(
    private readonly events: HubEvents,
    private readonly now: () => Date = () => new Date(),
  ) {}

  of(agentId: string): AgentHealth {
    return { ...(this.health.get(agentId) ?? { up: false, activeTasks: 0, failures: 0, reason: 'not seen since the hub started' }) };
  }

  up(agentId: string, latencyMs?: number): void {
    const health = this.entry(agentId);
    const changed = !health.up || health.failures > 0;
    health.up = true;
    health.failures = 0;
    delete health.reason;
    health.lastSeen = this.now().toISOString();
    if (latencyMs !== undefined) health.latencyMs = Math.round(health.latencyMs === undefined ? latencyMs : ALPHA * latencyMs + (1 - ALPHA) * health.latencyMs);
    // Latency alone changes too often to publish every time; a watcher gets it with the next change.
    if (changed || latencyMs !== undefined) this.publish(agentId, health);
  }

  /** A failure: the agent is down after `limit` in a row (1: at once). */
  failed(agentId: string, reason: string, limit = 1): void {
    const health = this.entry(agentId);
    health.failures += 1;
    if (health.failures >= limit) {
      health.up = false;
      health.reason = reason;
    }
    this.publish(agentId, health);
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
    for (const agentId of this.loaded) {
      const health = this.health.get(agentId);
      if (health !== undefined) this.publish(agentId, health);
    }
    this.loaded.clear();
  }

  forget(agentId: string): void {
    this.health.delete(agentId);
  }

  private entry(agentId: string): AgentHealth {
    let health = this.health.get(agentId);
    if (health === undefined) {
      health = { up: false, activeTasks: 0, failures: 0 };
      this.health.set(agentId, health);
    }
    return health;
  }

  private publish(agentId: string, health: AgentHealth): void {
    this.events.publish({ type: 'agent.health', agentId, health: { ...health } });
  }
}
