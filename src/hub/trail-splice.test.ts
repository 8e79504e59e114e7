import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HUB_EXTENSION, trailOf } from '../a2a/wire/hub-trail.js';
import { guardLoop } from './loop-guard.js';
import { splicePoint } from './trail-splice.js';

/** What the guard must do, said the slow way: parse the body, add the trail, write it out. */
function oracle(path: string, body: string, target: string): string {
  let envelope: unknown;
  try {
    envelope = JSON.parse(body);
  } catch {
    return body;
  }
  const holder = (path === '/jsonrpc' ? (envelope as { params?: unknown } | null)?.params : envelope) as { message?: unknown } | null | undefined;
  const message = typeof holder === 'object' && holder !== null ? holder.message : undefined;
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return body;
  const record = message as Record<string, unknown>;
  const metadata = typeof record.metadata === 'object' && record.metadata !== null && !Array.isArray(record.metadata) ? (record.metadata as Record<string, unknown>) : {};
  const trail = trailOf(metadata) ?? { hops: 0, trail: [] };
  if (trail.trail.includes(target) || trail.hops >= 8) throw new Error('loop');
  record.metadata = { ...metadata, [HUB_EXTENSION]: { hops: trail.hops + 1, trail: [...trail.trail, target] } };
  return JSON.stringify(envelope);
}

/** The guard's answer and the oracle's agree: both refuse, or both give the same JSON value (or the body as it was). */
function agrees(path: string, body: string): void {
  let expected: string;
  try {
    expected = oracle(path, body, 'T');
  } catch {
    expect(() => guardLoop(path, body, 'T')).toThrow('loop refused');
    return;
  }
  const got = guardLoop(path, body, 'T');
  if (expected === body) expect(got).toBe(body);
  else expect(JSON.parse(got)).toEqual(JSON.parse(expected));
}

const metadata = fc.oneof(
  fc.constant(undefined),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  fc.record({ [HUB_EXTENSION]: fc.record({ hops: fc.integer({ min: -1, max: 9 }), trail: fc.array(fc.constantFrom('a', 'b', 'T'), { maxLength: 3 }) }) }),
  fc.jsonValue({ maxDepth: 1 }),
);
const message = fc.oneof(
  fc.record({ messageId: fc.string({ maxLength: 6 }), parts: fc.array(fc.record({ text: fc.string({ maxLength: 20 }) }), { maxLength: 2 }), metadata }, { requiredKeys: ['messageId', 'parts'] }),
  fc.jsonValue({ maxDepth: 2 }),
);
const spacing = fc.constantFrom(undefined, 1, '\t');
/** Escaped or repeated spellings of the keys on the way to the trail, which a parser reads differently from their text. */
const twist = fc.constantFrom(
  (text: string) => text,
  (text: string) => text.replace('"message"', '"mess\\u0061ge"'),
  (text: string) => text.replace('"metadata":{', '"metadata":{"https:\\/\\/a2a-lite.dev\\/extensions\\/hub\\/v1":{"hops":1,"trail":["T"]},'),
  (text: string) => text.replace('"params":{', '"params":{"message":{"metadata":{}},'),
  (text: string) => text.replace(/}$/, ',"params":{"message":{}}}'),
  (text: string) => text.replace(/}$/, ',"message":{"parts":[]}}'),
  (text: string) => `${text} x`,
  (text: string) => text.slice(0, -1),
);

describe('the trail splice', () => {
  it('adds the trail as parsing and writing out the body would, for JSON-RPC and HTTP+JSON sends', () => {
    fc.assert(
      fc.property(message, spacing, twist, fc.jsonValue({ maxDepth: 1 }), (sent, indent, bend, extra) => {
        agrees('/jsonrpc', bend(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: sent, extra } }, null, indent)));
        agrees('/message:send', bend(JSON.stringify({ message: sent, configuration: extra }, null, indent)));
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees on any text at all, JSON or not', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((value) => JSON.stringify({ params: { message: value } }))), (text) => {
        agrees('/jsonrpc', text);
        agrees('/message:send', text);
      }),
      { numRuns: 2000 },
    );
  });

  it('finds the metadata or the message and leaves the parser the cases it cannot be sure of', () => {
    expect(splicePoint('{"params":{"message":{"metadata":{}}}}', true)).toEqual({ at: 34, inMetadata: true, empty: true });
    expect(splicePoint('{"message":{"parts":[]}}', false)).toEqual({ at: 12, inMetadata: false, empty: false });
    expect(splicePoint('{"params":{"message":"text"}}', true)).toBe('none');
    expect(splicePoint('{"params":{"message":{},"message":{}}}', true)).toBeUndefined();
    expect(splicePoint('{"params":{"mess\\u0061ge":{}}}', true)).toBeUndefined();
    expect(splicePoint('{"params":{"message":{"metadata":null}}}', true)).toBeUndefined();
    expect(splicePoint(`{"message":{"metadata":{"${HUB_EXTENSION}":{}}}}`, false)).toBeUndefined();
  });

  it('reads a long body in one pass: a 4 MiB text part', () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm', parts: [{ text: 'a"\\'.repeat(1 << 20) }] } } });
    const guarded = JSON.parse(guardLoop('/jsonrpc', body, 'T')) as { params: { message: { metadata: Record<string, unknown> } } };
    expect(guarded.params.message.metadata[HUB_EXTENSION]).toEqual({ hops: 1, trail: ['T'] });
  });
});
