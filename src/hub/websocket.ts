// The WebSocket framing (RFC 6455) the relay link uses: enough of it for two ends that both
// speak binary messages, with every rule a receiver must check. No extensions are offered or
// accepted, so the reserved bits are always zero. A client masks what it sends and a server
// never does (§5.1); each end refuses frames masked the wrong way.

import { createHash, randomFillSync } from 'node:crypto';

export const OPCODE = { continuation: 0x0, text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa } as const;

/** Close codes used here (§7.4.1). */
export const CLOSE = { normal: 1000, goingAway: 1001, protocolError: 1002, tooBig: 1009 } as const;

/** A broken rule of the framing: the connection is closed with `code`. */
export class WebSocketError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** `Sec-WebSocket-Accept` for a client's `Sec-WebSocket-Key` (§4.2.2). */
export function acceptKey(key: string): string {
  return createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
}

/** A `Sec-WebSocket-Key`: 16 random bytes in base64. */
export function newKey(): string {
  return randomFillSync(Buffer.alloc(16)).toString('base64');
}

/** True when `key` is 16 bytes in base64, as §4.1 says a client sends. */
export function validKey(key: string | undefined): key is string {
  return key !== undefined && /^[A-Za-z0-9+/]{22}==$/.test(key);
}

/** Masks for the client's frames, taken from a pool of random bytes refilled when used up. */
const maskPool = Buffer.alloc(4096);
let maskAt = maskPool.length;

function nextMask(): Buffer {
  if (maskAt === maskPool.length) {
    randomFillSync(maskPool);
    maskAt = 0;
  }
  maskAt += 4;
  return maskPool.subarray(maskAt - 4, maskAt);
}

/** XORs `data` with the four bytes of `mask`, in place. */
function applyMask(data: Buffer, mask: Buffer): void {
  const m0 = mask[0] as number;
  const m1 = mask[1] as number;
  const m2 = mask[2] as number;
  const m3 = mask[3] as number;
  const whole = data.length & ~3;
  for (let i = 0; i < whole; i += 4) {
    data[i] = (data[i] as number) ^ m0;
    data[i + 1] = (data[i + 1] as number) ^ m1;
    data[i + 2] = (data[i + 2] as number) ^ m2;
    data[i + 3] = (data[i + 3] as number) ^ m3;
  }
  for (let i = whole; i < data.length; i += 1) data[i] = (data[i] as number) ^ (mask[i & 3] as number);
}

/**
 * One whole frame (FIN set) carrying `payload`, as the parts to write: its header, then the
 * payload itself (masked in place when `masked`, which a client must do).
 */
export function encodeFrame(opcode: number, payload: Buffer, masked: boolean): Buffer[] {
  const length = payload.length;
  const extra = length < 126 ? 0 : length < 0x10000 ? 2 : 8;
  const header = Buffer.allocUnsafe(2 + extra + (masked ? 4 : 0));
  header[0] = 0x80 | opcode;
  header[1] = (masked ? 0x80 : 0) | (extra === 0 ? length : extra === 2 ? 126 : 127);
  if (extra === 2) header.writeUInt16BE(length, 2);
  else if (extra === 8) header.writeBigUInt64BE(BigInt(length), 2);
  if (masked) {
    const mask = nextMask();
    mask.copy(header, 2 + extra);
    applyMask(payload, mask);
  }
  return [header, payload];
}

export interface FrameReaderOptions {
  /** True at a server: every frame must be masked; false at a client: none may be. */
  expectMasked: boolean;
  /** The largest message taken, its fragments together; a larger one closes with 1009. */
  maxMessageBytes: number;
}

export interface Message {
  opcode: number;
  payload: Buffer;
}

/**
 * Reads frames from the bytes of a connection as they come, in any pieces: whole data messages
 * (fragments joined) and control frames. Throws WebSocketError at the first broken rule, before
 * it waits for the rest of a frame that is already too large.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private size = 0;
  private fragments: Buffer[] = [];
  private fragmentsSize = 0;
  private fragmentOpcode = -1;

  constructor(private readonly options: FrameReaderOptions) {}

  push(chunk: Buffer): Message[] {
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.size += chunk.length;
    }
    const messages: Message[] = [];
    for (;;) {
      const message = this.next();
      if (message === undefined) return messages;
      if (message !== null) messages.push(message);
    }
  }

  /** The next message or control frame; null for a fragment taken; undefined: more bytes needed. */
  private next(): Message | null | undefined {
    if (this.size < 2) return undefined;
    const head = this.peek(Math.min(this.size, 14));
    const b0 = head[0] as number;
    const b1 = head[1] as number;
    const fin = (b0 & 0x80) !== 0;
    const opcode = b0 & 0x0f;
    if ((b0 & 0x70) !== 0) throw new WebSocketError(CLOSE.protocolError, 'a frame set a reserved bit, but no extension was agreed');
    const control = opcode >= 0x8;
    if (control ? opcode > 0xa : opcode > 0x2) throw new WebSocketError(CLOSE.protocolError, `a frame has the unknown opcode ${opcode}`);
    if ((b1 & 0x80) === 0 ? this.options.expectMasked : !this.options.expectMasked) {
      throw new WebSocketError(CLOSE.protocolError, this.options.expectMasked ? 'a client sent a frame without a mask' : 'a server sent a masked frame');
    }
    const short = b1 & 0x7f;
    const extra = short === 126 ? 2 : short === 127 ? 8 : 0;
    const headerSize = 2 + extra + (this.options.expectMasked ? 4 : 0);
    if (head.length < headerSize) return undefined;
    let length = short;
    if (extra === 2) length = head.readUInt16BE(2);
    else if (extra === 8) {
      const big = head.readBigUInt64BE(2);
      if (big > BigInt(Number.MAX_SAFE_INTEGER)) throw new WebSocketError(CLOSE.tooBig, 'a frame declares a length beyond any message taken');
      length = Number(big);
    }
    if (control && (!fin || length > 125)) throw new WebSocketError(CLOSE.protocolError, 'a control frame is fragmented or longer than 125 bytes');
    if (!control) {
      if (opcode === OPCODE.continuation ? this.fragmentOpcode === -1 : this.fragmentOpcode !== -1) {
        throw new WebSocketError(CLOSE.protocolError, opcode === OPCODE.continuation ? 'a continuation frame came with no message to continue' : 'a new message began before the last one ended');
      }
      if (this.fragmentsSize + length > this.options.maxMessageBytes) {
        throw new WebSocketError(CLOSE.tooBig, `a message is over the ${this.options.maxMessageBytes} bytes taken`);
      }
    }
    if (this.size < headerSize + length) return undefined;
    const mask = this.options.expectMasked ? Buffer.from(head.subarray(2 + extra, headerSize)) : undefined;
    this.take(headerSize);
    const payload = this.take(length);
    if (mask !== undefined) applyMask(payload, mask);
    if (control) return { opcode, payload };
    if (fin && opcode !== OPCODE.continuation) return { opcode, payload };
    if (opcode !== OPCODE.continuation) this.fragmentOpcode = opcode;
    this.fragments.push(payload);
    this.fragmentsSize += length;
    if (!fin) return null;
    const whole = { opcode: this.fragmentOpcode, payload: Buffer.concat(this.fragments, this.fragmentsSize) };
    this.fragments = [];
    this.fragmentsSize = 0;
    this.fragmentOpcode = -1;
    return whole;
  }

  /** The first `count` bytes (`count` at most what is buffered), left in place. */
  private peek(count: number): Buffer {
    const first = this.chunks[0] as Buffer;
    if (first.length >= count) return first;
    const out = Buffer.allocUnsafe(count);
    let filled = 0;
    for (const chunk of this.chunks) {
      filled += chunk.copy(out, filled, 0, Math.min(chunk.length, count - filled));
      if (filled === count) break;
    }
    return out;
  }

  /** Removes the first `count` bytes and gives them as a buffer of their own. */
  private take(count: number): Buffer {
    this.size -= count;
    const first = this.chunks[0];
    if (first !== undefined && first.length >= count) {
      if (first.length === count) this.chunks.shift();
      else this.chunks[0] = first.subarray(count);
      return first.subarray(0, count);
    }
    const out = Buffer.allocUnsafe(count);
    let filled = 0;
    while (filled < count) {
      const chunk = this.chunks[0] as Buffer;
      const used = Math.min(chunk.length, count - filled);
      chunk.copy(out, filled, 0, used);
      filled += used;
      if (used === chunk.length) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(used);
    }
    return out;
  }
}
