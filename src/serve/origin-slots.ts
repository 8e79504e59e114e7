// The push sender's limit on requests in flight to one webhook origin: a slot per request, and
// the waiters for a slot served first come, first served.

interface Origin {
  active: number;
  waiting: (() => void)[];
}

export class OriginSlots {
  private readonly origins = new Map<string, Origin>();

  /** `perOrigin`: requests in flight to one origin at once. */
  constructor(private readonly perOrigin: number) {}

  /** Waits for one of the origin's slots; at once when `free` (closing: nobody waits any more). */
  take(key: string, free = false): Promise<void> {
    let origin = this.origins.get(key);
    if (origin === undefined) {
      origin = { active: 0, waiting: [] };
      this.origins.set(key, origin);
    }
    if (origin.active < this.perOrigin || free) {
      origin.active += 1;
      return Promise.resolve();
    }
    const queue = origin.waiting;
    return new Promise((resolve) => queue.push(resolve));
  }

  /** Hands the slot to the next waiter, who keeps the count as it is. */
  give(key: string): void {
    const origin = this.origins.get(key);
    if (origin === undefined) return;
    const next = origin.waiting.shift();
    if (next !== undefined) return next();
    origin.active -= 1;
    if (origin.active <= 0) this.origins.delete(key);
  }

  /** Lets every waiter go (the sender is closing). */
  wakeAll(): void {
    for (const origin of this.origins.values()) for (const next of origin.waiting.splice(0)) next();
  }
}
