import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LiteError } from '../errors.js';
import { BATCH_BYTES, LENGTH_BYTES, packFrames, unpackFrames } from './link-batch.js';

/** The message `frames` make, counted as the link counts them. */
const pack = (frames: readonly Buffer[]): Buffer => packFrames(frames, frames.reduce((sum, frame) => sum + LENGTH_BYTES + frame.length, 0));

/** A length prefix of `length`, as raw bytes. */
const prefix = (length: number): Buffer => {
  const bytes = Buffer.alloc(LENGTH_BYTES);
  bytes.writeUInt32BE(length);
  return bytes;
};

describe('a batch of frames', () => {
  it('lays each frame out behind its 4-byte big-endian length', () => {
    expect(pack([Buffer.from('ab'), Buffer.alloc(0), Buffer.from('c')])).toEqual(Buffer.from([0, 0, 0, 2, 0x61, 0x62, 0, 0, 0, 0, 0, 0, 0, 1, 0x63]));
  });

  it('reads back every batch it writes, frames whole and in order, empty ones included', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 300 }), { minLength: 1, maxLength: 40 }), (arrays) => {
        const frames = arrays.map((bytes) => Buffer.from(bytes));
        expect(unpackFrames(pack(frames))).toEqual(frames);
      }),
      { numRuns: 500 },
    );
  });

  it('reads back a frame larger than a batch, alone in its message', () => {
    const large = Buffer.alloc(3 * BATCH_BYTES, 7);
    const frames = unpackFrames(pack([large]));
    expect(frames).toHaveLength(1);
    expect(frames[0]?.equals(large)).toBe(true);
  });

  it.each([
    ['an empty message', Buffer.alloc(0), 'a batch is empty: it holds one frame or more'],
    ['a message shorter than a length', Buffer.from([0, 0]), "the batch has 2 bytes, too few for a frame's length"],
    ['a length past the end', Buffer.concat([prefix(10), Buffer.from('short')]), 'frame 0 of the batch says 10 bytes, past the end (5 left)'],
    ['a second frame cut short', Buffer.concat([prefix(1), Buffer.from('a'), prefix(4), Buffer.from('ab')]), 'frame 1 of the batch says 4 bytes, past the end (2 left)'],
    ['bytes trailing the last frame', Buffer.concat([prefix(1), Buffer.from('a'), Buffer.from([0, 0, 0])]), "the batch has 3 bytes after frame 0, too few for a frame's length"],
    ['a length of 4 GiB less one', Buffer.concat([prefix(0xffffffff), Buffer.from('x')]), 'frame 0 of the batch says 4294967295 bytes, past the end (1 left)'],
    ['several frames past the batch limit', pack([Buffer.alloc(BATCH_BYTES), Buffer.from('a')]), `a batch of ${BATCH_BYTES + 9} bytes holds one frame alone (several take at most ${BATCH_BYTES})`],
  ])('refuses %s, naming what is wrong', (_name, message, words) => {
    expect(() => unpackFrames(message)).toThrow(new LiteError('INVALID_PARAMS', words));
  });

  it('takes a batch of exactly the limit', () => {
    const frames = [Buffer.alloc(BATCH_BYTES - 2 * LENGTH_BYTES - 1, 1), Buffer.from('z')];
    const message = pack(frames);
    expect(message.length).toBe(BATCH_BYTES);
    const back = unpackFrames(message);
    expect(back.map((frame) => frame.length)).toEqual([BATCH_BYTES - 2 * LENGTH_BYTES - 1, 1]);
    expect(back[0]?.equals(frames[0] as Buffer) && back[1]?.equals(frames[1] as Buffer)).toBe(true);
  });

  it('never fails with anything but INVALID_PARAMS, and what it takes it reads exactly, whatever the bytes', () => {
    const lengthy = fc.tuple(fc.integer({ min: 0, max: 40 }), fc.uint8Array({ maxLength: 40 })).map(([length, rest]) => Buffer.concat([prefix(length), Buffer.from(rest)]));
    fc.assert(
      fc.property(fc.array(fc.oneof(lengthy, fc.uint8Array({ maxLength: 12 }).map((bytes) => Buffer.from(bytes))), { maxLength: 6 }), (parts) => {
        const message = Buffer.concat(parts);
        let frames: Buffer[];
        try {
          frames = unpackFrames(message);
        } catch (error) {
          expect(error).toBeInstanceOf(LiteError);
          expect((error as LiteError).code).toBe('INVALID_PARAMS');
          return;
        }
        expect(frames.length).toBeGreaterThan(0);
        expect(pack(frames)).toEqual(message);
      }),
      { numRuns: 3_000 },
    );
  });
});
