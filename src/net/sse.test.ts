import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isLiteError } from '../errors.js';
import { SseParser, readSse, sseComment, sseEvent, type SseEvent } from './sse.js';

const all = (chunks: readonly string[], max?: number): SseEvent[] => {
  const parser = new SseParser(max === undefined ? {} : { maxEventBytes: max });
  return chunks.flatMap((chunk) => parser.push(chunk));
};

/** Splits `text` at the given cut points (any split must give the same events). */
const split = (text: string, cuts: number[]): string[] => {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let last = 0;
  for (const p of points) {
    out.push(text.slice(last, p));
    last = p;
  }
  out.push(text.slice(last));
  return out;
};

describe('SseParser', () => {
  it('reads events, joins data lines, keeps the last id and skips comments', () => {
    const text = ': keep-alive\n\nevent: update\nid: 7\ndata: {"a":\ndata: 1}\n\ndata: second\n\n';
    expect(all([text])).toEqual([
      { event: 'update', data: '{"a":\n1}', id: '7' },
      { event: 'message', data: 'second', id: '7' },
    ]);
  });

  it('accepts CRLF, CR and LF line ends, a BOM, fields without a space or a value', () => {
    expect(all(['\ufeffdata:x\r\n\r\ndata\r\rdata: y\n\n'])).toEqual([
      { event: 'message', data: 'x', id: '' },
      { event: 'message', data: '', id: '' },
      { event: 'message', data: 'y', id: '' },
    ]);
  });

  it('drops an event the stream ends inside, as the format requires', () => {
    expect(all(['data: whole\n\ndata: half'])).toEqual([{ event: 'message', data: 'whole', id: '' }]);
  });

  it('gives the same events however the stream is cut into chunks', () => {
    const line = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 20 }).map((s) => `data: ${s.replace(/[\r\n]/g, '')}`),
      fc.constantFrom('', ': comment', 'event: status', 'id: 42', 'retry: 10'),
    );
    const ending = fc.constantFrom('\n', '\r\n', '\r');
    fc.assert(
      fc.property(fc.array(fc.tuple(line, ending), { maxLength: 30 }), fc.array(fc.nat(), { maxLength: 10 }), (lines, cuts) => {
        const text = lines.map(([l, e]) => l + e).join('');
        expect(all(split(text, cuts))).toEqual(all([text]));
      }),
      { numRuns: 3_000 },
    );
  });

  it('refuses an event over the limit with PEER_ERROR, whether in one line or many', () => {
    expect(() => all([`data: ${'x'.repeat(2000)}`], 1000)).toThrow(/over 1000 bytes/);
    const many = Array.from({ length: 100 }, () => `data: ${'y'.repeat(20)}\n`).join('');
    let error: unknown;
    try {
      all([many], 1000);
    } catch (e) {
      error = e;
    }
    expect(isLiteError(error, 'PEER_ERROR')).toBe(true);
  });

  it.each([
    ['a long comment', ': 0123456789abc\n\ndata: x\n\n', 12],
    ['a data line whose value fits but whose line does not', 'data: abcdefgh\n\n', 13],
  ])('judges %s the same whether it arrives whole or cut', (_what, text, at) => {
    const verdict = (chunks: string[]) => {
      try {
        return all(chunks, 10);
      } catch (error) {
        return isLiteError(error, 'PEER_ERROR') ? 'refused' : error;
      }
    };
    expect(verdict([text])).toBe('refused');
    expect(verdict([text.slice(0, at), text.slice(at)])).toBe('refused');
  });

  it('never throws anything but PEER_ERROR on hostile bytes', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 200 }), { maxLength: 20 }), (chunks) => {
        try {
          const events = all(chunks, 4096);
          for (const event of events) expect(typeof event.data).toBe('string');
        } catch (error) {
          expect(isLiteError(error, 'PEER_ERROR')).toBe(true);
        }
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('readSse', () => {
  it('decodes UTF-8 split across chunks', async () => {
    const bytes = Buffer.from('data: 你好，世界\n\n', 'utf8');
    async function* body() {
      for (const byte of bytes) yield Uint8Array.of(byte);
    }
    const events: SseEvent[] = [];
    for await (const event of readSse(body())) events.push(event);
    expect(events).toEqual([{ event: 'message', data: '你好，世界', id: '' }]);
  });
});

describe('sseEvent', () => {
  it('writes what the reader reads back, id and name included', () => {
    const value = { text: 'line one\nline two', n: 1 };
    const written = sseEvent(value, 7, 'update') + sseComment('keep-alive') + sseEvent([1, 2]);
    expect(written).toBe('id: 7\nevent: update\ndata: {"text":"line one\\nline two","n":1}\n\n: keep-alive\n\ndata: [1,2]\n\n');
    expect(all([written]).map((e) => ({ ...e, data: JSON.parse(e.data) as unknown }))).toEqual([
      { event: 'update', data: value, id: '7' },
      { event: 'message', data: [1, 2], id: '7' },
    ]);
  });

  it('refuses an id or a name that would start a field of its own', () => {
    expect(() => sseEvent({}, '1\ndata: x')).toThrow(/line break/);
    expect(() => sseEvent({}, undefined, 'a\rb')).toThrow(/line break/);
  });
});
