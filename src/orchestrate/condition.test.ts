import { describe, expect, it } from 'vitest';
import { holds, type Ended } from './condition.js';
import type { Condition } from './plan.js';

const steps: Record<string, Ended> = {
  review: { state: 'completed', text: 'LGTM, ship it', data: { verdict: 'approve', score: 7, tags: [], nested: { ok: true } } },
  lint: { state: 'failed', text: 'two errors', data: undefined },
  skipped: { state: 'skipped', text: '', data: undefined },
};
const when = (fields: Partial<Condition>): Condition => ({ step: 'review', not: false, ...fields });

describe('holds', () => {
  it.each<[string, Partial<Condition>, boolean]>([
    ['a state that matches', { state: ['completed'] }, true],
    ['a state that does not', { step: 'lint', state: ['completed'] }, false],
    ['one of several states', { step: 'lint', state: ['failed', 'rejected'] }, true],
    ['a skipped step', { step: 'skipped', state: ['skipped'] }, true],
    ['a data field that equals', { data: 'verdict', equals: 'approve' }, true],
    ['a data field that differs', { data: 'verdict', equals: 'reject' }, false],
    ['a number against its text', { data: 'score', equals: '7' }, true],
    ['a nested field', { data: 'nested.ok', equals: true }, true],
    ['a field that is there', { data: 'verdict' }, true],
    ['an empty list', { data: 'tags' }, false],
    ['a field that is missing', { data: 'nope' }, false],
    ['no data at all', { step: 'lint', data: 'verdict' }, false],
    ['a text match', { matches: '^LGTM' }, true],
    ['a text mismatch', { matches: 'reject' }, false],
    ['not, turning a match round', { matches: '^LGTM', not: true }, false],
    ['not of a missing step', { step: 'ghost', state: ['completed'], not: true }, true],
    ['all fields together', { state: ['completed'], data: 'verdict', equals: 'approve', matches: 'ship' }, true],
  ])('%s', (_what, fields, answer) => {
    expect(holds([when(fields)], steps)).toBe(answer);
  });

  it('needs every condition of a list', () => {
    expect(holds([when({ state: ['completed'] }), when({ step: 'lint', state: ['completed'] })], steps)).toBe(false);
    expect(holds([when({ state: ['completed'] }), when({ step: 'lint', state: ['failed'] })], steps)).toBe(true);
    expect(holds([], steps)).toBe(true);
  });
});
