// What the instances of a hub cluster keep in their shared store besides the registry: which
// instances are alive (each holds a lease it renews), which instance holds each connected agent's
// link, and who holds each job's lease (the one instance that runs the periodic checks). The
// store is the truth; the bus only tells the others sooner. In memory here (several hubs in one
// process, for tests), in PostgreSQL in postgres-directory.ts.

import type { LinkKind } from '../relay.js';

/** An agent's link to an instance. */
export interface AgentLink {
  agentId: string;
  /** The instance holding it. */
  instance: string;
  kind: LinkKind;
  /** Larger for a later link: of two instances that both think they hold it, the larger wins. */
  epoch: number;
}

export interface HubDirectory {
  /**
   * Renews the lease of `instance` for `leaseMs` more. `fresh` when it had none running (it is
   * new, or its lease ran out: the others took its links for dead, and it must claim them
   * again); `alive`, every instance whose lease runs now, itself included.
   */
  renew(instance: string, leaseMs: number): Promise<{ fresh: boolean; alive: string[] }>;
  /** Ends the lease of `instance` and drops its links (it is stopping). */
  leave(instance: string): Promise<void>;
  /**
   * Records that `instance` holds the link of `agentId`; the link's epoch. A new connection
   * takes the link whoever held it (`takeOver`, the default: the agent's latest connection is
   * the one to use); without `takeOver`, only when no other instance alive holds it, else
   * undefined (an instance whose lease ran out claiming its links back).
   */
  link(agentId: string, instance: string, kind: LinkKind, takeOver?: boolean): Promise<number | undefined>;
  /** Drops the link of `agentId` if `instance` still holds it. */
  unlink(agentId: string, instance: string): Promise<void>;
  /** The link of `agentId`, when an instance alive holds it. */
  linkOf(agentId: string): Promise<AgentLink | undefined>;
  /** Every link held by an instance alive. */
  links(): Promise<AgentLink[]>;
  /** Takes or keeps the lease of job `job` for `instance` for `leaseMs`; true while it holds it. */
  lead(job: string, instance: string, leaseMs: number): Promise<boolean>;
  /** Forgets instances whose lease ran out more than `afterMs` ago, and their links. */
  sweep(afterMs: number): Promise<void>;
}

/** The directory of hubs in one process, sharing one MemoryHubStore. */
export class MemoryHubDirectory implements HubDirectory {
  private readonly leases = new Map<string, number>();
  private readonly held = new Map<string, AgentLink>();
  private readonly jobs = new Map<string, { holder: string; until: number }>();
  private epochs = 0;

  /** `now` is the clock leases are read against (tests move it). */
  constructor(private readonly now: () => number = Date.now) {}

  renew(instance: string, leaseMs: number): Promise<{ fresh: boolean; alive: string[] }> {
    const fresh = !this.alive(instance);
    this.leases.set(instance, this.now() + leaseMs);
    return Promise.resolve({ fresh, alive: [...this.leases.keys()].filter((id) => this.alive(id)) });
  }

  leave(instance: string): Promise<void> {
    this.leases.delete(instance);
    for (const [agentId, link] of this.held) if (link.instance === instance) this.held.delete(agentId);
    return Promise.resolve();
  }

  link(agentId: string, instance: string, kind: LinkKind, takeOver = true): Promise<number | undefined> {
    const holder = this.held.get(agentId)?.instance;
    if (!takeOver && holder !== undefined && holder !== instance && this.alive(holder)) return Promise.resolve(undefined);
    const epoch = (this.epochs += 1);
    this.held.set(agentId, { agentId, instance, kind, epoch });
    return Promise.resolve(epoch);
  }

  unlink(agentId: string, instance: string): Promise<void> {
    if (this.held.get(agentId)?.instance === instance) this.held.delete(agentId);
    return Promise.resolve();
  }

  linkOf(agentId: string): Promise<AgentLink | undefined> {
    const link = this.held.get(agentId);
    return Promise.resolve(link !== undefined && this.alive(link.instance) ? { ...link } : undefined);
  }

  links(): Promise<AgentLink[]> {
    return Promise.resolve([...this.held.values()].filter((link) => this.alive(link.instance)).map((link) => ({ ...link })));
  }

  lead(job: string, instance: string, leaseMs: number): Promise<boolean> {
    const lease = this.jobs.get(job);
    if (lease !== undefined && lease.holder !== instance && lease.until > this.now()) return Promise.resolve(false);
    this.jobs.set(job, { holder: instance, until: this.now() + leaseMs });
    return Promise.resolve(true);
  }

  sweep(afterMs: number): Promise<void> {
    for (const [instance, until] of this.leases) if (until + afterMs < this.now()) void this.leave(instance);
    return Promise.resolve();
  }

  private alive(instance: string): boolean {
    return (this.leases.get(instance) ?? 0) > this.now();
  }
}
