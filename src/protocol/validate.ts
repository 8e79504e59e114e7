// The per-type rules of A2A-Lite: which parameters each type needs and allows, and what
// their values may be. Reports every problem at once; unknown things are notices, not errors.

import { LiteError } from '../errors.js';
import { credentialShapes, isSecretName, looksLikeSecretValue } from '../secrets.js';
import { isTerminal, isWireState, WIRE_STATES } from './states.js';
import { MAX_TRACESTATE, traceContextOf } from './trace-context.js';
import { KNOWN_TYPES, type KnownType, type Message, type Problem } from './types.js';

/** The parameters a message type must carry, and those it may. */
export interface TypeRule {
  required: readonly string[];
  optional: readonly string[];
}

/** The protocol reference's table, plus `reason` where a refusal needs one and the card's `id`. */
export const TYPE_RULES: Readonly<Record<KnownType, TypeRule>> = {
  discover: { required: [], optional: [] },
  card: { required: [], optional: ['id'] },
  task: { required: ['id'], optional: ['skill', 'priority'] },
  status: { required: ['task', 'state'], optional: ['progress', 'eta', 'reason'] },
  result: { required: ['task', 'state'], optional: ['artifacts', 'reason'] },
  cancel: { required: ['task'], optional: ['reason'] },
  ack: { required: ['task'], optional: [] },
};

export const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;

/** Parameters every type may carry: W3C trace context, since chat has no headers to carry it. */
export const TRACE_PARAMS: ReadonlySet<string> = new Set(['traceparent', 'tracestate']);

/** Task ids become file names and travel in headers: letters, digits, then `_ . : -`, at most 128. */
export const TASK_ID = /^[\p{L}\p{N}][\p{L}\p{N}_.:-]{0,127}$/u;
/** Parameter names: a letter, then letters, digits, `.`, `-` or `_`. */
export const PARAM_NAME = /^[A-Za-z][A-Za-z0-9_.-]*$/;
/** Message types: a lower-case letter, then lower-case letters, digits, `-` or `_`. */
export const TYPE_NAME = /^[a-z][a-z0-9_-]*$/;
const PROGRESS = /^(\d{1,3})(\.\d+)?%?$/;
const KNOWN: ReadonlySet<string> = new Set(KNOWN_TYPES);

/**
 * Checks `message` against the rules of its type and returns every problem found (an empty
 * list for a valid message). Problems of level `notice` do not make a message invalid.
 *
 * @example
 * validate(parse('[A2A:result task=t-1 state=working]'))
 * // [{ code: 'RESULT_NOT_TERMINAL', level: 'error', param: 'state', message: … }]
 */
export function validate(message: Message): Problem[] {
  const problems: Problem[] = [];
  const error = (code: Problem['code'], text: string, param?: string): void => {
    problems.push(param === undefined ? { code, level: 'error', message: text } : { code, level: 'error', message: text, param });
  };
  const notice = (code: Problem['code'], text: string, param?: string): void => {
    problems.push(param === undefined ? { code, level: 'notice', message: text } : { code, level: 'notice', message: text, param });
  };

  const { type, params } = message;
  checkCredentials(message, error);
  if (type === 'plain') {
    // `plain` is text without a header: a header naming it (`[A2A:plain k=v]`) cannot be written back.
    if (Object.keys(params).length > 0) error('INVALID_TYPE', '"plain" is the type of text without a header, so it cannot carry parameters');
    checkAttachments(message.attachments, error);
    return problems;
  }
  if (!TYPE_NAME.test(type)) {
    error('INVALID_TYPE', `message type ${JSON.stringify(type)} must be lower-case letters, digits, "-" or "_", starting with a letter`);
  } else if (!KNOWN.has(type)) {
    notice('UNKNOWN_TYPE', `type "${type}" is not part of A2A-Lite 1.0; kept as is`);
  }

  const rule = KNOWN.has(type) ? TYPE_RULES[type as KnownType] : undefined;
  for (const [key, value] of Object.entries(params)) {
    if (!PARAM_NAME.test(key)) {
      error('INVALID_PARAM_NAME', `parameter name ${JSON.stringify(key)} must start with a letter and hold only letters, digits, ".", "-" or "_"`, key);
      continue;
    }
    if (/[\r\n]/.test(value)) error('INVALID_PARAM_VALUE', `parameter "${key}" holds a line break`, key);
    if (rule === undefined) continue;
    if (TRACE_PARAMS.has(key)) continue;
    if (!rule.required.includes(key) && !rule.optional.includes(key)) {
      notice('UNKNOWN_PARAM', `parameter "${key}" is not defined for "${type}"; kept as is`, key);
    } else if (value === '') {
      error('EMPTY_PARAM', `parameter "${key}" is empty`, key);
    }
  }
  if (rule === undefined) {
    checkAttachments(message.attachments, error);
    return problems;
  }

  for (const key of rule.required) {
    if (!Object.hasOwn(params, key)) error('MISSING_PARAM', `"${type}" needs the parameter "${key}"`, key);
  }
  for (const key of ['id', 'task'] as const) {
    const value = params[key];
    if (value !== undefined && value !== '' && (rule.required.includes(key) || rule.optional.includes(key)) && !TASK_ID.test(value)) {
      error('INVALID_TASK_ID', `${key} ${JSON.stringify(value)} must be 1–128 letters or digits, with "_", ".", ":" or "-" after the first`, key);
    }
  }
  checkTrace(params, notice);
  checkState(type, params.state, error);
  checkProgress(params.progress, error);
  if (params.priority !== undefined && params.priority !== '' && !(PRIORITIES as readonly string[]).includes(params.priority)) {
    notice('UNKNOWN_PRIORITY', `priority "${params.priority}" is none of ${PRIORITIES.join(', ')}`, 'priority');
  }
  if (type === 'result' && params.artifacts !== undefined && /^\d+$/.test(params.artifacts)) {
    const count = Number(params.artifacts);
    if (count !== message.attachments.length) {
      notice('ARTIFACT_COUNT_MISMATCH', `artifacts=${count} but ${message.attachments.length} attachment line(s) follow`, 'artifacts');
    }
  }
  checkAttachments(message.attachments, error);
  return problems;
}

/**
 * The error that refuses a message: every error-level problem in one sentence, all of them in
 * `details.problems`.
 */
export function refusal(problems: readonly Problem[], prefix = 'refused'): LiteError {
  const errors = problems.filter((p) => p.level === 'error').map((p) => p.message);
  return new LiteError('INVALID_MESSAGE', `${prefix}: ${errors.join('; ')}`, { problems });
}

/** True when `problems` holds no error (notices are allowed). */
export function isValid(problems: readonly Problem[]): boolean {
  return problems.every((p) => p.level !== 'error');
}

type Report = (code: Problem['code'], text: string, param?: string) => void;

function checkState(type: string, state: string | undefined, error: Report): void {
  if (state === undefined || state === '' || (type !== 'status' && type !== 'result')) return;
  if (!isWireState(state)) {
    const hint = state === 'submitted' ? ' ("submitted" is only the ledger\'s state before an answer; send "accepted")' : '';
    error('INVALID_STATE', `state "${state}" is none of ${WIRE_STATES.join(', ')}${hint}`, 'state');
  } else if (type === 'result' && !isTerminal(state)) {
    error('RESULT_NOT_TERMINAL', `a result must end the task (completed, failed, cancelled or rejected), not "${state}"; use status`, 'state');
  }
}

/** A malformed trace context is ignored, not refused: the message stands without it. */
function checkTrace(params: Readonly<Record<string, string>>, notice: Report): void {
  const { traceparent, tracestate } = params;
  if (traceparent === undefined && tracestate === undefined) return;
  const read = traceContextOf(traceparent, tracestate);
  if (read === undefined) notice('INVALID_TRACE_CONTEXT', traceparent === undefined ? 'tracestate without traceparent is ignored' : 'traceparent is not W3C trace context (version-traceid-parentid-flags in lower-case hex); it is ignored', traceparent === undefined ? 'tracestate' : 'traceparent');
  else if (tracestate !== undefined && read.tracestate === undefined) notice('INVALID_TRACE_CONTEXT', `tracestate is over ${MAX_TRACESTATE} characters or not printable ASCII; it is ignored`, 'tracestate');
}

function checkProgress(progress: string | undefined, error: Report): void {
  if (progress === undefined || progress === '') return;
  const match = PROGRESS.exec(progress);
  if (match === null || Number.parseFloat(progress) > 100) {
    error('INVALID_PROGRESS', `progress "${progress}" must be a number from 0 to 100, optionally with "%"`, 'progress');
  }
}

/** The protocol forbids credentials in messages: flag every known token shape, never its value. */
function checkCredentials(message: Message, error: Report): void {
  const places: [string, string, string | undefined][] = [
    ...Object.entries(message.params).map(([key, value]): [string, string, string | undefined] => [`parameter "${key}"`, value, key]),
    ['the body', message.body, undefined],
    ...message.attachments.map((name): [string, string, string | undefined] => ['an attachment name', name, undefined]),
  ];
  for (const [where, text, param] of places) {
    const kinds = credentialShapes(text);
    if (param !== undefined && isSecretName(param) && looksLikeSecretValue(text)) kinds.push(`a value named "${param}"`);
    if (kinds.length > 0) {
      error('CREDENTIAL_IN_MESSAGE', `${where} holds what looks like a credential (${kinds.join(', ')}); never send credentials in messages`, param);
    }
  }
}

function checkAttachments(names: readonly string[], error: Report): void {
  for (const name of names) {
    if (name.trim() === '' || name !== name.trim() || /[\u0000-\u001f\u007f]/.test(name)) {
      error('INVALID_ATTACHMENT', `attachment name ${JSON.stringify(name)} must be trimmed, non-empty and free of control characters`);
    }
  }
}

/** Reads `progress=50%` as the number 50 (undefined when absent or malformed). */
export function progressValue(progress: string | undefined): number | undefined {
  if (progress === undefined || !PROGRESS.test(progress)) return undefined;
  const value = Number.parseFloat(progress);
  return value <= 100 ? value : undefined;
}
