// Mapping a stream of events (task events to wire objects, wire objects to SSE text) so that
// closing the mapped stream closes its source at once. An async generator cannot do this: its
// `return()` waits until the pending `await` of the source settles, which for a quiet task is
// its next event, and until then the task keeps the subscriber of a client long gone.

export interface MapEventsOptions<U, T = unknown> {
  /** Turns a failure of the source or of `fn` into one last event; without it the failure is thrown. */
  onError?: (error: unknown) => U;
  /** One last event after the source ends (not after `return()`), if it gives one. */
  onEnd?: () => U | undefined;
  /** Closes the stream when it fires, as `return()` does. */
  signal?: AbortSignal;
  /** True for the source event after which the stream ends (the source is closed, `onEnd` runs). */
  endsWith?: (event: T) => boolean;
}

/**
 * The events of `source`, each passed through `fn`. `return()` calls the source's `return()`
 * directly, even while a `next()` is pending; that `next()` then resolves as done.
 *
 * @example
 * const lines = mapEvents(taskEvents, (event) => sseEvent(eventToV1(event)), {
 *   onError: (error) => sseEvent(errorBody(error), undefined, 'error'),
 * });
 */
export function mapEvents<T, U>(source: AsyncIterable<T>, fn: (event: T) => U, options: MapEventsOptions<U, T> = {}): AsyncIterable<U> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<U> {
      const events = source[Symbol.asyncIterator]();
      const { onError, onEnd, signal, endsWith } = options;
      let finished = false;
      let ending = false;
      const settle = (): void => {
        finished = true;
        signal?.removeEventListener('abort', stop);
      };
      const close = async (): Promise<IteratorResult<U>> => {
        if (finished) return DONE;
        settle();
        await events.return?.();
        return DONE;
      };
      const stop = (): void => void close().catch(() => {});
      if (signal?.aborted) stop();
      else signal?.addEventListener('abort', stop, { once: true });

      return {
        async next() {
          if (finished) return DONE;
          if (ending) {
            await close();
            const tail = onEnd?.();
            return tail === undefined ? DONE : { value: tail, done: false };
          }
          let next: IteratorResult<T>;
          try {
            next = await events.next();
          } catch (error) {
            if (finished) return DONE;
            settle();
            if (onError === undefined) throw error;
            return { value: onError(error), done: false };
          }
          // Closed while waiting: whatever the source gave last is not sent.
          if (finished) return DONE;
          if (next.done === true) {
            settle();
            const tail = onEnd?.();
            return tail === undefined ? DONE : { value: tail, done: false };
          }
          try {
            const value = fn(next.value);
            if (endsWith?.(next.value) === true) ending = true;
            return { value, done: false };
          } catch (error) {
            // As `for await` does when its body throws: the source is closed, then the error goes on.
            await close();
            if (onError === undefined) throw error;
            return { value: onError(error), done: false };
          }
        },
        return: close,
      };
    },
  };
}

const DONE: IteratorReturnResult<undefined> = { value: undefined, done: true };
