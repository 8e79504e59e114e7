// The task state machine: every state a task can be in, which states may follow which,
// and which are terminal. Pure; the ledger, the runtime and the validator all ask here.
//
//                         ┌──────────────┐
//                         │  submitted   │  the task message exists, no answer yet
//                         └──────┬───────┘  (ledger only, never sent as state=)
//              ┌─────────────────┼───────────────────────────┐
//              ▼                 ▼                           ▼
//        ┌──────────┐      ┌──────────┐  ◄──►  ┌────────────────┐
//        │ accepted │ ───► │ working  │        │ input-required │
//        └────┬─────┘      └────┬─────┘  ◄──►  ├────────────────┤
//             │                 │              │ auth-required  │ (extension)
//             │                 ▼              └───────┬────────┘
//             │      ╔══════════════════════════════╗  │
//             ├────► ║ completed · failed · cancelled ║ ◄┘
//             │      ╚══════════════════════════════╝
//             └────► ╔══════════╗   only before work starts
//                    ║ rejected ║   (from submitted or accepted)
//                    ╚══════════╝
//
// A non-terminal state may repeat (a new progress figure, a second question). A terminal
// state has no way out: completed → working is refused, and so is completed → failed.

/** The seven states of A2A-Lite 1.0, in the order the protocol reference lists them. */
export const CORE_STATES = [
  'accepted',
  'working',
  'input-required',
  'completed',
  'failed',
  'cancelled',
  'rejected',
] as const;

/**
 * States added by this implementation, as the protocol's extension rules allow.
 * `auth-required` mirrors A2A's AUTH_REQUIRED: the worker needs credentials from the requester.
 */
export const EXTENSION_STATES = ['auth-required'] as const;

/** Every state that may travel in a `state=` parameter. */
export const WIRE_STATES = [...CORE_STATES, ...EXTENSION_STATES] as const;

export type WireState = (typeof WIRE_STATES)[number];

/** The ledger's state before the worker has said anything. Never valid as `state=`. */
export const INITIAL_STATE = 'submitted';

export type TaskState = WireState | typeof INITIAL_STATE;

const TERMINAL: ReadonlySet<TaskState> = new Set(['completed', 'failed', 'cancelled', 'rejected']);
const INTERRUPTED: ReadonlySet<TaskState> = new Set(['input-required', 'auth-required']);
const ENDINGS: readonly WireState[] = ['completed', 'failed', 'cancelled'];
const ACTIVE: readonly WireState[] = ['working', 'input-required', 'auth-required'];

const others = (self: TaskState, states: readonly WireState[]): readonly WireState[] =>
  states.filter((state) => state !== self);

/** The table drawn above. A state never lists itself: repeating is handled apart. */
const NEXT: Readonly<Record<TaskState, readonly WireState[]>> = {
  submitted: ['accepted', ...ACTIVE, ...ENDINGS, 'rejected'],
  accepted: [...ACTIVE, ...ENDINGS, 'rejected'],
  working: others('working', [...ACTIVE, ...ENDINGS]),
  'input-required': others('input-required', [...ACTIVE, ...ENDINGS]),
  'auth-required': others('auth-required', [...ACTIVE, ...ENDINGS]),
  completed: [],
  failed: [],
  cancelled: [],
  rejected: [],
};

const WIRE_SET: ReadonlySet<string> = new Set(WIRE_STATES);

/** True for a state that may appear in a `state=` parameter. */
export function isWireState(value: string): value is WireState {
  return WIRE_SET.has(value);
}

/** True for any state the ledger can hold, including `submitted`. */
export function isTaskState(value: string): value is TaskState {
  return value === INITIAL_STATE || WIRE_SET.has(value);
}

/** True once a task can change no more: completed, failed, cancelled or rejected. */
export function isTerminal(state: TaskState): boolean {
  return TERMINAL.has(state);
}

/** True for states where the worker waits on the requester (input-required, auth-required). */
export function isInterrupted(state: TaskState): boolean {
  return INTERRUPTED.has(state);
}

/** The other states that may follow `state`, in table order (repeating it is always allowed unless terminal). */
export function nextStates(state: TaskState): readonly WireState[] {
  return NEXT[state];
}

/**
 * Classifies a change of state: `advance` (a legal move to a new state), `repeat` (the same
 * state again: a progress update, or a duplicate of a terminal message) or `illegal`.
 *
 * @example
 * transition('working', 'completed')  // 'advance'
 * transition('completed', 'working')  // 'illegal'
 */
export function transition(from: TaskState, to: WireState): 'advance' | 'repeat' | 'illegal' {
  if (from === to) return 'repeat';
  return NEXT[from].includes(to) ? 'advance' : 'illegal';
}

/**
 * True once nothing more happens until the requester acts: the task has ended, or it waits for
 * input. A blocking send answers here and a send's stream closes here.
 */
export function isSettled(state: TaskState): boolean {
  return TERMINAL.has(state) || INTERRUPTED.has(state);
}

/**
 * Whether a task in `from` may be moved to `to`: a legal advance, or a non-terminal state said
 * again (a new progress figure, a second question). A terminal state said again is refused: the
 * task has ended and takes no more changes.
 *
 * @example
 * mayChange('working', 'working')      // true
 * mayChange('completed', 'completed')  // false
 */
export function mayChange(from: TaskState, to: WireState): boolean {
  const kind = transition(from, to);
  return kind === 'advance' || (kind === 'repeat' && !TERMINAL.has(to));
}
