import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_TRACESTATE, traceContextInLite, traceContextOf } from './trace-context.js';
import { parse } from './parse.js';
import { validate } from './validate.js';

const GOOD = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('traceContextOf', () => {
  it.each([
    [GOOD, { traceparent: GOOD }],
    ['01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future', { traceparent: '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future' }],
    ['ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', undefined],
    ['00-00000000000000000000000000000000-00f067aa0ba902b7-01', undefined],
    ['00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01', undefined],
    ['00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01', undefined],
    [`${GOOD}-extra`, undefined],
    ['not a trace', undefined],
    ['', undefined],
    [`${GOOD}${' '.repeat(300)}`, undefined],
  ])('%s', (traceparent, expected) => {
    expect(traceContextOf(traceparent)).toEqual(expected);
  });

  it('keeps a tracestate within the limit and drops a longer or unprintable one, keeping the traceparent', () => {
    expect(traceContextOf(GOOD, 'a=1,b=2')).toEqual({ traceparent: GOOD, tracestate: 'a=1,b=2' });
    expect(traceContextOf(GOOD, `a=${'x'.repeat(MAX_TRACESTATE)}`)).toEqual({ traceparent: GOOD });
    expect(traceContextOf(GOOD, 'a=\u0000')).toEqual({ traceparent: GOOD });
    expect(traceContextOf(undefined, 'a=1')).toBeUndefined();
  });

  it('never throws and never gives back more than the limits, whatever the input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 600 }), fc.option(fc.string({ maxLength: 2000 }), { nil: undefined }), (parent, state) => {
        const read = traceContextOf(parent, state);
        if (read === undefined) return;
        expect(read.traceparent.length).toBeLessThanOrEqual(256);
        expect((read.tracestate ?? '').length).toBeLessThanOrEqual(MAX_TRACESTATE);
      }),
    );
  });
});

describe('trace context in a lite header', () => {
  it('reads traceparent= and tracestate= of the opening header', () => {
    expect(traceContextInLite(`[A2A:task id=t-1 traceparent=${GOOD} tracestate=v=1]\nhello`)).toEqual({ traceparent: GOOD, tracestate: 'v=1' });
    expect(traceContextInLite(`  [A2A:task id=t-1 traceparent=${GOOD}]`)).toEqual({ traceparent: GOOD });
  });

  it('ignores a malformed one, one that is not in the header, and text without a header', () => {
    expect(traceContextInLite('[A2A:task id=t-1 traceparent=garbage]\nhello')).toBeUndefined();
    expect(traceContextInLite(`hello traceparent=${GOOD}`)).toBeUndefined();
    expect(traceContextInLite(`[A2A:task id=t-1]\ntraceparent=${GOOD}`)).toBeUndefined();
    expect(traceContextInLite(`[A2A:task id=t-1 ${'x=1 '.repeat(2000)}traceparent=${GOOD}]`)).toBeUndefined();
  });

  it('never throws on any text', () => {
    fc.assert(fc.property(fc.string({ maxLength: 500 }), (tail) => void traceContextInLite(`[A2A:task traceparent=${tail}`)));
  });
});

describe('the validator and trace parameters', () => {
  it('allows traceparent and tracestate on every type, without a notice when well formed', () => {
    const problems = validate(parse(`[A2A:task id=t-1 traceparent=${GOOD} tracestate=v=1]\nhello`));
    expect(problems).toEqual([]);
    expect(validate(parse(`[A2A:status task=t-1 state=working traceparent=${GOOD}]`))).toEqual([]);
  });

  it('gives a notice, not an error, for a malformed one: the message stands without it', () => {
    expect(validate(parse('[A2A:task id=t-1 traceparent=zz]\nhello'))).toEqual([expect.objectContaining({ code: 'INVALID_TRACE_CONTEXT', level: 'notice', param: 'traceparent' })]);
    expect(validate(parse(`[A2A:task id=t-1 traceparent=${GOOD} tracestate=${'v'.repeat(600)}]`))).toEqual([expect.objectContaining({ code: 'INVALID_TRACE_CONTEXT', level: 'notice', param: 'tracestate' })]);
  });
});
