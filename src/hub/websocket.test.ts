import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acceptKey, CLOSE, encodeFrame, FrameReader, OPCODE, WebSocketError } from './websocket.js';

const serverReader = (maxMessageBytes = 1 << 20): FrameReader => new FrameReader({ expectMasked: true, maxMessageBytes });
const clientReader = (maxMessageBytes = 1 << 20): FrameReader => new FrameReader({ expectMasked: false, maxMessageBytes });

/** `bytes` cut at `cuts` (offsets, any order), as a connection may deliver them. */
function pieces(bytes: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const cut of [...at, bytes.length]) {
    out.push(bytes.subarray(from, cut));
    from = cut;
  }
  return out;
}

/** The code a reader closes with on `bytes`, or undefined when it takes them. */
function refusal(reader: FrameReader, bytes: Buffer): number | undefined {
  try {
    reader.push(bytes);
    return undefined;
  } catch (error) {
    if (!(error instanceof WebSocketError)) throw error;
    return error.code;
  }
}

describe('WebSocket framing', () => {
  it('computes the handshake answer of RFC 6455 §1.3', () => {
    expect(acceptKey('dGhlIHNhbXBsZSBub25jZQ==')).toBe('s3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
  });

  it('reads back what it writes, masked or not, however the bytes are cut', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 70_000 }), { minLength: 1, maxLength: 4 }), fc.boolean(), fc.array(fc.nat(), { maxLength: 8 }), (payloads, masked, cuts) => {
        const wire = Buffer.concat(payloads.flatMap((payload) => encodeFrame(OPCODE.binary, Buffer.from(payload), masked)));
        const reader = masked ? serverReader() : clientReader();
        const got = pieces(wire, cuts).flatMap((piece) => reader.push(piece));
        expect(got.map((message) => message.opcode)).toEqual(payloads.map(() => OPCODE.binary));
        expect(got.map((message) => [...message.payload])).toEqual(payloads.map((payload) => [...payload]));
      }),
      { numRuns: 200 },
    );
  });

  it('joins a fragmented message and passes a ping sent between its fragments', () => {
    const frame = (first: number, payload: string): Buffer => {
      const [header, body] = encodeFrame(0, Buffer.from(payload), true) as [Buffer, Buffer];
      header[0] = first;
      return Buffer.concat([header, body]);
    };
    const reader = serverReader();
    const got = reader.push(Buffer.concat([frame(OPCODE.binary, 'one '), frame(0x80 | OPCODE.ping, 'p'), frame(OPCODE.continuation, 'two '), frame(0x80 | OPCODE.continuation, 'three')]));
    expect(got.map((message) => [message.opcode, message.payload.toString()])).toEqual([
      [OPCODE.ping, 'p'],
      [OPCODE.binary, 'one two three'],
    ]);
  });

  it('refuses what RFC 6455 forbids, with the close code that says why', () => {
    const masked = (opcode: number, payload: Buffer): Buffer => Buffer.concat(encodeFrame(opcode, payload, true));
    const withFirst = (bytes: Buffer, first: number): Buffer => Buffer.concat([Buffer.from([first]), bytes.subarray(1)]);
    // The server reads masked frames only; the client unmasked only.
    expect(refusal(serverReader(), Buffer.concat(encodeFrame(OPCODE.binary, Buffer.from('x'), false)))).toBe(CLOSE.protocolError);
    expect(refusal(clientReader(), masked(OPCODE.binary, Buffer.from('x')))).toBe(CLOSE.protocolError);
    // A reserved bit (no extension was agreed), an unknown opcode.
    expect(refusal(serverReader(), withFirst(masked(OPCODE.binary, Buffer.from('x')), 0x80 | 0x40 | OPCODE.binary))).toBe(CLOSE.protocolError);
    expect(refusal(serverReader(), withFirst(masked(OPCODE.binary, Buffer.from('x')), 0x80 | 0x3))).toBe(CLOSE.protocolError);
    // A control frame that is fragmented or too long.
    expect(refusal(serverReader(), withFirst(masked(OPCODE.ping, Buffer.from('x')), OPCODE.ping))).toBe(CLOSE.protocolError);
    expect(refusal(serverReader(), masked(OPCODE.ping, Buffer.alloc(126)))).toBe(CLOSE.protocolError);
    // A continuation with nothing to continue, a new message inside a fragmented one.
    expect(refusal(serverReader(), withFirst(masked(OPCODE.binary, Buffer.from('x')), 0x80))).toBe(CLOSE.protocolError);
    expect(refusal(serverReader(), Buffer.concat([withFirst(masked(OPCODE.binary, Buffer.from('x')), OPCODE.binary), masked(OPCODE.binary, Buffer.from('y'))]))).toBe(CLOSE.protocolError);
  });

  it('refuses a message over the limit from its header, before its bytes come', () => {
    const header = encodeFrame(OPCODE.binary, Buffer.alloc(70_000), true)[0] as Buffer;
    expect(refusal(serverReader(65_536), header)).toBe(CLOSE.tooBig);
    const huge = Buffer.from([0x82, 0x80 | 127, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4]);
    expect(refusal(serverReader(), huge)).toBe(CLOSE.tooBig);
    // Fragments count together.
    const fragment = (first: number): Buffer => {
      const [head, body] = encodeFrame(0, Buffer.alloc(40_000), true) as [Buffer, Buffer];
      head[0] = first;
      return Buffer.concat([head, body]);
    };
    expect(refusal(serverReader(65_536), Buffer.concat([fragment(OPCODE.binary), fragment(OPCODE.continuation)]))).toBe(CLOSE.tooBig);
  });

  it('never throws anything but a WebSocketError, whatever the bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.boolean(), (bytes, server) => {
        expect(refusal(server ? serverReader(1024) : clientReader(1024), Buffer.from(bytes))).toSatisfy((code: number | undefined) => code === undefined || code === CLOSE.protocolError || code === CLOSE.tooBig);
      }),
      { numRuns: 3000 },
    );
  });
});
