// Push deliveries across replicas that share one outbox: each replica sends only the deliveries
// it has claimed there (ClusterStore.claimDeliveries), so a notification goes out once, not once
// per replica. A replica renews its claims while it holds them; when it dies they run out, and a
// survivor's next sweep claims and sends what it left.
//
//   outbox write ──► claim ──► the ones not yet held here ──► the sender's lanes
//   every lease/3 ──► claim (renews what is held, takes what ran out) ──┘

import type { ClusterStore } from '../store/cluster-store.js';
import type { PendingDelivery } from '../store/push-store.js';

/**
 * Deliveries a sweep takes at most, its own claims handed back included, so that one replica
 * does not take the whole outbox (the store renews all its claims, however many, at each sweep).
 */
const CLAIM_BATCH = 1000;

export class PushClaims {
  /** The deliveries handed to the sender and not yet done, by `seq`. */
  private readonly held = new Set<number>();
  private readonly timer: NodeJS.Timeout;
  private claiming: Promise<void> | undefined;
  private again = false;
  private closed = false;

  constructor(
    private readonly store: ClusterStore,
    private readonly replica: string,
    private readonly leaseMs: number,
    private readonly schedule: (delivery: PendingDelivery) => void,
    private readonly log: (line: string) => void,
  ) {
    this.timer = setInterval(() => void this.claim(), Math.max(10, Math.floor(leaseMs / 3)));
    // A sweep alone does not keep the process alive.
    this.timer.unref();
  }

  /**
   * Claims what this replica may send now and hands the sender those it does not hold yet. One
   * claim at a time: a call while one runs makes it run once more. Never rejects.
   */
  claim(): Promise<void> {
    if (this.claiming !== undefined) {
      this.again = true;
      return this.claiming;
    }
    this.claiming = this.sweep().finally(() => (this.claiming = undefined));
    return this.claiming;
  }

  /** The sender is done with a delivery (sent, given up on, or dropped). */
  done(seq: number): void {
    this.held.delete(seq);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.claiming;
  }

  private async sweep(): Promise<void> {
    do {
      this.again = false;
      if (this.closed) return;
      try {
        for (const delivery of await this.store.claimDeliveries(this.replica, CLAIM_BATCH, this.leaseMs)) {
          if (this.held.has(delivery.seq)) continue;
          this.held.add(delivery.seq);
          this.schedule(delivery);
        }
      } catch (error) {
        this.log(`push: could not claim notifications to send: ${error instanceof Error ? error.message : String(error)}`);
        return;
      }
    } while (this.again);
  }
}
