// Grammar-aware generators of hostile A2A-Lite text: lines that are almost headers, attachment
// lines, fences and mentions in every spelling the parser repairs, joined by any line end, then
// mutated (a piece inserted, a slice deleted or repeated, the text cut short).
import fc from 'fast-check';
import { KNOWN_TYPES } from '../../src/protocol/types.js';
import { WIRE_STATES } from '../../src/protocol/states.js';

/** Characters and fragments the grammar gives a meaning to, and others that break naive code. */
const TRICKY = [
  '"', '\\', '\\"', '\\\\', ']', '］', '[', '［', '“', '”', '「', '」', ' ', '  ', '\t', '\u3000', '\u200b', '\ufeff', '\u00a0',
  '=', '＝', ':', '：', ',', '，', '、', ';', '；', '@', '<@1>', '<@!42>', '`', '```', '~~~', '~', '\r', '\n', '\r\n', '\v', '\f',
  '\u2028', '\u0085', '\u0000', '\u001b', '\ud800', '\udfff', '𝒜', '佳', 'é', 'e\u0301', '\u202e', '[A2A:', '［A2A：', '[a2a:', 'A2A',
  '[附件:', '[attachment:', '%', '%2F', '..', '/', '$', '{', '}', '__proto__', 'constructor',
];

/** One tricky fragment, a short word, or a few arbitrary UTF-16 code units. */
export const piece: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...TRICKY), weight: 4 },
  { arbitrary: fc.stringMatching(/^[a-z0-9_.-]{1,8}$/), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 3 }), weight: 1 },
);

/** Free text built from pieces: the stuff of bodies, names and values. */
export const words = (maxLength: number): fc.Arbitrary<string> => fc.array(piece, { maxLength }).map((parts) => parts.join(''));

const indent = fc.constantFrom('', '', '', '', ' ', '\t', '\u3000', '\u200b', '\ufeff', '   ');
const mentions = fc.constantFrom('', '', '', '', '@佳佳 ', '<@123> ', '@a@b ', '<@!9>', '@Mexico\u00a0', '@x <@1> ');
const open = fc.constantFrom('[', '[', '[', '[', '［', '[ ', '\\[');
const tag = fc.constantFrom('A2A', 'A2A', 'A2A', 'a2a', 'A2a', ' A2A ', 'A2B');
const colon = fc.constantFrom(':', ':', ':', '：', ' : ', '');
const close = fc.constantFrom(']', ']', ']', ']', '］', '', ' ]', ']]');
const space = fc.constantFrom(' ', ' ', ' ', '  ', '\t', '\u3000', '');
const equals = fc.constantFrom('=', '=', '=', '=', '＝', ' = ', '= ', '');

const typeName = fc.oneof(
  { arbitrary: fc.constantFrom(...KNOWN_TYPES), weight: 6 },
  { arbitrary: fc.constantFrom('plain', 'Plain', 'TASK', 'Status', '', 'x-custom', '9lives'), weight: 1 },
  { arbitrary: fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/), weight: 1 },
  { arbitrary: piece, weight: 1 },
);

export const paramKey = fc.oneof(
  { arbitrary: fc.constantFrom('id', 'task', 'state', 'skill', 'priority', 'progress', 'eta', 'reason', 'artifacts'), weight: 6 },
  { arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'token', 'apiKey', 'password'), weight: 1 },
  { arbitrary: fc.stringMatching(/^[A-Za-z][A-Za-z0-9_.-]{0,6}$/), weight: 2 },
  { arbitrary: piece, weight: 1 },
);

const bareValue = fc.oneof(
  { arbitrary: fc.constantFrom(...WIRE_STATES, 'submitted', 'WORKING', 'done'), weight: 3 },
  { arbitrary: fc.stringMatching(/^[a-z][a-z0-9:._-]{0,10}$/), weight: 3 },
  { arbitrary: fc.constantFrom('50%', '100', '101', '99.5%', '1e3', '-1', 'low', 'urgent', '3', 'sk-proj-Abc123Def456Ghi789Jkl012Mno'), weight: 2 },
  { arbitrary: words(3), weight: 2 },
);

/** A parameter value: bare, quoted (with escapes), smart-quoted, or with its quote left open. */
export const paramValue = fc.oneof(
  { arbitrary: bareValue, weight: 5 },
  { arbitrary: bareValue.map((v) => `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`), weight: 2 },
  { arbitrary: bareValue.map((v) => `"${v}"`), weight: 1 },
  { arbitrary: bareValue.map((v) => `“${v}”`), weight: 1 },
  { arbitrary: bareValue.map((v) => `「${v}」`), weight: 1 },
  { arbitrary: bareValue.map((v) => `"${v}`), weight: 1 },
);

const param = fc.tuple(paramKey, equals, paramValue).map(([k, e, v]) => `${k}${e}${v}`);

/** A header line in any spelling chat bends it to, often with a body starting on the same line. */
const rest = fc.oneof({ arbitrary: fc.constantFrom('', ' after', '  \t', '］x'), weight: 3 }, { arbitrary: words(3), weight: 1 });

/** A header line in any spelling chat bends it to, sometimes with a body on the same line. */
export const headerLine: fc.Arbitrary<string> = fc
  .tuple(indent, mentions, open, tag, colon, typeName, fc.array(fc.tuple(space, param), { maxLength: 5 }), space, close, rest)
  .map(([ind, men, op, tg, co, ty, params, sp, cl, after]) => `${ind}${men}${op}${tg}${co}${ty}${params.map(([s, p]) => s + p).join('')}${sp}${cl}${after}`);

const attachmentName = fc.oneof(
  fc.constantFrom('report.md', 'a, b.pdf', '"q, r.txt"', '"unclosed', '../etc/passwd', 'CON', '.env', '', ' ', 'x\\"y', '名字.txt'),
  words(3),
);
const nameSeparator = fc.constantFrom(', ', ',', '，', '、', ';', '；', ' ');

/** An attachment line, `[附件: a.md, "b, c.pdf"]` or a near miss. */
export const attachmentLine: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom('', '', ' ', '\t'), open, fc.constantFrom('附件', '附件', 'attachment', 'Attachments', 'ATTACHMENT', 'attach'), colon, space, fc.array(fc.tuple(attachmentName, nameSeparator), { maxLength: 4 }), close)
  .map(([ind, op, label, co, sp, names, cl]) => `${ind}${op}${label}${co}${sp}${names.map(([n, s], i) => (i === names.length - 1 ? n : n + s)).join('')}${cl}`);

const fenceLine = fc.constantFrom('```', '```', '~~~', '````', '```js', '   ```', '``', ' ~~~~ ', '```[A2A:ack task=t]');
const mentionLine = fc.constantFrom('@佳佳', '<@123>', '@a <@1>', '  @Mexico  ', '@', '<@>');
const credentialLine = fc.constantFrom(
  'key sk-proj-Abc123Def456Ghi789Jkl012Mno345',
  'Authorization: Bearer abcdefghijklmnopqrstuvwx',
  'https://user:pass@example.com/',
  'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
);

/** One line of chat text. */
export const line: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: headerLine, weight: 5 },
  { arbitrary: words(8), weight: 5 },
  { arbitrary: attachmentLine, weight: 2 },
  { arbitrary: fenceLine, weight: 1 },
  { arbitrary: mentionLine, weight: 1 },
  { arbitrary: fc.constantFrom('', '', ' ', '\t', '\u3000'), weight: 2 },
  { arbitrary: fc.oneof(headerLine, attachmentLine).map((l) => `\\${l}`), weight: 1 },
  { arbitrary: credentialLine, weight: 1 },
);

const lineEnd = fc.constantFrom('\n', '\n', '\n', '\n', '\n', '\r\n', '\r\n', '\r', '\r\r\n', '\n\n');

type Mutation = [number, number, string];

/** Applies small edits anywhere in `text`: insert a piece, delete, repeat a slice, or cut the end. */
function mutate(text: string, mutations: readonly Mutation[]): string {
  let out = text;
  for (const [at, kind, insert] of mutations) {
    const i = at % (out.length + 1);
    if (kind === 0) out = out.slice(0, i) + insert + out.slice(i);
    else if (kind === 1) out = out.slice(0, i) + out.slice(i + 1 + (at % 5));
    else if (kind === 2) out = out.slice(0, i) + out.slice(i, i + 1 + (at % 12)).repeat(2) + out.slice(i);
    else out = out.slice(0, i);
  }
  return out;
}

const mutations = fc.array(fc.tuple(fc.nat(), fc.nat({ max: 3 }), piece), { maxLength: 3 });

/** Lines of hostile chat text, joined by any line end. */
export const chatText = (maxLines = 8): fc.Arbitrary<string> =>
  fc.array(fc.tuple(line, lineEnd), { maxLength: maxLines }).map((lines) => lines.map(([l, e]) => l + e).join(''));

/**
 * The text every parser target reads: mostly near-valid chat text, mutated; some raw code units
 * and graphemes, some long runs of one fragment.
 */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.tuple(chatText(), mutations).map(([text, edits]) => mutate(text, edits)), weight: 8 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 200 }), weight: 1 },
  { arbitrary: fc.tuple(piece, fc.integer({ min: 1, max: 400 }), chatText(2)).map(([p, n, text]) => p.repeat(n) + text), weight: 1 },
);

/** `text` cut into chunks at the given points (taken modulo its length), as a pipe or a socket may deliver it. */
export function cut(text: string, points: readonly number[]): string[] {
  const at = [...new Set(points.map((p) => p % (text.length + 1)))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let last = 0;
  for (const p of at) {
    chunks.push(text.slice(last, p));
    last = p;
  }
  chunks.push(text.slice(last));
  return chunks;
}
