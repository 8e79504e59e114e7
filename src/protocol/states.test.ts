import { describe, expect, it } from 'vitest';
import { CORE_STATES, isInterrupted, isSettled, isTerminal, isWireState, mayChange, nextStates, transition, WIRE_STATES, type TaskState, type WireState } from './states.js';

describe('the task state machine', () => {
  it('has the seven states of the protocol reference plus auth-required', () => {
    expect(CORE_STATES).toEqual(['accepted', 'working', 'input-required', 'completed', 'failed', 'cancelled', 'rejected']);
    expect(WIRE_STATES).toContain('auth-required');
    expect(isWireState('submitted')).toBe(false);
  });

  it.each([
    ['completed', true],
    ['failed', true],
    ['cancelled', true],
    ['rejected', true],
    ['accepted', false],
    ['working', false],
    ['input-required', false],
    ['auth-required', false],
    ['submitted', false],
  ] as [TaskState, boolean][])('%s is terminal: %s', (state, terminal) => {
    expect(isTerminal(state)).toBe(terminal);
  });

  it.each([
    ['submitted', 'accepted', 'advance'],
    ['submitted', 'completed', 'advance'],
    ['accepted', 'working', 'advance'],
    ['accepted', 'rejected', 'advance'],
    ['working', 'input-required', 'advance'],
    ['input-required', 'working', 'advance'],
    ['auth-required', 'working', 'advance'],
    ['working', 'completed', 'advance'],
    ['working', 'cancelled', 'advance'],
    ['working', 'working', 'repeat'],
    ['completed', 'completed', 'repeat'],
    ['working', 'rejected', 'illegal'],
    ['working', 'accepted', 'illegal'],
    ['completed', 'working', 'illegal'],
    ['completed', 'failed', 'illegal'],
    ['cancelled', 'completed', 'illegal'],
    ['rejected', 'accepted', 'illegal'],
  ] as const)('%s → %s is %s', (from, to, kind) => {
    expect(transition(from, to)).toBe(kind);
  });

  it('lets no terminal state go anywhere', () => {
    for (const state of WIRE_STATES.filter(isTerminal)) expect(nextStates(state)).toEqual([]);
  });

  it('never lists a state as its own successor', () => {
    for (const state of WIRE_STATES) expect(nextStates(state)).not.toContain(state);
  });

  it('knows which states wait on the requester', () => {
    expect(WIRE_STATES.filter(isInterrupted)).toEqual(['input-required', 'auth-required']);
  });

  it.each([
    ['completed', true],
    ['rejected', true],
    ['input-required', true],
    ['auth-required', true],
    ['working', false],
    ['accepted', false],
    ['submitted', false],
  ] as [TaskState, boolean][])('%s is settled: %s', (state, settled) => {
    expect(isSettled(state)).toBe(settled);
  });

  it.each([
    ['working', 'working', true],
    ['input-required', 'input-required', true],
    ['working', 'completed', true],
    ['completed', 'completed', false],
    ['cancelled', 'cancelled', false],
    ['completed', 'working', false],
    ['working', 'rejected', false],
  ] as [TaskState, WireState, boolean][])('%s → %s may change: %s', (from, to, allowed) => {
    expect(mayChange(from, to)).toBe(allowed);
  });
});
