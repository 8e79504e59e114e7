import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { overBytes, readBody, readText } from './body.js';

const webStream = (...chunks: string[]): ReadableStream<Uint8Array> => {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
};

describe('readBody', () => {
  it('reads a web stream, a node stream and an iterable whole, as UTF-8 cut anywhere', async () => {
    const bytes = Buffer.from('héllo wörld');
    const pieces = [bytes.subarray(0, 2), bytes.subarray(2, 3), bytes.subarray(3)];
    expect(await readBody(Readable.from(pieces), 100)).toBe('héllo wörld');
    expect(await readBody((async function* () { yield* pieces; })(), 100)).toBe('héllo wörld');
    expect(await readBody(webStream('a', 'b', 'c'), 100)).toBe('abc');
    expect(await readBody(null, 100)).toBe('');
  });

  it('stops at the limit, counting bytes, not characters', async () => {
    expect(await readBody(webStream('ab', 'cd'), 4)).toBe('abcd');
    expect(await readBody(webStream('ab', 'cde'), 4)).toBeUndefined();
    expect(await readBody(Readable.from([Buffer.from('ééé')]), 5)).toBeUndefined();
  });

  it('reads no further than the limit of a peer that never stops sending', async () => {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new Uint8Array(1024));
      },
    });
    expect(await readBody(endless, 10 * 1024)).toBeUndefined();
    expect(pulled).toBeLessThan(20);
  });

  it('reads a request a real server receives, and refuses one over the limit before it ends', async () => {
    const seen: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      void readBody(req, 1000).then((body) => {
        seen.push(body);
        res.end(body === undefined ? 'too large' : 'ok');
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const post = (body: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const req = request({ port, host: '127.0.0.1', method: 'POST' }, (res) => void readText(res, 100).then(resolve, reject));
        req.on('error', reject);
        req.end(body);
      });
    try {
      expect(await post('small')).toBe('ok');
      expect(await post('x'.repeat(5000))).toBe('too large');
      expect(seen).toEqual(['small', undefined]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('readText', () => {
  it('names what was too large, with the limit', async () => {
    await expect(readText(webStream('x'.repeat(20)), 10, 'the card')).rejects.toMatchObject({ code: 'INPUT_TOO_LARGE', message: 'the card is over 10 bytes' });
  });

  it('passes on a stream that breaks', async () => {
    const broken = new Readable({
      read() {
        this.destroy(new Error('socket hang up'));
      },
    });
    await expect(readText(broken, 10)).rejects.toThrow('socket hang up');
  });
});

describe('overBytes', () => {
  it('says what Buffer.byteLength says, for any text and any limit', () => {
    const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 60 }), fc.string({ unit: fc.constantFrom('a', 'é', '中', '\ud83d\ude00', '\ud800'), maxLength: 60 }));
    fc.assert(fc.property(text, fc.nat(200), (value, max) => overBytes(value, max) === Buffer.byteLength(value) > max), { numRuns: 2000 });
  });
});
