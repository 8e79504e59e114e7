// Token buckets by key (a principal, an address), in a table of bounded size: each key earns
// `perSecond` tokens up to `burst`, and a request spends one. A key whose bucket is full again
// is the same as one never seen, so idle buckets are dropped first when the table is full; an
// attacker who rotates addresses can only push out the least recently seen keys, never grow it.

/** How fast a caller may go: `perSecond` on average, `burst` at once. */
export interface Rate {
  perSecond: number;
  burst: number;
}

interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date, in ms of the table's clock. */
  at: number;
}

/** The default most keys a table holds. */
export const DEFAULT_MAX_KEYS = 10_000;

export class BucketTable {
  /** Least recently used first: a key taken from is moved to the end. */
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    readonly rate: Rate,
    private readonly now: () => number = Date.now,
    readonly maxKeys = DEFAULT_MAX_KEYS,
  ) {
    if (!(rate.perSecond > 0) || !(rate.burst >= 1)) throw new RangeError('a rate needs perSecond > 0 and burst >= 1');
  }

  get size(): number {
    return this.buckets.size;
  }

  /**
   * Spends a token of `key`: 0 when it had one, else the whole seconds until it has one again
   * (at least 1), for `Retry-After`.
   */
  take(key: string): number {
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      this.makeRoom(now);
      bucket = { tokens: this.rate.burst, at: now };
    } else {
      this.buckets.delete(key);
      bucket.tokens = this.filled(bucket, now);
      bucket.at = now;
    }
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.rate.perSecond));
  }

  private filled(bucket: Bucket, now: number): number {
    // A clock that goes back earns nothing, and takes nothing away.
    const earned = (Math.max(0, now - bucket.at) / 1000) * this.rate.perSecond;
    return Math.min(this.rate.burst, bucket.tokens + earned);
  }

  /** Below `maxKeys` again: first the idle buckets (full again) at the old end, then the oldest. */
  private makeRoom(now: number): void {
    if (this.buckets.size < this.maxKeys) return;
    for (const [key, bucket] of this.buckets) {
      if (this.filled(bucket, now) < this.rate.burst) break;
      this.buckets.delete(key);
    }
    while (this.buckets.size >= this.maxKeys) {
      const oldest = this.buckets.keys().next().value as string;
      this.buckets.delete(oldest);
    }
  }
}

/**
 * Reads a rate: `20/s`, `600/m`, `5000/h`, or a bare number per second.
 * Returns undefined for anything else.
 */
export function parseRate(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(?:\/(s|m|h))?$/.exec(text.trim());
  if (match === null) return undefined;
  const per = { s: 1, m: 60, h: 3600 }[(match[2] ?? 's') as 's' | 'm' | 'h'];
  const value = Number(match[1]) / per;
  return value > 0 && Number.isFinite(value) ? value : undefined;
}
