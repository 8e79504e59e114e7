// Adversarial text against every parser and scanner: each must finish in linear time. Each is
// timed against ordinary text of the same size in the same run: linear work on hostile input
// costs at most hundreds of times as much, the backtracking guarded against a million times.
// A ratio measured in one run holds however busy the machine is.
import { describe, expect, it } from 'vitest';
import { parseCardReply } from '../src/card/parse-reply.js';
import { checkCard } from '../src/card/validate.js';
import { format } from '../src/protocol/format.js';
import { parse, parseAll } from '../src/protocol/parse.js';
import { validate } from '../src/protocol/validate.js';
import { credentialShapes, findSecrets, redactCredentials } from '../src/secrets.js';
import { applyMessage } from '../src/home/task-record.js';

const MB = 1024 * 1024;
/** Builds an input with `fill` making runs of about `size` characters. */
type Hostile = (fill: (unit: string, share?: number) => string) => string;

const HOSTILE: [string, Hostile][] = [
  ['mentions split by zero-width spaces', (fill) => fill(`@a${'\u200b'.repeat(8)}`) + 'x'],
  ['mentions glued to angle mentions', (fill) => fill('@a<@1>') + 'x'],
  ['mentions then an almost-header', (fill) => fill('@a ') + '[A2A x'],
  ['zero-width spaces', (fill) => fill('\u200b') + 'x'],
  ['a name with endless spaces', (fill) => `[A2A:card]\n我是a${fill(' ')}x`],
  ['an English name with endless spaces', (fill) => `[A2A:card]\nI am a${fill(' ')}x`],
  ['a skill line with endless spaces', (fill) => `[A2A:card]\n- a${fill(' ')}x`],
  ['a channel line with endless spaces', (fill) => `[A2A:card]\nchannels:${fill(' ')}x`],
  ['"but" with endless spaces', (fill) => `[A2A:card]\nsupports files${fill(' ')}but${fill(' ')}x`],
  ['dots', (fill) => `[A2A:task id=t]\n${fill('a.')}`],
  ['JWT-like runs', (fill) => `[A2A:task id=t]\n${fill('eyJ-')}`],
  ['a JWT header without the rest', (fill) => `[A2A:task id=t]\neyJaaaaaaaa.${fill('a-eyJaaaaaaaa-')}`],
  ['URL schemes', (fill) => `[A2A:task id=t]\n${fill('a://')}`],
  ['URL userinfo', (fill) => `[A2A:task id=t]\nhttps://${fill('a:')}`],
  ['bearer words', (fill) => `[A2A:task id=t]\n${fill('Bearer ')}`],
  ['basic words', (fill) => `[A2A:task id=t]\n${fill('Basic ')}`],
  ['a hundred thousand params', (fill) => `[A2A:task id=t ${fill('k=v ', 0.4)}]`],
  ['an unterminated quote', (fill) => `[A2A:task id=t reason="${fill('\\"')}`],
  ['fences', (fill) => fill('```\n')],
  ['fences and headers', (fill) => fill('```\n[A2A:ack task=t]\n')],
  ['attachment separators', (fill) => `[A2A:result task=t state=completed]\n[附件: ${fill('a,')}]`],
  ['an unclosed attachment line', (fill) => `[A2A:result task=t state=completed]\n[附件: ${fill('a]b')}`],
  ['backslashes', (fill) => `[A2A:task id=t]\n${fill('\\')}[A2A:x]`],
  ['blank lines', (fill) => `${fill('\n')}[A2A:ack task=t]${fill(' \n')}`],
  ['full-width brackets', (fill) => fill('［A2A：')],
  ['CRLF', (fill) => fill('[A2A:ack task=t]\r\n')],
  ['carriage returns without a line feed', (fill) => `[A2A:ack task=t]\n${fill('\r')}x\r\n`],
  ['high-entropy candidates', (fill) => `[A2A:task id=t]\n${fill('Zx81Qw0PlmNbV7cXe2RtYu9Io3As ')}`],
];

/** The input at `size` characters a run. */
const build = (make: Hostile, size: number): string => make((unit, share = 1) => unit.repeat(Math.ceil((size * share) / unit.length)));

/** Ordinary text of the same size: what each hostile input is measured against. */
const BENIGN: Hostile = (fill) => `[A2A:task id=t skill=research]\n${fill('Lorem ipsum dolor sit amet, 42 agents. ')}`;

/**
 * How much longer than ordinary text a hostile input may take. Measured here, the slowest
 * linear case costs a few hundred times as much (a scan that does nothing on ordinary text works hard on these);
 * work quadratic in a megabyte costs about a million times more than linear work.
 */
const MAX_RATIO = 5_000;

/**
 * Runs `work` on ordinary text and then on the hostile input, both 1 MiB, one right after the
 * other (so that other work on the machine slows both alike), and fails when the hostile input took
 * more than MAX_RATIO times as long (the ordinary run counted as at least 1 ms).
 */
function expectLinear(make: Hostile, work: (text: string) => unknown): void {
  const hostile = build(make, MB);
  const benign = build(BENIGN, MB);
  const benignMs = timed(() => work(benign));
  const hostileMs = timed(() => work(hostile));
  expect(hostileMs / Math.max(benignMs, 1), `${hostileMs.toFixed(1)} ms for the hostile input, ${benignMs.toFixed(1)} ms for ordinary text`).toBeLessThan(MAX_RATIO);
}

function timed(run: () => unknown): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

describe('hostile input', () => {
  it.each(HOSTILE)('%s: parse, parseAll and validate stay linear', (_name, make) => {
    expectLinear(make, (text) => validate(parse(text)));
    expectLinear(make, (text) => parseAll(text));
  });

  it.each(HOSTILE)('%s: the card-reply reader stays linear', (_name, make) => {
    expectLinear(make, (text) => parseCardReply(text));
  });

  it.each(HOSTILE)('%s: the credential scans stay linear', (_name, make) => {
    expectLinear(make, (text) => credentialShapes(text));
    expectLinear(make, (text) => redactCredentials(text));
    expectLinear(make, (text) => findSecrets({ description: text }));
    expectLinear(make, (text) => checkCard({ protocol: 'a2a-lite/1.0', agent: { id: 'x', name: text, framework: 'other' }, skills: [] }));
  });

  it.each(HOSTILE)('%s: recording it in a ledger stays linear', (_name, make) => {
    if (parse(build(make, 1024)).type !== 'task') return;
    expectLinear(make, (text) => applyMessage(undefined, parse(text), { direction: 'in', peer: 'p', at: '2026-01-01T00:00:00Z' }));
  });

  it('formats whatever parse accepted as valid, and reads it back', () => {
    for (const [, make] of HOSTILE) {
      const text = build(make, MB);
      const message = parse(text);
      if (validate(message).some((p) => p.level === 'error')) continue;
      const again = parse(format(message));
      expect(again.body).toBe(message.body);
      expect(again.params).toEqual(message.params);
    }
  });
});
