// The batched link's message (subprotocol a2a-lite-relay.v2): one WebSocket message carries one
// frame or several, each behind its length. `ws` costs about as much per message as the relay
// costs per frame, so the frames of one turn of the event loop go out as one message.
//
//   message = frame+                    one or more, nothing before, between or after
//   frame   = length payload            length: 4 bytes, big-endian, of the payload alone
//
// A message of two frames or more is at most BATCH_BYTES; a larger message holds one frame.
// That bounds what a single message of small frames makes the receiver do at once, as `ws`
// bounds it for separate messages by reading a socket a chunk at a time.

import { LiteError } from '../errors.js';

/** The most bytes a message of two frames or more may have (length prefixes included). */
export const BATCH_BYTES = 64 * 1024;

/** The bytes in front of each frame: its length, 32 bits big-endian. */
export const LENGTH_BYTES = 4;

/**
 * The message holding `frames` in order; `bytes` is their length with a prefix each, as the
 * sender counted while gathering them (one allocation, each frame copied once).
 */
export function packFrames(frames: readonly Buffer[], bytes: number): Buffer {
  const message = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (const frame of frames) {
    message.writeUInt32BE(frame.length, at);
    message.set(frame, at + LENGTH_BYTES);
    at += LENGTH_BYTES + frame.length;
  }
  return message;
}

/**
 * The frames of `message`, each a view of its bytes (nothing copied); INVALID_PARAMS naming
 * what is wrong before any frame is given, so that a broken message is taken whole or not at all.
 */
export function unpackFrames(message: Buffer): Buffer[] {
  if (message.length === 0) throw new LiteError('INVALID_PARAMS', 'a batch is empty: it holds one frame or more');
  const frames: Buffer[] = [];
  for (let at = 0; at < message.length; ) {
    const left = message.length - at;
    if (left < LENGTH_BYTES) throw new LiteError('INVALID_PARAMS', `the batch has ${left} bytes${frames.length === 0 ? '' : ` after frame ${frames.length - 1}`}, too few for a frame's length`);
    const length = message.readUInt32BE(at);
    if (length > left - LENGTH_BYTES) throw new LiteError('INVALID_PARAMS', `frame ${frames.length} of the batch says ${length} bytes, past the end (${left - LENGTH_BYTES} left)`);
    at += LENGTH_BYTES + length;
    frames.push(message.subarray(at - length, at));
    // Checked at the first frame, before a large message is cut into many small views.
    if (message.length > BATCH_BYTES && at < message.length) throw new LiteError('INVALID_PARAMS', `a batch of ${message.length} bytes holds one frame alone (several take at most ${BATCH_BYTES})`);
  }
  return frames;
}
