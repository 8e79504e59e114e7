// Trace context in and out of what a request carries: headers (HTTP, gRPC metadata, the hub's
// relay frames, push webhooks), an exec program's environment and the lite header's parameters.
// Only through @opentelemetry/api: the W3C propagator is the one the SDK registers. Values are
// checked by protocol/trace-context.ts before the propagator sees them. What is sent is always
// the trace of a context given, never of the active one.

import { propagation, ROOT_CONTEXT, trace, type Context, type TextMapGetter } from '@opentelemetry/api';
import { traceContextOf, type TraceContextText } from '../protocol/trace-context.js';
import { outerParent } from './outer-parent.js';
import { tracingOn } from './switch.js';

type Headers = Readonly<Record<string, string | undefined>>;

const GETTER: TextMapGetter<TraceContextText> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => (key === 'traceparent' ? carrier.traceparent : key === 'tracestate' ? carrier.tracestate : undefined),
};

/** The trace context in `headers` (lower-case names), when it is well formed. */
export function traceTextOf(headers: Headers): TraceContextText | undefined {
  return traceContextOf(headers.traceparent, headers.tracestate);
}

/**
 * The context a request's span is a child of: the one `text` names (headers, a lite header's
 * parameters), else the outermost parent (outer-parent.ts). A malformed value counts as none.
 */
export function parentContext(text: TraceContextText | undefined): Context {
  if (text === undefined) return outerParent();
  const extracted = propagation.extract(ROOT_CONTEXT, text, GETTER);
  return trace.getSpanContext(extracted) === undefined ? outerParent() : extracted;
}

/** The trace context of `parent` (a span's `context`) as text, while tracing is on and it holds a span. */
export function traceTextIn(parent: Context | undefined): TraceContextText | undefined {
  if (!tracingOn() || parent === undefined) return undefined;
  const out: Record<string, string> = {};
  propagation.inject(parent, out);
  return traceContextOf(out.traceparent, out.tracestate);
}

/**
 * Sets `traceparent` (and `tracestate`) in `headers` to `text`, replacing what was there: the
 * next hop's parent is this one. Nothing without a text (tracing off).
 */
export function setTraceHeaders(headers: Record<string, string>, text: TraceContextText | undefined): void {
  if (text === undefined) return;
  headers.traceparent = text.traceparent;
  if (text.tracestate !== undefined) headers.tracestate = text.tracestate;
  else delete headers.tracestate;
}

/** Headers that carry a trace to the next hop: `traceparent` (and `tracestate`), or none. */
export type TraceHeaders = Readonly<Record<string, string>>;

/** The headers that carry the span `parent` holds (none while tracing is off). */
export function traceHeaders(parent: Context | undefined): TraceHeaders {
  const out: Record<string, string> = {};
  setTraceHeaders(out, traceTextIn(parent));
  return out;
}

/** Sets the trace headers of `headers` to the span `parent` holds (see setTraceHeaders). */
export function injectTrace(headers: Record<string, string>, parent: Context | undefined): void {
  setTraceHeaders(headers, traceTextIn(parent));
}

/** The variables that hand the trace of `parent` to a program: TRACEPARENT, TRACESTATE. */
export function traceEnv(parent: Context | undefined): Record<string, string> {
  const text = traceTextIn(parent);
  if (text === undefined) return {};
  return text.tracestate === undefined ? { TRACEPARENT: text.traceparent } : { TRACEPARENT: text.traceparent, TRACESTATE: text.tracestate };
}
