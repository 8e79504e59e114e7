import { describe, expect, it } from 'vitest';
import type { HttpResponse } from '../../net/http-types.js';
import { TrackedStreams } from './tracked-streams.js';

/** A stream that yields what is pushed, and records whether it was told to stop. */
function source(): { events: AsyncIterable<string>; push: (value: string) => void; stopped: () => boolean } {
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  let stopped = false;
  async function* run(): AsyncGenerator<string> {
    try {
      for (;;) {
        while (queue.length > 0) yield queue.shift() as string;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    } finally {
      stopped = true;
    }
  }
  return { events: run(), push: (value) => (queue.push(value), wake?.()), stopped: () => stopped };
}

const streamOf = (response: HttpResponse): AsyncIterator<string> => ('events' in response ? response.events[Symbol.asyncIterator]() : expect.unreachable());

describe('TrackedStreams', () => {
  it('counts a caller’s streams while they are read, and forgets them when they end', async () => {
    const streams = new TrackedStreams();
    const one = source();
    const reader = streamOf(streams.track('alice', { status: 200, headers: {}, events: one.events }));
    expect(streams.count('alice')).toBe(1);
    one.push('a');
    expect(await reader.next()).toEqual({ done: false, value: 'a' });
    await reader.return?.();
    expect(streams.count('alice')).toBe(0);
    expect(one.stopped()).toBe(true);
  });

  it('ends a caller’s streams at once, even while a read waits, and leaves others alone', async () => {
    const streams = new TrackedStreams();
    const alices = source();
    const bobs = source();
    const alice = streamOf(streams.track('alice', { status: 200, headers: {}, events: alices.events }));
    const bob = streamOf(streams.track('bob', { status: 200, headers: {}, events: bobs.events }));
    const waiting = alice.next();
    expect(streams.close(['alice'])).toBe(1);
    expect(await waiting).toEqual({ done: true, value: undefined });
    expect(await alice.next()).toEqual({ done: true, value: undefined });
    expect(streams.count('alice')).toBe(0);
    bobs.push('still here');
    expect(await bob.next()).toEqual({ done: false, value: 'still here' });
    expect(streams.count('bob')).toBe(1);
  });

  it('leaves a whole answer as it is', () => {
    const answer = { status: 200, headers: {}, body: '{}' };
    expect(new TrackedStreams().track('alice', answer)).toBe(answer);
  });
});
