// The parent of a span that has none given: the active span (an embedding application's, set
// with its own context manager), else the trace this process was started in (TRACEPARENT of a
// CLI command), else none. Every span below the outermost is given its parent explicitly.

import { context, trace, type Context } from '@opentelemetry/api';

let processParent: Context | undefined;

/** Makes `parent` the parent of this process's outermost spans (a CLI command's, from TRACEPARENT). */
export function setProcessParent(parent: Context | undefined): void {
  processParent = parent;
}

/** The parent of an outermost span. */
export function outerParent(): Context {
  const active = context.active();
  return processParent !== undefined && trace.getSpanContext(active) === undefined ? processParent : active;
}
