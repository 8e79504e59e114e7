// Traces and metrics of one A2A call a server answers, whatever the binding (JSON-RPC, REST,
// gRPC): a SERVER span named by the method (the A2A semantic conventions), a child of the
// caller's trace context (traceparent, else a lite header's traceparent= parameter), and the
// request's count and latency. Nothing at all while telemetry is off.

import type { Attributes } from '@opentelemetry/api';
import type { LiteCard } from '../../card/types.js';
import type { HttpRequest, HttpResponse } from '../../net/http-types.js';
import { traceContextInLite } from '../../protocol/trace-context.js';
import { a2aMethodName, requestAttributes, resultAttributes } from '../../telemetry/a2a-attributes.js';
import { parentContext, traceTextOf } from '../../telemetry/carrier.js';
import { countRequest, countStream } from '../../telemetry/metrics.js';
import { errorType, SpanKind, spanOver, startSpan, type SpanHandle } from '../../telemetry/spans.js';
import { metricsOn, tracingOn } from '../../telemetry/switch.js';
import type { Method, MethodResult } from './methods.js';

export interface CallFacts {
  method: string;
  binding: 'jsonrpc' | 'rest' | 'grpc';
  version: string;
  params: unknown;
  headers: HttpRequest['headers'];
  remoteAddress?: string;
  card: LiteCard;
}

/** One call being observed: wrap its method with `method`, then `finish` with the answer. */
export class ObservedCall {
  private ran = false;
  private done = false;
  private readonly started = performance.now();
  private readonly name: string;

  private constructor(
    private readonly facts: CallFacts,
    private readonly span: SpanHandle,
  ) {
    this.name = a2aMethodName(facts.method);
  }

  /** Starts observing a call; undefined while neither traces nor metrics are recorded. */
  static start(facts: CallFacts): ObservedCall | undefined {
    if (!tracingOn() && !metricsOn()) return undefined;
    const name = a2aMethodName(facts.method);
    if (!tracingOn()) return new ObservedCall(facts, startSpan(name, SpanKind.SERVER, {}));
    const text = traceTextOf(facts.headers) ?? liteTrace(facts.params);
    const attributes: Attributes = { ...cardAttributes(facts.card), 'a2a.method.name': name, 'a2a.protocol.version': facts.version, 'a2a_lite.binding': facts.binding, ...requestAttributes(facts.params) };
    if (facts.remoteAddress !== undefined) attributes['client.address'] = facts.remoteAddress;
    return new ObservedCall(facts, startSpan(name, SpanKind.SERVER, attributes, parentContext(text)));
  }

  /**
   * `run`, observed: run in the span (given to it as `context.trace`, the parent of what the
   * task does), its result or stream noted, the call finished with it.
   */
  method(run: Method): Method {
    return async (agent, params, context) => {
      this.ran = true;
      // The request's own context (made per request): no copy.
      let traced = context;
      if (this.span.context !== undefined) {
        traced ??= {};
        traced.trace = this.span.context;
      }
      let outcome: MethodResult;
      try {
        outcome = await this.span.run(() => run(agent, params, traced));
      } catch (error) {
        this.end(error);
        throw error;
      }
      if ('result' in outcome) {
        this.span.set(resultAttributes(outcome.result));
        this.end();
        return outcome;
      }
      countStream(1, this.facts.binding);
      const events = spanOver(this.span, outcome.events, (item) => this.span.set(resultAttributes(item.json)), (error) => {
        countStream(-1, this.facts.binding);
        this.end(error);
      });
      return { events };
    };
  }

  /**
   * The answer given: ends the call when its method never ran (refused before it: credentials,
   * extensions, a body that is not A2A), by the answer's status or JSON-RPC error.
   */
  finish(response: HttpResponse): void {
    if (this.ran) return;
    const code = response.status >= 400 ? String(response.status) : 'body' in response && this.facts.binding === 'jsonrpc' ? /"error":\{"code":(-?\d+)/.exec(response.body)?.[1] : undefined;
    if (code === undefined) this.end();
    else this.endAs(code);
  }

  /** Ends the call with a failure of a known type (a gRPC refusal, say). */
  refused(type: string): void {
    this.ran = true;
    this.endAs(type);
  }

  private end(error?: unknown): void {
    if (this.done) return;
    this.done = true;
    this.span.end(error);
    countRequest(this.name, this.facts.binding, error === undefined ? 'ok' : 'error', (performance.now() - this.started) / 1000, error === undefined ? undefined : errorType(error));
  }

  private endAs(type: string): void {
    if (this.done) return;
    this.done = true;
    this.span.fail(type);
    countRequest(this.name, this.facts.binding, 'error', (performance.now() - this.started) / 1000, type);
  }
}

const byCard = new WeakMap<LiteCard, Attributes>();

/** The agent's attributes from its card (`gen_ai.agent.*`), made once per card. */
function cardAttributes(card: LiteCard): Attributes {
  let attributes = byCard.get(card);
  if (attributes === undefined) {
    attributes = { 'gen_ai.agent.name': card.agent.name };
    if (card.agent.version !== undefined) attributes['gen_ai.agent.version'] = card.agent.version;
    if (card.description !== undefined) attributes['gen_ai.agent.description'] = card.description.slice(0, 256);
    byCard.set(card, attributes);
  }
  return attributes;
}

/** The trace context of a lite header opening the request's message, for peers that speak chat. */
function liteTrace(params: unknown): ReturnType<typeof traceContextInLite> {
  const message = typeof params === 'object' && params !== null ? (params as { message?: { parts?: unknown } }).message : undefined;
  const first = Array.isArray(message?.parts) ? (message.parts[0] as { text?: unknown } | undefined) : undefined;
  return typeof first?.text === 'string' ? traceContextInLite(first.text) : undefined;
}
