import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LiteError } from '../errors.js';
import { canonicalBody } from './body.js';
import { format } from './format.js';
import { messageOf } from './message.js';
import { parse, parseAll } from './parse.js';
import type { Message } from './types.js';

/** Characters that stress the grammar: quotes, brackets, separators, escapes, tags. */
const tricky = fc.constantFrom(
  '"', '\\', ']', '］', '[', '［', '“', '”', '「', ' ', '\t', '\u3000', '=', '＝', ',', '，', '、', ';', '@', '`', '~',
  '[A2A:task id=x]', '［A2A：ack］', '[附件: a.md]', '[attachment: b]', '```', '<@123>', 'a2a:', '\\[A2A:',
);
const text = (maxLength: number) => fc.string({ unit: fc.oneof(tricky, fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })), maxLength });
const noBreaks = (s: string): boolean => !/[\r\n]/.test(s);

const typeName = fc.stringMatching(/^[a-z][a-z0-9_-]{0,11}$/).filter((t) => t !== 'plain');
const paramName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_.-]{0,9}$/);
const paramValue = text(24).filter(noBreaks);
const body = fc.array(text(30).filter(noBreaks), { maxLength: 6 }).map((lines) => canonicalBody(lines.join('\n')));
const attachment = text(20).map((s) => s.trim()).filter((s) => s !== '' && noBreaks(s));

export const validMessage: fc.Arbitrary<Message> = fc.oneof(
  fc.record({
    type: typeName,
    params: fc.dictionary(paramName, paramValue, { maxKeys: 5 }),
    body,
    attachments: fc.array(attachment, { maxLength: 4 }),
  }),
  fc.record({ type: fc.constant('plain'), params: fc.constant({}), body, attachments: fc.array(attachment, { maxLength: 3 }) }),
);

describe('format', () => {
  it('writes the canonical form', () => {
    const m = messageOf('result', { task: 'email-001', state: 'completed' }, '邮件已成功发送。', ['report.md']);
    expect(format(m)).toBe('[A2A:result task=email-001 state=completed]\n邮件已成功发送。\n[附件: report.md]');
  });

  it('quotes values that need it and escapes quotes and backslashes', () => {
    const m = messageOf('cancel', { task: 't', reason: 'say "no" \\ 缺少 权限', empty: '' });
    expect(format(m)).toBe('[A2A:cancel task=t reason="say \\"no\\" \\\\ 缺少 权限" empty=""]');
  });

  it('escapes body lines that would read as a header or an attachment', () => {
    const m = messageOf('task', { id: 't' }, 'quote:\n[A2A:task id=other]\n[附件: not-mine.md]\n\\[A2A:x]');
    const text = format(m);
    expect(text).toBe('[A2A:task id=t]\nquote:\n\\[A2A:task id=other]\n\\[附件: not-mine.md]\n\\\\[A2A:x]');
    expect(parseAll(text)).toHaveLength(1);
    expect(parse(text).body).toBe(m.body);
  });

  it('can write English attachment lines', () => {
    expect(format(messageOf('ack', { task: 't' }, '', ['a.md']), { attachmentLabel: 'attachment' })).toBe('[A2A:ack task=t]\n[attachment: a.md]');
  });

  it.each([
    [messageOf('Task', {}), /type "Task"/],
    [messageOf('task', { 'bad key': 'x' }), /parameter name "bad key"/],
    [messageOf('task', { id: 'a\nb' }), /line break/],
    [messageOf('task', { id: 'a' }, '', ['two\nlines']), /attachment name/],
    [messageOf('plain', { id: 'a' }), /plain message/],
  ])('refuses what text cannot carry: %j', (m, pattern) => {
    expect(() => format(m)).toThrow(LiteError);
    expect(() => format(m)).toThrow(pattern);
  });
});

describe('properties', () => {
  it('parse(format(m)) equals m for every valid message, with no warning', () => {
    fc.assert(
      fc.property(validMessage, (m) => {
        const parsed = parse(format(m));
        expect(messageOf(parsed)).toEqual(m);
        expect(parsed.warnings).toEqual([]);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 3000) },
    );
  });

  it('format is a fixed point of parse', () => {
    fc.assert(
      fc.property(validMessage, (m) => {
        const once = format(m);
        expect(format(messageOf(parse(once)))).toBe(once);
      }),
      { numRuns: 1000 },
    );
  });

  it('parse and parseAll never throw, whatever the text', () => {
    const anyText = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 400 }),
      fc.array(fc.oneof(tricky, fc.constantFrom('\n', '\r\n', '\r', '"', '\\')), { maxLength: 200 }).map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(anyText, (s) => {
        const one = parse(s);
        expect(typeof one.type).toBe('string');
        expect(Array.isArray(parseAll(s))).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('line endings', () => {
  it.each(['a\r\nb', 'a\r\r\nb', 'a\r\r\r\nb'])('format writes %j so that parse reads it back without a repair', (body) => {
    const text = format({ type: 'task', params: { id: 't' }, body, attachments: [] });
    const back = parse(text);
    expect(back.warnings).toEqual([]);
    expect(back.body).toBe('a\nb');
  });
});
