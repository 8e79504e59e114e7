// The A2A-Lite meaning of an answer from an agent that speaks A2A-Lite over plain A2A. Such an
// agent (an OpenClaw agent behind OpenClaw's `a2a` channel) writes `[A2A:status task=… state=
// input-required]` as its words, and the channel ends every answer as a completed task: the
// header, not the A2A state, says where the task stands.

import { isTerminal, isWireState, type WireState } from '../protocol/states.js';
import { parseAll } from '../protocol/parse.js';
import type { Message } from '../protocol/types.js';
import { isValid, validate } from '../protocol/validate.js';
import { textOf, type Task, type TaskEvent } from '../model/task.js';
import { artifactText } from './task-text.js';

/**
 * The status or result an agent's words open with, for task `task` as `event` leaves it, with
 * the A2A task's id in place of the agent's own; undefined when the words open with no valid
 * lite status or result. An A2A task that ended otherwise than completed keeps its A2A state:
 * only a completion can hide a question.
 *
 * @example
 * liteAnswerOf(completedTaskSaying('[A2A:status task=r-9 state=input-required]\nWhich week?'))
 * // { type: 'status', params: { task: '<A2A id>', state: 'input-required' }, body: 'Which week?', … }
 */
export function liteAnswerOf(task: Task, event?: TaskEvent): Message | undefined {
  const state = task.status.state;
  if (isTerminal(state) && state !== 'completed') return undefined;
  const status = event?.kind === 'status' ? event.status : task.status;
  const words = textOf(status.message) || (isTerminal(state) ? artifactText(task.artifacts) : '');
  const [first] = parseAll(words);
  if (first === undefined || (first.type !== 'status' && first.type !== 'result') || !isValid(validate(first))) return undefined;
  const said = first.params.state;
  if (said === undefined || !isWireState(said)) return undefined;
  return { type: first.type, params: { ...first.params, task: task.id }, body: first.body, attachments: first.attachments };
}

/** The state a lite answer gives its task. */
export function liteStateOf(answer: Message): WireState {
  return answer.params.state as WireState;
}
