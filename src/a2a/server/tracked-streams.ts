// The open streams of each caller: counted (for the cap on streams per caller) and closable
// by caller (a principal whose credential was withdrawn loses its streams at once). A stream
// closed this way ends as if it had ended on its own: the client sees the end of the stream,
// and what fed it is told to stop.

import type { HttpResponse } from '../../net/http-types.js';

interface Open {
  close(): void;
}

export class TrackedStreams {
  private readonly byCaller = new Map<string, Set<Open>>();

  /** How many streams `caller` holds open. */
  count(caller: string): number {
    return this.byCaller.get(caller)?.size ?? 0;
  }

  /** `response` with its stream, if it has one, counted as `caller`'s until it ends. */
  track(caller: string, response: HttpResponse): HttpResponse {
    if (!('events' in response)) return response;
    return { ...response, events: this.events(caller, response.events) };
  }

  /** Ends every stream of `callers`; returns how many were open. */
  close(callers: Iterable<string>): number {
    let closed = 0;
    for (const caller of callers) {
      for (const open of [...(this.byCaller.get(caller) ?? [])]) {
        open.close();
        closed += 1;
      }
    }
    return closed;
  }

  /** `events` counted as `caller`'s while they are read (a stream of another binding: gRPC). */
  events<T>(caller: string, events: AsyncIterable<T>): AsyncIterable<T> {
    const streams = this.byCaller;
    return {
      [Symbol.asyncIterator](): AsyncIterator<T> {
        const inner = events[Symbol.asyncIterator]();
        let over = false;
        let cut: (() => void) | undefined;
        const open: Open = {
          close: () => {
            finish();
            cut?.();
            void inner.return?.()?.catch(() => undefined);
          },
        };
        const finish = (): void => {
          if (over) return;
          over = true;
          const set = streams.get(caller);
          set?.delete(open);
          if (set?.size === 0) streams.delete(caller);
        };
        const set = streams.get(caller) ?? new Set<Open>();
        set.add(open);
        streams.set(caller, set);
        const done: IteratorResult<T> = { done: true, value: undefined };
        return {
          next: () => {
            if (over) return Promise.resolve(done);
            return new Promise<IteratorResult<T>>((resolve, reject) => {
              // Closed while waiting: the reader learns at once that the stream is over.
              cut = () => resolve(done);
              inner.next().then(
                (result) => {
                  cut = undefined;
                  if (result.done === true) finish();
                  resolve(over ? done : result);
                },
                (error: unknown) => {
                  cut = undefined;
                  finish();
                  reject(error);
                },
              );
            });
          },
          return: async () => {
            finish();
            await inner.return?.();
            return done;
          },
        };
      },
    };
  }
}
