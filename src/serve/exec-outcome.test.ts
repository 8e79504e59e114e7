import { describe, expect, it } from 'vitest';
import { outcomeOf, type Outcome } from './exec-outcome.js';

const end = (text: string, extra: Partial<Extract<Outcome, { kind: 'end' }>> = {}): Outcome => ({ kind: 'end', state: 'completed', text, attachments: [], ...extra });

describe('how a turn ends, from what the program printed', () => {
  it.each<[string, string, number | null, Outcome]>([
    ['a result alone', '[A2A:result task=t state=completed]\n42\n', 0, end('42')],
    ['plain text alone', '42\n', 0, end('42')],
    ['a result, then the final words', '[A2A:result task=t state=completed]\n42\n[A2A:status task=t state=completed]\nAnswered.\n', 0, end('42', { message: 'Answered.' })],
    ['the final words, then a result', '[A2A:status task=t state=completed]\nAnswered.\n[A2A:result task=t state=completed]\n42\n', 0, end('42', { message: 'Answered.' })],
    ['plain text, then the final words', '42\n[A2A:status task=t state=completed]\nAnswered.\n', 0, end('42', { message: 'Answered.' })],
    ['the final words alone (after chunks, say)', '[A2A:status task=t state=working artifact=draft last=true]\none\n[A2A:status task=t state=completed]\nDrafted.\n', 0, end('', { message: 'Drafted.' })],
    ['a completed status with no words: none, on purpose', '[A2A:result task=t state=completed]\n42\n[A2A:status task=t state=completed]\n', 0, end('42', { message: '' })],
    ['files on the result and on the final words, each once', '[A2A:result task=t state=completed]\nsee files\n[附件: a.md]\n[A2A:status task=t state=completed]\nTwo files.\n[附件: a.md]\n[附件: b.md]\n', 0, end('see files', { attachments: ['a.md', 'b.md'], message: 'Two files.' })],
    ['the last of several results and final words', '[A2A:result task=t state=completed]\nold\n[A2A:status task=t state=completed]\nfirst\n[A2A:result task=t state=completed]\nnew\n[A2A:status task=t state=completed]\nsecond\n', 0, end('new', { message: 'second' })],
    ['a result, then a failure', '[A2A:result task=t state=completed]\n42\n[A2A:status task=t state=failed]\nthe disk filled up\n', 0, { kind: 'end', state: 'failed', text: 'the disk filled up', attachments: [] }],
    ['a completion, even after a non-zero exit', '[A2A:status task=t state=completed]\nDone anyway.\n', 1, end('', { message: 'Done anyway.' })],
    ['a question', '[A2A:status task=t state=input-required]\nWhich week?\n', 0, { kind: 'ask', question: 'Which week?', state: 'input-required' }],
    ['a request for credentials', '[A2A:status task=t state=auth-required]\nLog in to the mail account first.\n', 0, { kind: 'ask', question: 'Log in to the mail account first.', state: 'auth-required' }],
    ['plain text and a non-zero exit', '42\n', 2, { kind: 'end', state: 'failed', text: 'the program failed', attachments: [] }],
  ])('%s', (_what, stdout, code, outcome) => {
    expect(outcomeOf(stdout, code, 'the program failed')).toEqual(outcome);
  });
});
