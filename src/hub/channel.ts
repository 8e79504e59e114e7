// An unbounded queue read as an async iterable: the relay's streams (to a connected agent, to
// a client reading a relayed stream, to an events watcher) are written by one side and read by
// the HTTP adapter on the other. A reader that stops (`return`) closes the channel, and tells
// whoever asked through `onClose`.

export class Channel<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private wake: (() => void) | undefined;
  private ended = false;
  private readonly closers: (() => void)[] = [];

  /** False once ended: by the writer (`end`) or by the reader going away. */
  get open(): boolean {
    return !this.ended;
  }

  /** Queues `item` for the reader; ignored once the channel is closed. */
  push(item: T): void {
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

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: async () => {
        for (;;) {
          const item = this.items.shift();
          if (item !== undefined) return { value: item, done: false };
          if (this.ended) return { value: undefined, done: true };
          await new Promise<void>((resolve) => (this.wake = resolve));
        }
      },
      return: () => {
        this.items.length = 0;
        this.end();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  private wakeReader(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
