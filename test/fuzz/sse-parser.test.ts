// Fuzzing the SSE reader: any text, cut into chunks anywhere (between a CR and its LF, inside a
// surrogate pair), gives the events a plain reading of the WHATWG format gives, whatever the
// cuts; an event over the limit is refused with PEER_ERROR, again whatever the cuts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SseParser, type SseEvent } from '../../src/net/sse.js';
import { isLiteError } from '../../src/errors.js';
import { check, expectSame } from './expect-fast.js';
import { cut, hostileText, words } from './hostile-text.js';
import { fuzzOptions, fuzzTarget, fuzzTimeout } from './runs.js';

/**
 * The format read the simple way, the whole text at once: lines end at CRLF, CR or LF; an event
 * (its lines up to the empty line that ends it, each counted with its line end, and the line the
 * text ends inside) may hold at most `max` UTF-16 code units.
 */
function reference(text: string, max: number): { events: SseEvent[]; tooLarge: boolean } {
  const lines = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).split(/\r\n|\r|\n/);
  const unfinished = lines.pop() as string;
  const events: SseEvent[] = [];
  let data: string[] = [];
  let type = '';
  let id = '';
  let size = 0;
  for (const line of lines) {
    if (line === '') {
      if (data.length > 0) events.push({ event: type || 'message', data: data.join('\n'), id });
      data = [];
      type = '';
      size = 0;
      continue;
    }
    size += line.length + 1;
    if (size > max) return { events, tooLarge: true };
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const name = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (name === 'data') data.push(value);
    else if (name === 'event') type = value;
    else if (name === 'id' && !value.includes('\0')) id = value;
  }
  return { events, tooLarge: unfinished.length + size > max };
}

const field = fc.oneof(
  { arbitrary: words(5).map((w) => `data: ${w}`), weight: 5 },
  { arbitrary: fc.constantFrom('data', 'data:', 'data:  two spaces', 'event: status', 'event', 'id: 7', 'id: a\0b', 'id', 'retry: 10', ':', ': keep-alive', 'unknown: x', '\ufeffdata: bom'), weight: 3 },
  { arbitrary: words(3).map((w) => `event: ${w}`), weight: 1 },
  { arbitrary: words(3).map((w) => `id: ${w}`), weight: 1 },
  { arbitrary: words(4).map((w) => `: ${w}`), weight: 1 },
  { arbitrary: fc.constant(''), weight: 4 },
  { arbitrary: words(4), weight: 1 },
);
const end = fc.constantFrom('\n', '\n', '\n', '\r\n', '\r\n', '\r');
const stream = fc
  .tuple(fc.constantFrom('', '', '', '', '\ufeff'), fc.array(fc.tuple(field, end), { maxLength: 12 }), fc.oneof(fc.constant(''), field))
  .map(([bom, lines, tail]) => bom + lines.map(([l, e]) => l + e).join('') + tail);
const text = fc.oneof({ arbitrary: stream, weight: 5 }, { arbitrary: hostileText, weight: 1 });
const limit = fc.oneof({ arbitrary: fc.constant(16 * 1024 * 1024), weight: 2 }, { arbitrary: fc.integer({ min: 1, max: 120 }), weight: 1 });

describe('fuzz: the SSE reader', () => {
  it(
    'gives the same events for any cut of any text, and only PEER_ERROR for an event over the limit',
    () =>
      fuzzTarget('SSE reader', () => {
        fc.assert(
          fc.property(text, fc.array(fc.nat(), { maxLength: 8 }), limit, (input, points, max) => {
            const expected = reference(input, max);
            const parser = new SseParser({ maxEventBytes: max });
            const got: SseEvent[] = [];
            try {
              for (const chunk of cut(input, points)) for (const event of parser.push(chunk)) got.push(event);
            } catch (error) {
              if (!isLiteError(error, 'PEER_ERROR')) throw error;
              check(expected.tooLarge, 'refused only when an event is over the limit', { input, max });
              // What came before the refusal was right.
              expectSame(got, expected.events.slice(0, got.length));
              return;
            }
            if (expected.tooLarge) expect.fail(`an event over ${max} was not refused: ${JSON.stringify(input)}`);
            expectSame(got, expected.events);
          }),
          fuzzOptions(),
        );
      }),
    fuzzTimeout(400),
  );
});
