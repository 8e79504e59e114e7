// The A2A-Lite message grammar: parse, format, validate, and the task state machine.

export { parse, parseAll } from './parse.js';
export { format, type FormatOptions } from './format.js';
export { canonicalBody } from './body.js';
export { validate, isValid, progressValue, TYPE_RULES, PRIORITIES, TASK_ID, type TypeRule } from './validate.js';
export {
  CORE_STATES,
  EXTENSION_STATES,
  WIRE_STATES,
  INITIAL_STATE,
  isWireState,
  isTaskState,
  isTerminal,
  isInterrupted,
  nextStates,
  transition,
  type WireState,
  type TaskState,
} from './states.js';
export {
  KNOWN_TYPES,
  type KnownType,
  type Message,
  type ParsedMessage,
  type ParseWarning,
  type WarningCode,
  type Problem,
  type ProblemCode,
} from './types.js';
export { messageOf } from './message.js';
