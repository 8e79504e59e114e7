// An unbounded queue of text read as an async iterable: the relay's streams (to a connected
// agent, to a client reading a relayed stream, to an events watcher) are written by one side
// and read by the HTTP adapter on the other. What queued up while the reader was busy comes out
// as one piece: one socket write instead of one per event, which under load was the hub's
// largest cost. A reader that stops (`return`) closes the channel, and tells whoever asked
// through `onClose`.

export class Channel implements AsyncIterable<string> {
  private items: string[] = [];
  private wake: (() => void) | undefined;
  private ended = false;
  private readonly closers: (() => void)[] = [];
  private waking: NodeJS.Immediate | undefined;

  /**
   * `gather`: wake the reader only once the event loop has run every callback that is ready, so
   * that what many requests pushed in one turn is written at once.
   */
  constructor(private readonly gather = false) {}

  /** False once ended: by the writer (`end`) or by the reader going away. */
  get open(): boolean {
    return !this.ended;
  }

  /** Queues `item` for the reader; ignored once the channel is closed. */
  push(item: string): void {
    if (this.ended) return;
    this.items.push(item);
    this.wakeReader();
  }

  /** No more items: the reader gets what is queued, then the end. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.wakeReader();
    for (const closer of this.closers.splice(0)) closer();
  }

  /** Runs `closer` once the channel ends, whichever side ended it. */
  onClose(closer: () => void): void {
    if (this.ended) closer();
    else this.closers.push(closer);
  }

  [Symbol.asyncIterator](): AsyncIterator<string> {
    return {
      next: async () => {
        for (;;) {
          if (this.items.length > 0) {
            const items = this.items;
            this.items = [];
            return { value: items.length === 1 ? (items[0] as string) : items.join(''), done: false };
          }
          if (this.ended) return { value: undefined, done: true };
          await new Promise<void>((resolve) => (this.wake = resolve));
        }
      },
      return: () => {
        this.items = [];
        this.end();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  private wakeReader(): void {
    if (this.gather && !this.ended) {
      this.waking ??= setImmediate(() => {
        this.waking = undefined;
        this.wakeNow();
      });
      return;
    }
    this.wakeNow();
  }

  private wakeNow(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
