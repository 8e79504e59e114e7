import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LiteError } from '../errors.js';
import { decodeDownFrame, decodeUpFrame, encodeLinkFrame, MAX_FRAMES_PER_POST, parseUpFrames, type DownFrame, type UpFrame } from './frames.js';
import { LENGTH_BYTES, packFrames, unpackFrames } from '../net/link-batch.js';

describe('parseUpFrames', () => {
  it('reads every kind of frame, and drops the headers that are the relay\'s own', () => {
    expect(
      parseUpFrames({
        frames: [
          { type: 'head', rid: 'r1', status: 200, headers: { 'Content-Type': 'text/event-stream', 'Content-Length': '9', 'Set-Cookie': 'a=b' } },
          { type: 'chunk', rid: 'r1', data: 'data: {}\n\n' },
          { type: 'end', rid: 'r1' },
          { type: 'response', rid: 'r2', status: 404, headers: {}, body: '{}' },
          { type: 'pong', seq: 7 },
        ],
      }),
    ).toEqual([
      { type: 'head', rid: 'r1', status: 200, headers: { 'content-type': 'text/event-stream' } },
      { type: 'chunk', rid: 'r1', data: 'data: {}\n\n' },
      { type: 'end', rid: 'r1' },
      { type: 'response', rid: 'r2', status: 404, headers: {}, body: '{}' },
      { type: 'pong', seq: 7 },
    ]);
  });

  it.each([
    [[], 'a relay post is {"frames": [...]}'],
    [{ frames: {} }, 'a relay post is {"frames": [...]}'],
    [{ frames: [7] }, 'frame 0 is not an object'],
    [{ frames: [{ type: 'pong', seq: 'x' }] }, 'frame 0: a pong carries the whole number "seq" of its ping'],
    [{ frames: [{ type: 'end', rid: '../x' }] }, 'frame 0: "rid" is the id of a relayed request'],
    [{ frames: [{ type: 'end', rid: 'a' }, { type: 'head', rid: 'a', status: 99, headers: {} }] }, 'frame 1: "status" is an HTTP status from 200 to 599'],
    [{ frames: [{ type: 'head', rid: 'a', status: 200, headers: { x: 'a\r\nb' } }] }, 'frame 0: header "x" is not a valid header'],
    [{ frames: [{ type: 'head', rid: 'a', status: 200, headers: { 'a b': 'c' } }] }, 'frame 0: header "a b" is not a valid header'],
    [{ frames: [{ type: 'chunk', rid: 'a', data: 5 }] }, 'frame 0: "data" is a string'],
    [{ frames: [{ type: 'upgrade', rid: 'a' }] }, 'frame 0: "type" is response, head, chunk, end or pong'],
  ])('refuses %j: %s', (value, message) => {
    expect(() => parseUpFrames(value)).toThrow(new LiteError('INVALID_PARAMS', message));
  });

  it('refuses a post of more frames than the limit', () => {
    const frames = Array.from({ length: MAX_FRAMES_PER_POST + 1 }, () => ({ type: 'end', rid: 'a' }));
    expect(() => parseUpFrames({ frames })).toThrow(/at most 1000 frames/);
  });

  it('never fails with anything but a LiteError, whatever JSON a connected agent posts', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.record({ frames: fc.array(fc.jsonValue(), { maxLength: 5 }) }), fc.record({ frames: fc.array(fc.record({ type: fc.constantFrom('head', 'chunk', 'end', 'response', 'pong'), rid: fc.string(), status: fc.jsonValue(), headers: fc.jsonValue(), data: fc.jsonValue(), body: fc.jsonValue(), seq: fc.jsonValue() }, { requiredKeys: ['type'] })) })), (value) => {
        try {
          parseUpFrames(value);
        } catch (error) {
          expect(error).toBeInstanceOf(LiteError);
        }
      }),
    );
  });
});

describe('frames on a WebSocket link', () => {
  const text = fc.string({ unit: 'grapheme', maxLength: 40 });
  const headers = fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/), fc.string({ maxLength: 20 }).filter((value) => !/[\r\n\0]/.test(value)), { maxKeys: 4 });

  it('reads back every frame it writes, bodies with newlines and quotes included', () => {
    const rid = fc.stringMatching(/^[A-Za-z0-9_-]{1,20}$/);
    fc.assert(
      fc.property(rid, text, text, headers, fc.integer({ min: 200, max: 599 }), (id, body, other, fields, status) => {
        const request = { type: 'request' as const, rid: id, method: 'POST', path: other, query: '', headers: fields, body, principal: other };
        expect(decodeDownFrame(encodeLinkFrame(request))).toEqual(request);
        for (const frame of [
          { type: 'response' as const, rid: id, status, headers: fields, body },
          { type: 'chunk' as const, rid: id, data: body },
          { type: 'end' as const, rid: id },
        ]) {
          expect(decodeUpFrame(encodeLinkFrame(frame))).toEqual(frame);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('refuses a message that is no frame with INVALID_PARAMS, whatever its bytes', () => {
    expect(() => decodeUpFrame(Buffer.from('not json\n'))).toThrow('a relay message starts with its frame as a JSON object');
    expect(() => decodeUpFrame(Buffer.from('{"type":"response","rid":"1","status":99,"headers":{}}\n'))).toThrow('"status" is an HTTP status');
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        try {
          decodeUpFrame(Buffer.from(bytes));
        } catch (error) {
          expect(error).toBeInstanceOf(LiteError);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('frames batched on a link (a2a-lite-relay.v2)', () => {
  const text = fc.string({ unit: 'grapheme', maxLength: 40 });
  const rid = fc.stringMatching(/^[A-Za-z0-9_-]{1,20}$/);
  // Names the relay keeps: it drops hop-by-hop ones and Set-Cookie from an agent's answer.
  const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/).filter((key) => !['connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'set-cookie'].includes(key));
  const headers = fc.dictionary(name, fc.string({ maxLength: 20 }).filter((value) => !/[\r\n\0]/.test(value)), { maxKeys: 4 });
  const status = fc.integer({ min: 200, max: 599 });
  const up: fc.Arbitrary<UpFrame> = fc.oneof(
    fc.record({ type: fc.constant('response' as const), rid, status, headers, body: text }),
    fc.record({ type: fc.constant('head' as const), rid, status, headers }),
    fc.record({ type: fc.constant('chunk' as const), rid, data: text }),
    fc.record({ type: fc.constant('end' as const), rid }),
    fc.record({ type: fc.constant('pong' as const), seq: fc.nat() }),
  );
  const down: fc.Arbitrary<DownFrame> = fc.oneof(
    fc.record({ type: fc.constant('request' as const), rid, method: fc.constantFrom('GET', 'POST'), path: text, query: text, headers, body: text, principal: text }),
    fc.record({ type: fc.constant('abort' as const), rid }),
    fc.record({ type: fc.constant('ping' as const), seq: fc.nat() }),
  );
  /** The frames as one batched message, and back, each read as a frame alone is. */
  const batched = (frames: readonly (UpFrame | DownFrame)[]): Buffer[] => {
    const payloads = frames.map((frame) => encodeLinkFrame(frame));
    return unpackFrames(packFrames(payloads, payloads.reduce((sum, payload) => sum + LENGTH_BYTES + payload.length, 0)));
  };

  it('reads back every frame of a batch as it was written, in order', () => {
    fc.assert(
      fc.property(fc.array(up, { minLength: 1, maxLength: 20 }), fc.array(down, { minLength: 1, maxLength: 20 }), (ups, downs) => {
        expect(batched(ups).map((payload) => decodeUpFrame(payload))).toEqual(ups);
        expect(batched(downs).map((payload) => decodeDownFrame(payload))).toEqual(downs);
      }),
      { numRuns: 300 },
    );
  });

  it('checks each frame of a batch as a frame alone is checked', () => {
    const [good, bad] = batched([{ type: 'end', rid: 'a' }, { type: 'head', rid: 'b', status: 99, headers: {} }]) as [Buffer, Buffer];
    expect(decodeUpFrame(good)).toEqual({ type: 'end', rid: 'a' });
    expect(() => decodeUpFrame(bad)).toThrow(new LiteError('INVALID_PARAMS', 'frame 0: "status" is an HTTP status from 200 to 599'));
  });

  it('never fails with anything but a LiteError, whatever bytes come as a batch', () => {
    const frame = fc.oneof(fc.uint8Array({ maxLength: 60 }).map((bytes) => Buffer.from(bytes)), up.map((value) => encodeLinkFrame(value)));
    const prefixed = fc.array(frame, { maxLength: 5 }).map((frames) => packFrames(frames, frames.reduce((sum, payload) => sum + LENGTH_BYTES + payload.length, 0)));
    fc.assert(
      fc.property(fc.oneof(prefixed, fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes))), (message) => {
        try {
          for (const payload of unpackFrames(message)) {
            decodeUpFrame(payload);
            decodeDownFrame(payload);
          }
        } catch (error) {
          expect(error).toBeInstanceOf(LiteError);
        }
      }),
      { numRuns: 2_000 },
    );
  });
});
