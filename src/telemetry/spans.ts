// Spans on @opentelemetry/api: one handle that is a real span while tracing is on and a shared
// no-op otherwise, so that instrumented code reads the same either way and costs one boolean
// check when nothing records. A span ends once, with its error (if any) as `error.type`.
// Parents are passed, never found: a span's children are started with its `context`, because
// after an `await` the active context says nothing (sync-context.ts: no async hooks).

import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { ERROR_TABLE, isLiteError } from '../errors.js';
import { outerParent } from './outer-parent.js';
import { tracingOn } from './switch.js';

export { SpanKind };

/** The tracer's name: the instrumentation scope of every span this package makes. */
export const SCOPE = 'a2a-lite';

/** A span, or nothing while tracing is off. `end` may be called any number of times; the first counts. */
export class SpanHandle {
  private ended = false;

  constructor(
    readonly span: Span | undefined,
    /** The context that holds this span: the parent to give its children and the carriers. */
    readonly context: Context | undefined,
  ) {}

  get recording(): boolean {
    return this.span !== undefined;
  }

  set(attributes: Attributes): this {
    if (this.span !== undefined && !this.ended) this.span.setAttributes(attributes);
    return this;
  }

  /** Ends the span, failed with `error` when given (`error.type`, status ERROR, the message). */
  end(error?: unknown): void {
    if (this.span === undefined || this.ended) return;
    this.ended = true;
    if (error !== undefined) {
      this.span.setAttribute('error.type', errorType(error));
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
    }
    this.span.end();
  }

  /** Ends the span as failed with a type of error already known (a status code, an A2A code). */
  fail(type: string, message?: string): void {
    if (this.span === undefined || this.ended) return;
    this.ended = true;
    this.span.setAttribute('error.type', type);
    this.span.setStatus({ code: SpanStatusCode.ERROR, ...(message === undefined ? {} : { message }) });
    this.span.end();
  }

  /**
   * Runs `fn` with this span active, for what reads the active context at once (instrumentation
   * of an embedding application); only `fn`'s synchronous part is sure to see it.
   */
  run<T>(fn: () => T): T {
    return this.context === undefined ? fn() : context.with(this.context, fn);
  }
}

const NONE = new SpanHandle(undefined, undefined);

/**
 * A new span, a child of `parent` (else of the outermost parent: the active span or the
 * process's, carrier.ts), or the no-op handle while tracing is off.
 */
export function startSpan(name: string, kind: SpanKind, attributes: Attributes, parent?: Context): SpanHandle {
  if (!tracingOn()) return NONE;
  const base = parent ?? outerParent();
  const span = trace.getTracer(SCOPE).startSpan(name, { kind, attributes }, base);
  return new SpanHandle(span, trace.setSpan(base, span));
}

/**
 * Runs `fn` in a new span that ends when it settles (failed when it throws); `fn` starts its
 * children with `span.context`.
 *
 * @example
 * await inSpan('invoke_workflow review', SpanKind.INTERNAL, { 'gen_ai.operation.name': 'invoke_workflow' }, (span) => execute(span.context));
 */
export async function inSpan<T>(name: string, kind: SpanKind, attributes: Attributes, fn: (span: SpanHandle) => Promise<T>, parent?: Context): Promise<T> {
  const span = startSpan(name, kind, attributes, parent);
  if (!span.recording) return fn(span);
  try {
    const value = await span.run(() => fn(span));
    span.end();
    return value;
  } catch (error) {
    span.end(error);
    throw error;
  }
}

/**
 * `events` read in `span`'s context, the span ending when they end, break off or fail;
 * `onItem` sees each one first (to note a task's state, say), `onEnd` the end and its error.
 */
export async function* spanOver<T>(span: SpanHandle, events: AsyncIterable<T>, onItem?: (item: T) => void, onEnd?: (error?: unknown) => void): AsyncGenerator<T> {
  if (!span.recording && onEnd === undefined) {
    yield* events;
    return;
  }
  const iterator = span.run(() => events[Symbol.asyncIterator]());
  let failure: unknown;
  try {
    for (;;) {
      const next = await span.run(() => iterator.next());
      if (next.done === true) return;
      if (span.recording) onItem?.(next.value);
      yield next.value;
    }
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    if (failure === undefined) await iterator.return?.().catch(() => undefined);
    span.end(failure);
    onEnd?.(failure);
  }
}

/**
 * `error.type` of a failure: the JSON-RPC code of an A2A error (as the A2A conventions ask),
 * else the error's class name, else `_OTHER`.
 */
export function errorType(error: unknown): string {
  if (isLiteError(error)) return String(ERROR_TABLE[error.code].rpc);
  if (error instanceof Error && error.name !== '' && error.name !== 'Error') return error.name;
  return '_OTHER';
}

/** A failure's message, cut short: span statuses are not logs. */
function errorMessage(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 200);
}
