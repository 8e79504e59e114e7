// Whether traces and metrics are being recorded. Both are off until the SDK is loaded
// (sdk.ts, only when asked for); while off, every instrumented path checks one boolean and does
// nothing more, so an agent that never asks pays nothing for the instrumentation.

let traces = false;
let metrics = false;

/** True once a tracer provider is registered: spans are made and trace context is passed on. */
export function tracingOn(): boolean {
  return traces;
}

/** True once a meter provider is registered: the instruments of metrics.ts record. */
export function metricsOn(): boolean {
  return metrics;
}

/** @internal Set by the SDK loader (sdk.ts) and by tests that register their own providers. */
export function switchTelemetry(on: { traces?: boolean; metrics?: boolean }): void {
  if (on.traces !== undefined) traces = on.traces;
  if (on.metrics !== undefined) metrics = on.metrics;
}
