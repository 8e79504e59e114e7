// A relayed stream that came from another instance, on its way to the client: a Channel that
// counts what waits in it. Past its bound the stream is ended (the client resubscribes, as after
// any cut) rather than held: a client that stops reading must not make the hub hold an agent's
// output without end.

import { Channel } from '../channel.js';

export class QueuedStream {
  private readonly channel = new Channel();
  /** Characters pushed and not yet read. */
  private queued = 0;

  /** `maxQueued`: the most characters that may wait; `overflow` is told when more came. */
  constructor(
    private readonly maxQueued: number,
    private readonly overflow: () => void,
  ) {}

  get open(): boolean {
    return this.channel.open;
  }

  push(data: string): void {
    if (!this.channel.open) return;
    this.queued += data.length;
    if (this.queued > this.maxQueued) {
      this.channel.end();
      this.overflow();
      return;
    }
    this.channel.push(data);
  }

  end(): void {
    this.channel.end();
  }

  /** Runs `closer` once the stream ends, whichever side ended it. */
  onClose(closer: () => void): void {
    this.channel.onClose(closer);
  }

  /** The stream as its client reads it. */
  get events(): AsyncIterable<string> {
    return {
      [Symbol.asyncIterator]: () => {
        const inner = this.channel[Symbol.asyncIterator]();
        return {
          next: async () => {
            const next = await inner.next();
            if (next.done !== true) this.queued -= next.value.length;
            return next;
          },
          return: async () => (await inner.return?.()) ?? { value: undefined, done: true },
        };
      },
    };
  }
}
