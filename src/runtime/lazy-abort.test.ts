import { describe, expect, it } from 'vitest';
import { LazyAbort } from './lazy-abort.js';

describe('LazyAbort', () => {
  it('behaves as an AbortController whether the signal is read before or after the abort', () => {
    const early = new LazyAbort();
    const signal = early.signal;
    let fired = 0;
    signal.addEventListener('abort', () => (fired += 1));
    early.abort('first');
    early.abort('second');
    expect([signal.aborted, signal.reason, fired]).toEqual([true, 'first', 1]);

    const late = new LazyAbort();
    late.abort('first');
    late.abort('second');
    expect([late.signal.aborted, late.signal.reason]).toEqual([true, 'first']);
    expect(late.signal).toBe(late.signal);

    const never = new LazyAbort();
    expect(never.signal.aborted).toBe(false);
  });
});
