import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LiteError } from '../errors.js';
import { decodeDownFrame, decodeUpFrame, encodeLinkFrame, MAX_FRAMES_PER_POST, parseUpFrames } from './frames.js';

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
