import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INITIAL_STATE, WIRE_STATES, type TaskState } from '../../protocol/states.js';
import { stateToV1, statesFromV1 } from './v1.js';

const ALL_STATES: readonly TaskState[] = [INITIAL_STATE, ...WIRE_STATES];

describe('a 1.0 state as a filter', () => {
  it('matches every state shown under that name, and only those', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ALL_STATES), (state) => {
        const shownAlike = ALL_STATES.filter((each) => stateToV1(each) === stateToV1(state));
        expect([...(statesFromV1(stateToV1(state)) ?? [])].sort()).toEqual([...shownAlike].sort());
      }),
    );
  });

  it.each([
    ['TASK_STATE_SUBMITTED', ['submitted', 'accepted']],
    ['TASK_STATE_CANCELLED', ['cancelled']],
    ['TASK_STATE_UNSPECIFIED', undefined],
    ['__proto__', undefined],
    [1, undefined],
  ])('%s', (name, states) => {
    expect(statesFromV1(name)).toEqual(states);
  });
});
