import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Task } from '../model/task.js';
import type { TaskState } from '../protocol/states.js';
import { liteAnswerOf } from './answer.js';

const said = (text: string) => ({ messageId: 'm', role: 'agent' as const, parts: [{ kind: 'text' as const, text }] });
const task = (state: TaskState, words: { status?: string; artifact?: string }): Task => ({
  id: 'a2a-1',
  contextId: 'c',
  status: { state, timestamp: '', ...(words.status === undefined ? {} : { message: said(words.status) }) },
  history: [],
  artifacts: words.artifact === undefined ? [] : [{ artifactId: 'a', parts: [{ kind: 'text', text: words.artifact }] }],
});

describe('the A2A-Lite meaning of an answer', () => {
  it.each([
    ['a question in a completed task', task('completed', { artifact: '[A2A:status task=r-9 state=input-required]\nWhich week?' }), 'status', 'input-required', 'Which week?'],
    ['a question in the final status message', task('completed', { status: '[A2A:status task=r-9 state=input-required]\nWhich week?' }), 'status', 'input-required', 'Which week?'],
    ['progress while working', task('working', { status: '[A2A:status task=r-9 state=working progress=40%]\ncollecting' }), 'status', 'working', 'collecting'],
    ['a failure said in words', task('completed', { artifact: '[A2A:result task=r-9 state=failed]\nno sources' }), 'result', 'failed', 'no sources'],
  ])('reads %s', (_name, given, type, state, body) => {
    const answer = liteAnswerOf(given);
    expect(answer).toMatchObject({ type, params: { task: 'a2a-1', state }, body });
  });

  it.each([
    ['plain words', task('completed', { artifact: 'The report is done.' })],
    ['a header later in the text', task('completed', { artifact: 'Done.\n[A2A:status task=r-9 state=input-required]\nmore?' })],
    ['a task header', task('completed', { artifact: '[A2A:task id=r-9]\nnot an answer' })],
    ['a header without a state', task('completed', { artifact: '[A2A:status task=r-9]\nhalf' })],
    ['an A2A failure, whatever the words say', task('failed', { status: '[A2A:status task=r-9 state=working]\nfine' })],
    ['words in an artifact of a task still working', task('working', { artifact: '[A2A:status task=r-9 state=input-required]\n?' })],
  ])('takes %s as A2A says', (_name, given) => {
    expect(liteAnswerOf(given)).toBeUndefined();
  });

  it('never throws on any words, and answers only with a state the protocol knows', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.constantFrom<TaskState>('working', 'completed'), (text, state) => {
        const answer = liteAnswerOf(task(state, { artifact: `[A2A:status task=x ${text}`, status: text }));
        if (answer !== undefined) expect(['status', 'result']).toContain(answer.type);
      }),
      { numRuns: 2_000 },
    );
  });
});
