import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cloneTask, type Task } from './task.js';

const roundTrip = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;
const clone = (value: unknown): unknown => cloneTask(value as Task);

class Point {
  constructor(
    public x: number,
    public y?: number,
  ) {}
}

describe('cloneTask', () => {
  it('gives what a JSON round trip gives, for any JSON-like value', () => {
    const odd = fc.constantFrom<unknown>(undefined, Number.NaN, -0, Infinity, () => 1, Symbol('s'), new Date(0), new Map([[1, 2]]), new Point(1), { toJSON: () => 'x' });
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, fc.jsonValue(), odd, fc.array(tie('node')), fc.dictionary(fc.string(), tie('node'))),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        const task = { id: 't', payload: v };
        expect(clone(task)).toStrictEqual(roundTrip(task));
      }),
    );
  });

  it('shares nothing with the original', () => {
    const task: Task = {
      id: 't',
      contextId: 'c',
      status: { state: 'working', timestamp: '2026-01-01T00:00:00.000Z' },
      history: [{ messageId: 'm', role: 'user', parts: [{ kind: 'data', data: { deep: [{ a: 1 }] } }] }],
      artifacts: [],
    };
    const copy = cloneTask(task);
    expect(copy).toStrictEqual(task);
    ((copy.history[0]?.parts[0] as { data: { deep: { a: number }[] } }).data.deep[0] as { a: number }).a = 2;
    expect(task.history[0]?.parts[0]).toEqual({ kind: 'data', data: { deep: [{ a: 1 }] } });
  });

  it('handles what a plain walk would get wrong as JSON does', () => {
    const protoKey = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as unknown;
    expect(clone({ id: 't', protoKey })).toStrictEqual(roundTrip({ id: 't', protoKey }));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // eslint-disable-next-line no-sparse-arrays
    expect(clone({ id: 't', sparse: [1, , 3], nested: { when: new Date(0), point: new Point(1, 2) } })).toStrictEqual(
      // eslint-disable-next-line no-sparse-arrays
      roundTrip({ id: 't', sparse: [1, , 3], nested: { when: new Date(0), point: new Point(1, 2) } }),
    );
    let deep: unknown = 'leaf';
    for (let i = 0; i < 1000; i += 1) deep = [deep];
    expect(clone({ id: 't', deep })).toStrictEqual(roundTrip({ id: 't', deep }));
    const cyclic: Record<string, unknown> = { id: 't' };
    cyclic.self = cyclic;
    expect(() => clone(cyclic)).toThrow(TypeError);
    expect(() => clone({ id: 't', big: 1n })).toThrow(TypeError);
  });
});
