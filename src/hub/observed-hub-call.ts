// Traces and metrics of a request the hub relays: a SERVER span for the call the hub answers
// (named by its A2A method), and inside it a CLIENT span for the hop to the agent, down its
// relay link or on to its URL. The hop's span is what the forwarded headers carry as
// traceparent, so the agent's own span is its child: one trace from caller to agent.

import type { Attributes } from '@opentelemetry/api';
import type { A2ARead } from '../a2a/server/request-reading.js';
import type { HttpRequest, HttpResponse } from '../net/http-types.js';
import { a2aMethodName, requestAttributes, serverAttributes } from '../telemetry/a2a-attributes.js';
import { injectTrace, parentContext, traceTextOf } from '../telemetry/carrier.js';
import { countRequest, countStream } from '../telemetry/metrics.js';
import { SpanKind, spanOver, startSpan, type SpanHandle } from '../telemetry/spans.js';
import { metricsOn, tracingOn } from '../telemetry/switch.js';

type Call = Extract<A2ARead, { kind: 'call' }>;

export class HubCall {
  private readonly started = performance.now();
  private done = false;

  private constructor(
    private readonly name: string,
    private readonly server: SpanHandle,
    private readonly hop: SpanHandle,
  ) {}

  /**
   * Starts observing the relay of `call` (undefined for the card) to agent `id`, reached at
   * `url` or over its link; undefined while telemetry is off.
   */
  static start(id: string, request: HttpRequest, call: Call | undefined, url: string | undefined): HubCall | undefined {
    if (!tracingOn() && !metricsOn()) return undefined;
    const name = call === undefined ? 'GetAgentCard' : a2aMethodName(call.method);
    // Metrics alone: no span, so none of the attributes and trace context a span would take.
    if (!tracingOn()) {
      const none = startSpan(name, SpanKind.SERVER, {});
      return new HubCall(name, none, none);
    }
    const common: Attributes = call === undefined ? {} : { 'a2a.method.name': name, 'a2a.protocol.version': call.version, ...requestAttributes(call.params) };
    const server = startSpan(name, SpanKind.SERVER, { ...common, 'a2a_lite.binding': call?.binding ?? 'card', ...(request.remoteAddress === undefined ? {} : { 'client.address': request.remoteAddress }) }, parentContext(traceTextOf(request.headers)));
    const hop = startSpan(name, SpanKind.CLIENT, { ...common, 'gen_ai.agent.id': id, 'a2a_lite.relay': url === undefined ? 'link' : 'url', ...(url === undefined ? {} : serverAttributes(url)) }, server.context);
    return new HubCall(name, server, hop);
  }

  /** Sets the hop's span as the traceparent of the headers forwarded to the agent (over HTTP or in the link's frame). */
  inject(headers: Record<string, string>): void {
    injectTrace(headers, this.hop.context);
  }

  /** The agent's answer, passed on: both spans end with it (a stream's when it ends). */
  finish(response: HttpResponse): HttpResponse {
    const failure = response.status >= 400 ? String(response.status) : 'body' in response ? /"error":\{"code":(-?\d+)/.exec(response.body.slice(0, 200))?.[1] : undefined;
    if ('body' in response) {
      this.end(failure);
      return response;
    }
    countStream(1, 'hub');
    const events = spanOver(this.hop, response.events, undefined, (error) => {
      countStream(-1, 'hub');
      this.end(error === undefined ? failure : 'stream_broken');
    });
    return { ...response, events };
  }

  /** The relay failed before an answer came. */
  failed(error: unknown): void {
    this.end(error instanceof Error && error.name !== 'Error' ? error.name : '_OTHER');
  }

  private end(failure: string | undefined): void {
    if (this.done) return;
    this.done = true;
    for (const span of [this.hop, this.server]) {
      if (failure === undefined) span.end();
      else span.fail(failure);
    }
    countRequest(this.name, 'hub', failure === undefined ? 'ok' : 'error', (performance.now() - this.started) / 1000, failure);
  }
}
