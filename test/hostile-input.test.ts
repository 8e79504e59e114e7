// Adversarial text against every parser and scanner: each must finish in linear time. The
// bound is generous on purpose: linear work on these inputs takes milliseconds, while the
// backtracking it guards against takes minutes.
import { describe, expect, it } from 'vitest';
import { parseCardReply } from '../src/card/parse-reply.js';
import { checkCard } from '../src/card/validate.js';
import { format } from '../src/protocol/format.js';
import { parse, parseAll } from '../src/protocol/parse.js';
import { validate } from '../src/protocol/validate.js';
import { credentialShapes, findSecrets, redactCredentials } from '../src/secrets.js';
import { applyMessage } from '../src/home/task-record.js';

const MB = 1024 * 1024;
const fill = (unit: string, size = MB) => unit.repeat(Math.ceil(size / unit.length));

const HOSTILE: [string, string][] = [
  ['mentions split by zero-width spaces', fill(`@a${'\u200b'.repeat(8)}`) + 'x'],
  ['mentions glued to angle mentions', fill('@a<@1>') + 'x'],
  ['mentions then an almost-header', fill('@a ') + '[A2A x'],
  ['zero-width spaces', fill('\u200b') + 'x'],
  ['a name with endless spaces', `[A2A:card]\n我是a${fill(' ')}x`],
  ['an English name with endless spaces', `[A2A:card]\nI am a${fill(' ')}x`],
  ['a skill line with endless spaces', `[A2A:card]\n- a${fill(' ')}x`],
  ['a channel line with endless spaces', `[A2A:card]\nchannels:${fill(' ')}x`],
  ['"but" with endless spaces', `[A2A:card]\nsupports files${fill(' ')}but${fill(' ')}x`],
  ['dots', `[A2A:task id=t]\n${fill('a.')}`],
  ['JWT-like runs', `[A2A:task id=t]\n${fill('eyJ-')}`],
  ['a JWT header without the rest', `[A2A:task id=t]\neyJaaaaaaaa.${fill('a-eyJaaaaaaaa-')}`],
  ['URL schemes', `[A2A:task id=t]\n${fill('a://')}`],
  ['URL userinfo', `[A2A:task id=t]\nhttps://${fill('a:')}`],
  ['bearer words', `[A2A:task id=t]\n${fill('Bearer ')}`],
  ['basic words', `[A2A:task id=t]\n${fill('Basic ')}`],
  ['a hundred thousand params', `[A2A:task id=t ${fill('k=v ', 400_000)}]`],
  ['an unterminated quote', `[A2A:task id=t reason="${fill('\\"')}`],
  ['fences', fill('```\n')],
  ['fences and headers', fill('```\n[A2A:ack task=t]\n')],
  ['attachment separators', `[A2A:result task=t state=completed]\n[附件: ${fill('a,')}]`],
  ['an unclosed attachment line', `[A2A:result task=t state=completed]\n[附件: ${fill('a]b')}`],
  ['backslashes', `[A2A:task id=t]\n${fill('\\')}[A2A:x]`],
  ['blank lines', `${fill('\n')}[A2A:ack task=t]${fill(' \n')}`],
  ['full-width brackets', fill('［A2A：')],
  ['CRLF', fill('[A2A:ack task=t]\r\n')],
  ['carriage returns without a line feed', `[A2A:ack task=t]\n${fill('\r')}x\r\n`],
  ['high-entropy candidates', `[A2A:task id=t]\n${fill('Zx81Qw0PlmNbV7cXe2RtYu9Io3As ')}`],
];

function timed(run: () => unknown): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

describe('hostile input', () => {
  it.each(HOSTILE)('%s: parse, parseAll and validate stay linear', (_name, text) => {
    expect(timed(() => validate(parse(text)))).toBeLessThan(3000);
    expect(timed(() => parseAll(text))).toBeLessThan(3000);
  });

  it.each(HOSTILE)('%s: the card-reply reader stays linear', (_name, text) => {
    expect(timed(() => parseCardReply(text))).toBeLessThan(3000);
  });

  it.each(HOSTILE)('%s: the credential scans stay linear', (_name, text) => {
    expect(timed(() => credentialShapes(text))).toBeLessThan(3000);
    expect(timed(() => redactCredentials(text))).toBeLessThan(3000);
    expect(timed(() => findSecrets({ description: text }))).toBeLessThan(3000);
    expect(timed(() => checkCard({ protocol: 'a2a-lite/1.0', agent: { id: 'x', name: text, framework: 'other' }, skills: [] }))).toBeLessThan(3000);
  });

  it.each(HOSTILE)('%s: recording it in a ledger stays linear', (_name, text) => {
    const message = parse(text);
    if (message.type !== 'task') return;
    expect(timed(() => applyMessage(undefined, message, { direction: 'in', peer: 'p', at: '2026-01-01T00:00:00Z' }))).toBeLessThan(3000);
  });

  it('formats whatever parse accepted as valid, and reads it back', () => {
    for (const [, text] of HOSTILE) {
      const message = parse(text);
      if (validate(message).some((p) => p.level === 'error')) continue;
      const again = parse(format(message));
      expect(again.body).toBe(message.body);
      expect(again.params).toEqual(message.params);
    }
  });
});
