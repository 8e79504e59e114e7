// An async iterable fed by pushes: how a stream or a subscriber receives a task's events in
// order, each as soon as it happens. Ending the iteration early (a client that went away)
// runs `onClose`, which unsubscribes.

export class EventQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | undefined;
  private closed = false;
  private readonly onClose: () => void;

  constructor(onClose: () => void = () => {}) {
    this.onClose = onClose;
  }

  push(item: T): void {
    if (this.closed) return;
    const waiting = this.waiting;
    if (waiting === undefined) {
      this.items.push(item);
    } else {
      this.waiting = undefined;
      waiting({ value: item, done: false });
    }
  }

  /** No more items: the consumer finishes after the ones already queued. */
  end(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose();
    this.waiting?.({ value: undefined, done: true });
    this.waiting = undefined;
  }

  get size(): number {
    return this.items.length;
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        const item = this.items.shift();
        if (item !== undefined) return Promise.resolve({ value: item, done: false });
        if (this.closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (this.waiting = resolve));
      },
      return: () => {
        this.items.length = 0;
        this.end();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
