// What MemoryTaskStore keeps for replicas that share it (ClusterStore): the replicas' leases, the
// runner of each task, the leaders of once-per-cluster jobs, the claims on outbox deliveries and
// the idempotency keys claimed for tasks not saved yet.
// Several agents in one process on one MemoryTaskStore are replicas of one agent this way.

import type { PendingDelivery } from './push-store.js';

interface Lease {
  holder: string;
  until: number;
}

/** A key a replica claimed for a task it has not saved yet. */
export interface KeyClaimant {
  key: string;
  owner: string | undefined;
  replica: string;
}

export class MemoryCluster {
  /** Each replica's lease: it is alive until then. */
  private readonly alive = new Map<string, number>();
  private readonly runners = new Map<string, string>();
  private readonly leaders = new Map<string, Lease>();
  /** Claims on outbox deliveries, by `seq`. */
  private readonly claims = new Map<number, Lease>();
  /** Keys claimed for tasks not saved yet, by task id. */
  private readonly claimants = new Map<string, KeyClaimant>();

  constructor(private readonly now: () => Date) {}

  heartbeat(replica: string, leaseMs: number): void {
    this.alive.set(replica, this.now().getTime() + leaseMs);
  }

  dead(): string[] {
    const now = this.now().getTime();
    return [...this.alive].filter(([, until]) => until <= now).map(([replica]) => replica);
  }

  forget(replica: string): void {
    this.alive.delete(replica);
  }

  /** Records the runner of a task, on the first save that names one; the task's key claim is done with. */
  ran(taskId: string, replica: string | undefined): void {
    this.claimants.delete(taskId);
    if (replica !== undefined && !this.runners.has(taskId)) this.runners.set(taskId, replica);
  }

  /** Records who claimed a key for task `taskId`, until the task is saved or the key given back. */
  claimedKey(taskId: string, claimant: KeyClaimant): void {
    this.claimants.set(taskId, claimant);
  }

  releasedKey(taskId: string): void {
    this.claimants.delete(taskId);
  }

  /** Forgets, and returns, the keys `replica` claimed for tasks it never saved, by task id. */
  takeClaimsOf(replica: string): [string, KeyClaimant][] {
    const taken = [...this.claimants].filter(([, claimant]) => claimant.replica === replica);
    for (const [taskId] of taken) this.claimants.delete(taskId);
    return taken;
  }

  runnerOf(taskId: string): string | undefined {
    return this.runners.get(taskId);
  }

  /** The tasks `replica` has run. */
  tasksOf(replica: string): string[] {
    return [...this.runners].filter(([, runner]) => runner === replica).map(([taskId]) => taskId);
  }

  /**
   * Takes up to `limit` of `outbox` (in `seq` order) that no other replica holds now, and renews
   * every claim `replica` holds beyond them.
   */
  claim(outbox: Iterable<PendingDelivery>, replica: string, limit: number, leaseMs: number): PendingDelivery[] {
    const now = this.now().getTime();
    const until = now + leaseMs;
    const taken: PendingDelivery[] = [];
    for (const delivery of outbox) {
      const held = this.claims.get(delivery.seq);
      const mine = held?.holder === replica;
      if (held !== undefined && !mine && held.until > now) continue;
      if (taken.length < limit) {
        this.claims.set(delivery.seq, { holder: replica, until });
        taken.push({ ...delivery });
      } else if (mine) held.until = until;
    }
    return taken;
  }

  lead(role: string, replica: string, leaseMs: number): boolean {
    const now = this.now().getTime();
    const leader = this.leaders.get(role);
    if (leader !== undefined && leader.holder !== replica && leader.until > now) return false;
    this.leaders.set(role, { holder: replica, until: now + leaseMs });
    return true;
  }

  /** Forgets what was kept for deleted tasks and deliveries. */
  forgetTask(taskId: string): void {
    this.runners.delete(taskId);
  }

  forgetDelivery(seq: number): void {
    this.claims.delete(seq);
  }

  clear(): void {
    this.alive.clear();
    this.runners.clear();
    this.leaders.clear();
    this.claims.clear();
    this.claimants.clear();
  }
}
