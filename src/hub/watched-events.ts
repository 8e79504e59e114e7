// A relayed event stream with eyes on it: the hub reads each chunk on its way to the client (for
// the tasks it sees) and learns when the stream is over (for an agent's load), without holding
// anything back or changing what the client gets.

export interface StreamHooks {
  /** Told each chunk as it passes. */
  chunk?(text: string): void;
  /** Run once, when the stream ends, fails or is abandoned by its reader. */
  end?(): void;
}

/** `events`, passing through unchanged, with `hooks` told as it goes. */
export function watchedEvents(events: AsyncIterable<string>, hooks: StreamHooks): AsyncIterable<string> {
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    hooks.end?.();
  };
  return {
    [Symbol.asyncIterator]: () => {
      const inner = events[Symbol.asyncIterator]();
      return {
        next: async () => {
          const next = await inner.next().catch((error: unknown) => {
            end();
            throw error;
          });
          if (next.done) end();
          else hooks.chunk?.(next.value);
          return next;
        },
        return: async () => {
          end();
          return (await inner.return?.()) ?? { value: undefined, done: true };
        },
      };
    },
  };
}
