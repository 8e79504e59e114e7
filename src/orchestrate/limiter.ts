// A cap on how many subtasks of a run are at their agents at once (`--max-parallel`): a plain
// counting semaphore whose waiters are served first come, first served.

export class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  /** The most that were ever running at once (for tests and the benchmark). */
  peak = 0;

  constructor(readonly max: number) {}

  /** Runs `work` once a place is free, and frees it when `work` settles. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active += 1;
    this.peak = Math.max(this.peak, this.active);
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      // The place passes straight to the next waiter, so `active` never dips below the cap
      // while someone waits.
      if (next !== undefined) next();
      else this.active -= 1;
    }
  }
}
