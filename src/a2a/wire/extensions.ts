// The A2A extensions a2a-lite serves beyond 1.0, declared in the card (capabilities.extensions)
// and activated by a client that names them in the `A2A-Extensions` header (`X-A2A-Extensions`
// in 0.3); the server names the ones it activated in the same header of its answer. An extension
// the card marks required must be activated by every request but the card's.
//
// - resume: every status and artifact event of a task is numbered (its SSE `id:`); a client cut
//   off resubscribes with `Last-Event-ID` (or `lastEventId`) and gets what it missed. With the
//   extension active, each streamed object also carries its number in `metadata`.
// - idempotency: a send with an `Idempotency-Key` header is answered with the first answer to
//   that key, never started twice; a client that activates the extension has its message ids
//   count as keys too (a retried message with the same id and words).

import { LiteError } from '../../errors.js';
import type { TaskEvent } from '../../model/task.js';
import type { CardExtension } from './agent-card.js';
import type { Json } from './fields.js';

export const RESUME_EXTENSION = 'https://a2a-lite.dev/extensions/resume/v1';
export const IDEMPOTENCY_EXTENSION = 'https://a2a-lite.dev/extensions/idempotency/v1';

/** The two as the card declares them, with what a client needs to use them. */
export function reliabilityExtensions(directAnswerTtlSeconds: number): CardExtension[] {
  return [
    {
      uri: RESUME_EXTENSION,
      description: 'Events are numbered per task (SSE id); resubscribe with Last-Event-ID or lastEventId to get the ones missed',
      params: { header: 'Last-Event-ID', param: 'lastEventId' },
    },
    {
      uri: IDEMPOTENCY_EXTENSION,
      description: 'A send retried with the same Idempotency-Key (or, with this extension activated, the same message id) gets the first answer; the work starts once',
      params: { header: 'Idempotency-Key', keptFor: 'as long as the task', directAnswerTtlSeconds, messageIdKeys: 'when activated' },
    },
  ];
}

/** The extensions of a request's header value (a comma-separated list of URIs). */
export function requestedExtensions(header: string | undefined): Set<string> {
  if (header === undefined || header === '') return new Set();
  return new Set((header ?? '').split(',').map((uri) => uri.trim()).filter((uri) => uri !== ''));
}

/**
 * Refuses a request that leaves out an extension the card marks required (A2A §3.3.4, §4.6.3):
 * EXTENSION_SUPPORT_REQUIRED, naming each one missing. Another version of the extension (a
 * different URI) does not stand in for it.
 *
 * @example
 * requireExtensions(['https://example.com/signed/v1'], new Set()); // throws EXTENSION_SUPPORT_REQUIRED
 */
export function requireExtensions(required: readonly string[], activated: ReadonlySet<string> | undefined): void {
  const missing = required.filter((uri) => activated?.has(uri) !== true);
  if (missing.length === 0) return;
  const them = missing.length === 1 ? 'the extension' : 'the extensions';
  throw new LiteError('EXTENSION_SUPPORT_REQUIRED', `this agent requires ${them} ${missing.join(', ')}; name ${missing.length === 1 ? 'it' : 'them'} in the A2A-Extensions header (X-A2A-Extensions in 0.3)`);
}

/**
 * The event number a client resumes after: `lastEventId` of the params when given, else the
 * `Last-Event-ID` header; undefined when neither is. A number this server never hands out is
 * refused, naming where it came from.
 */
export function resumeCursor(param: unknown, header: string | undefined): number | undefined {
  const [value, from] = param !== undefined && param !== null ? [param, 'params.lastEventId'] : [header, 'Last-Event-ID'];
  if (value === undefined || value === '') return undefined;
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^\d{1,15}$/.test(text.trim())) {
    throw new LiteError('INVALID_PARAMS', `${from} must be the id of an event this server sent (a whole number)`);
  }
  return Number(text.trim());
}

/**
 * The wire object of `event` with its number in `metadata` under the resume extension's URI
 * (and `gap: true` on a task that stands in for events no longer kept). `inner` picks the object
 * that has the metadata: the StreamResponse member in 1.0, the object itself in 0.3.
 */
export function withSeq(json: Json, event: TaskEvent, inner: (json: Json) => Json | undefined): Json {
  const seq = 'seq' in event ? event.seq : undefined;
  const target = inner(json);
  if (seq === undefined || target === undefined) return json;
  const mark: Json = { seq };
  if (event.kind === 'task' && event.gap === true) mark.gap = true;
  const metadata = typeof target.metadata === 'object' && target.metadata !== null ? (target.metadata as Json) : {};
  target.metadata = { ...metadata, [RESUME_EXTENSION]: mark };
  return json;
}
