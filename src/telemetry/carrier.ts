// Trace context in and out of what a request carries: headers (HTTP, gRPC metadata, the hub's
// relay frames, push webhooks), an exec program's environment and the lite header's parameters.
// Only through @opentelemetry/api: the W3C propagator is the one the SDK registers. Values are
// checked by protocol/trace-context.ts before the propagator sees them.

import { context, propagation, ROOT_CONTEXT, trace, type Context, type TextMapGetter } from '@opentelemetry/api';
import { traceContextOf, type TraceContextText } from '../protocol/trace-context.js';
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
 * parameters), else the active one. A malformed value counts as none.
 */
export function parentContext(text: TraceContextText | undefined): Context {
  const active = context.active();
  if (text === undefined) return active;
  const extracted = propagation.extract(ROOT_CONTEXT, text, GETTER);
  return trace.getSpanContext(extracted) === undefined ? active : extracted;
}

/** The active span's trace context as text (`traceparent`, `tracestate`), when tracing is on. */
export function currentTraceText(): TraceContextText | undefined {
  if (!tracingOn()) return undefined;
  const out: Record<string, string> = {};
  propagation.inject(context.active(), out);
  return traceContextOf(out.traceparent, out.tracestate);
}

/**
 * Sets `traceparent` (and `tracestate`) in `headers` from the active span, replacing what was
 * there: the next hop's parent is this one. Nothing when tracing is off.
 */
export function injectTrace(headers: Record<string, string>): void {
  const text = currentTraceText();
  if (text === undefined) return;
  headers.traceparent = text.traceparent;
  if (text.tracestate !== undefined) headers.tracestate = text.tracestate;
  else delete headers.tracestate;
}

/** The variables that hand the active trace to a program: TRACEPARENT, TRACESTATE. */
export function traceEnv(): Record<string, string> {
  const text = currentTraceText();
  if (text === undefined) return {};
  return text.tracestate === undefined ? { TRACEPARENT: text.traceparent } : { TRACEPARENT: text.traceparent, TRACESTATE: text.tracestate };
}
