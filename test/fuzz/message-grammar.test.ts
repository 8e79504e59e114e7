// Fuzzing the message grammar. On any text, parse, parseAll and validate return well-formed
// results and never throw; whatever they accept as valid, format writes and parse reads back
// equal. On any message, format writes text that parse reads back equal, or refuses with
// INVALID_MESSAGE.
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { isLiteError } from '../../src/errors.js';
import { canonicalBody } from '../../src/protocol/body.js';
import { format } from '../../src/protocol/format.js';
import { messageOf } from '../../src/protocol/message.js';
import { parse, parseAll } from '../../src/protocol/parse.js';
import type { Message, ParsedMessage, Problem } from '../../src/protocol/types.js';
import { isValid, validate } from '../../src/protocol/validate.js';
import { headerLine, hostileText, paramValue, words } from './hostile-text.js';
import { check, expectSame } from './expect-fast.js';
import { fuzzOptions, fuzzTarget, fuzzTimeout } from './runs.js';

const CODE = /^[A-Z][A-Z_]+$/;

function expectWellFormed(message: ParsedMessage): void {
  check(typeof message.type === 'string', 'the type is a string', message);
  check(Object.getPrototypeOf(message.params) === Object.prototype, 'params is a plain object', message);
  check(Object.values(message.params).every((v) => typeof v === 'string'), 'every value is a string', message);
  check(typeof message.body === 'string', 'the body is a string', message);
  check(message.attachments.every((name) => name !== '' && name === name.trim()), 'file names are trimmed and not empty', message);
  check(message.warnings.every((w) => CODE.test(w.code) && typeof w.message === 'string'), 'warnings have a code and a message', message);
}

function expectProblems(problems: Problem[]): void {
  check(
    problems.every((p) => CODE.test(p.code) && (p.level === 'error' || p.level === 'notice') && typeof p.message === 'string'),
    'problems have a code, a level and a message',
    problems,
  );
}

/** format(m) is read back as m, with no repair; or format refuses with INVALID_MESSAGE. */
function expectRoundTrip(message: Message, mustFormat: boolean): void {
  let text: string;
  try {
    text = format(message);
  } catch (error) {
    if (mustFormat || !isLiteError(error, 'INVALID_MESSAGE')) throw error;
    return;
  }
  const back = parse(text);
  expectSame(messageOf(back), { ...messageOf(message as ParsedMessage), body: canonicalBody(message.body) });
  expectSame(back.warnings, []);
}

describe('fuzz: the message grammar', () => {
  it(
    'reads any text without throwing, and writes back what it accepts as valid',
    () =>
      fuzzTarget('message grammar: any text', () => {
        fc.assert(
          fc.property(hostileText, (text) => {
            const all = parseAll(text);
            const first = parse(text);
            expectWellFormed(first);
            const typed = all.find((m) => m.type !== 'plain') ?? all[0];
            if (typed !== undefined) expectSame(messageOf(first), messageOf(typed));
            for (const message of all) {
              expectWellFormed(message);
              const problems = validate(message);
              expectProblems(problems);
              expectRoundTrip(message, isValid(problems));
            }
          }),
          fuzzOptions(),
        );
      }),
    fuzzTimeout(500),
  );

  // Messages format takes, mostly, and now and then one it must refuse: a type or a parameter
  // name it cannot write, a line break in a value, a file name with spaces around it.
  const mostly = <T>(usual: fc.Arbitrary<T>, odd: fc.Arbitrary<T>): fc.Arbitrary<T> => fc.oneof({ arbitrary: usual, weight: 12 }, { arbitrary: odd, weight: 1 });
  const noBreaks = (s: string): boolean => !/[\r\n]/.test(s);
  const typeName = mostly(
    fc.oneof(fc.constantFrom('task', 'status', 'result', 'ack', 'card', 'discover', 'cancel'), fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/)),
    fc.oneof(fc.constantFrom('Task', '', '9x', 'a b'), words(2)),
  );
  const key = mostly(
    fc.oneof(fc.constantFrom('id', 'task', 'state', 'progress', 'reason', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'), fc.stringMatching(/^[A-Za-z][A-Za-z0-9_.-]{0,8}$/)),
    fc.oneof(fc.constantFrom('a b', '9', '', 'k=v', '_x'), words(2)),
  );
  const value = mostly(fc.oneof(paramValue, words(4)).filter(noBreaks), words(4));
  const bodyLine = fc.oneof({ arbitrary: words(8), weight: 4 }, { arbitrary: headerLine, weight: 1 }, { arbitrary: headerLine.map((l) => `\\${l}`), weight: 1 });
  const body = fc.array(bodyLine, { maxLength: 5 }).map((lines) => lines.join('\n'));
  const attachment = mostly(
    words(4).map((s) => s.trim()).filter((s) => s !== '' && noBreaks(s)),
    words(3),
  );
  const message: fc.Arbitrary<Message> = fc.oneof(
    { arbitrary: fc.record({ type: typeName, params: fc.dictionary(key, value, { maxKeys: 5 }), body, attachments: fc.array(attachment, { maxLength: 3 }) }), weight: 4 },
    { arbitrary: fc.record({ type: fc.constant('plain'), params: mostly(fc.constant({}), fc.dictionary(key, value, { minKeys: 1, maxKeys: 1 })), body, attachments: fc.array(attachment, { maxLength: 3 }) }), weight: 1 },
  );

  it(
    'reads back every message it writes, whatever its values, body and file names, and refuses the rest with INVALID_MESSAGE',
    () =>
      fuzzTarget('message grammar: format, then parse', () => {
        fc.assert(
          fc.property(message, fc.boolean(), (m, english) => {
            expectRoundTrip(m, false);
            const options = english ? ({ attachmentLabel: 'attachment' } as const) : {};
            let text: string;
            try {
              text = format(m, options);
            } catch {
              return; // refused, as expectRoundTrip checked
            }
            expectSame(format(messageOf(parse(text)), options), text);
          }),
          fuzzOptions(),
        );
      }),
    fuzzTimeout(500),
  );
});
