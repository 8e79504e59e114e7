// The package's metrics, on @opentelemetry/api: made when a meter provider is registered
// (sdk.ts), and a no-op until then. Each is one function the code that knows the fact calls;
// docs/observability.md lists the names as Prometheus shows them.

import { metrics, type Attributes, type Counter, type Histogram, type UpDownCounter } from '@opentelemetry/api';
import { SCOPE } from './spans.js';
import { metricsOn } from './switch.js';

/** Latency buckets in seconds: a card read (~1 ms) up to a task that runs for minutes. */
const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

interface Instruments {
  requests: Counter;
  duration: Histogram;
  streams: UpDownCounter;
  tasks: Counter;
  pushes: Counter;
  commit: Histogram;
  limits: Counter;
}

let made: Instruments | undefined;

function instruments(): Instruments | undefined {
  if (!metricsOn()) return undefined;
  if (made !== undefined) return made;
  const meter = metrics.getMeter(SCOPE);
  made = {
    requests: meter.createCounter('a2a_lite.requests', { description: 'A2A requests answered, by method, binding and outcome' }),
    duration: meter.createHistogram('a2a_lite.request.duration', { unit: 's', description: 'Time to answer an A2A request (to its last event for a stream)', advice: { explicitBucketBoundaries: SECONDS } }),
    streams: meter.createUpDownCounter('a2a_lite.streams.open', { description: 'Event streams open now (SSE and gRPC server streams)' }),
    tasks: meter.createCounter('a2a_lite.task.states', { description: 'Task state changes, by the state reached' }),
    pushes: meter.createCounter('a2a_lite.push.deliveries', { description: 'Push notification deliveries, by outcome' }),
    commit: meter.createHistogram('a2a_lite.store.commit.duration', { unit: 's', description: "Time to write a task's changes to its store", advice: { explicitBucketBoundaries: SECONDS } }),
    limits: meter.createCounter('a2a_lite.limit.hits', { description: 'Requests refused or cut short by a limit, by limit' }),
  };
  const links = meter.createObservableUpDownCounter('a2a_lite.relay.links', { description: "Agents connected to the hub's relay now" });
  links.addCallback((result) => {
    let open = 0;
    for (const relay of relays) open += relay.deref()?.connectedCount() ?? 0;
    result.observe(open);
  });
  return made;
}

/** The relays of the hubs in this process, held weakly: a closed hub is not kept for its count. */
const relays = new Set<WeakRef<{ connectedCount(): number }>>();

/** @internal Forgets the instruments, for a new meter provider (tests). */
export function resetMetrics(): void {
  made = undefined;
}

export type Outcome = 'ok' | 'error';

/** One request answered: `method` as `a2a.method.name`, `binding` jsonrpc/rest/grpc/hub. */
export function countRequest(method: string, binding: string, outcome: Outcome, seconds: number, errorType?: string): void {
  const m = instruments();
  if (m === undefined) return;
  const attributes: Attributes = { 'a2a.method.name': method, 'a2a_lite.binding': binding, outcome };
  if (errorType !== undefined) attributes['error.type'] = errorType;
  m.requests.add(1, attributes);
  m.duration.record(seconds, { 'a2a.method.name': method, 'a2a_lite.binding': binding, outcome });
}

/** A stream opened (+1) or ended (-1). */
export function countStream(change: 1 | -1, binding: string): void {
  instruments()?.streams.add(change, { 'a2a_lite.binding': binding });
}

/** Reports the agents connected to `relay` as `a2a_lite.relay.links` whenever metrics are read. */
export function watchRelayLinks(relay: { connectedCount(): number }): void {
  if (!metricsOn()) return;
  for (const held of relays) if (held.deref() === undefined) relays.delete(held);
  relays.add(new WeakRef(relay));
  instruments();
}

/** A task reached `state` (as `a2a.task.state`). */
export function countTaskState(state: string): void {
  instruments()?.tasks.add(1, { 'a2a.task.state': state });
}

/** A push notification delivered, given up on, or to be tried again. */
export function countPush(outcome: 'delivered' | 'failed' | 'retry'): void {
  instruments()?.pushes.add(1, { outcome });
}

/** A store write of a turn's changes took `seconds`. */
export function recordStoreCommit(seconds: number, store: string): void {
  instruments()?.commit.record(seconds, { 'a2a_lite.store': store });
}

/**
 * A limit refused or cut short a request: `limit` names which (`rate`, `body_size`,
 * `stream_backlog`, …). For any code that enforces one; a no-op while metrics are off.
 *
 * @example
 * if (bucket.empty()) { countLimitHit('rate'); return tooManyRequests(); }
 */
export function countLimitHit(limit: string): void {
  instruments()?.limits.add(1, { limit: limit.slice(0, 64) });
}
