// Whether a step's `when` holds, given how the earlier steps ended: their end state, a field of
// their data, a match on their text. Pure.

import type { Condition, StepEnd } from './plan.js';
import { dig } from './template.js';

/** What a condition may read of an ended step. */
export interface Ended {
  /** How it ended (a step still going never satisfies a state test). */
  state: StepEnd | 'waiting' | 'sending' | 'running';
  text: string;
  data: unknown;
}

/**
 * True when every condition holds.
 *
 * @example
 * holds([{ step: 'review', data: 'verdict', equals: 'approve', not: false }], { review: { state: 'completed', text: '', data: { verdict: 'approve' } } });
 */
export function holds(conditions: readonly Condition[], steps: Readonly<Record<string, Ended>>): boolean {
  return conditions.every((condition) => holdsOne(condition, steps[condition.step]));
}

function holdsOne(condition: Condition, step: Ended | undefined): boolean {
  const answer = step !== undefined && test(condition, step);
  return condition.not ? !answer : answer;
}

function test(condition: Condition, step: Ended): boolean {
  if (condition.state !== undefined && !(condition.state as readonly string[]).includes(step.state)) return false;
  if (condition.data !== undefined) {
    const value = dig(step.data, condition.data.split('.'));
    if (condition.equals !== undefined) {
      if (!same(value, condition.equals)) return false;
    } else if (!present(value)) return false;
  }
  if (condition.matches !== undefined && !new RegExp(condition.matches, 'u').test(step.text)) return false;
  return true;
}

/** Equal as JSON; a number and its text count as equal, since YAML and programs differ on quotes. */
function same(value: unknown, wanted: unknown): boolean {
  if (typeof value === 'object' || typeof wanted === 'object') return JSON.stringify(value) === JSON.stringify(wanted);
  return value === wanted || (value !== undefined && String(value) === String(wanted));
}

function present(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  return true;
}
