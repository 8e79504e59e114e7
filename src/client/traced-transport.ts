// A transport whose calls are CLIENT spans named by their A2A method (the A2A semantic
// conventions), children of the transport's parent (a plan step's span, a tool's), each handed
// to its binding as the headers that carry it (traceparent; gRPC metadata), so that the agent's
// span is its child. A stream's span lasts while it is read. While tracing is off, each call
// goes straight to the binding.

import type { Attributes, Context } from '@opentelemetry/api';
import type { Task, TaskEvent, TaskMessage } from '../model/task.js';
import { requestAttributes, resultAttributes, serverAttributes } from '../telemetry/a2a-attributes.js';
import { traceHeaders, type TraceHeaders } from '../telemetry/carrier.js';
import { inSpan, SpanKind, spanOver, startSpan } from '../telemetry/spans.js';
import { tracingOn } from '../telemetry/switch.js';
import type { Outcome, SendOptions, Transport } from './transport.js';

/** A binding (JSON-RPC, REST, gRPC): a transport whose calls also take the headers that carry their span. */
export interface TraceableTransport extends Transport {
  send(message: TaskMessage, options?: SendOptions, trace?: TraceHeaders): Promise<Outcome>;
  stream(message: TaskMessage, signal?: AbortSignal, options?: Pick<SendOptions, 'idempotencyKey'>, trace?: TraceHeaders): AsyncIterable<TaskEvent>;
  getTask(id: string, signal?: AbortSignal, trace?: TraceHeaders): Promise<Task>;
  cancelTask(id: string, signal?: AbortSignal, trace?: TraceHeaders): Promise<Task>;
  subscribe(id: string, signal?: AbortSignal, after?: number, trace?: TraceHeaders): AsyncIterable<TaskEvent>;
}

/** The binding as the server's spans name it. */
const BINDINGS: Readonly<Record<string, string>> = { JSONRPC: 'jsonrpc', 'HTTP+JSON': 'rest', GRPC: 'grpc' };

export class TracedTransport implements Transport {
  /** `parent`: of every call's span; left out, the outermost parent (telemetry/outer-parent.ts). */
  constructor(
    private readonly inner: TraceableTransport,
    private readonly parent?: Context,
  ) {}

  get target(): Transport['target'] {
    return this.inner.target;
  }

  send(message: TaskMessage, options?: SendOptions): Promise<Outcome> {
    if (!tracingOn()) return this.inner.send(message, options);
    return inSpan(
      'SendMessage',
      SpanKind.CLIENT,
      this.attributes('SendMessage', { message }),
      async (span) => {
        const outcome = await this.inner.send(message, options, traceHeaders(span.context));
        span.set(resultAttributes(outcome));
        return outcome;
      },
      this.parent,
    );
  }

  stream(message: TaskMessage, signal?: AbortSignal, options?: Pick<SendOptions, 'idempotencyKey'>): AsyncIterable<TaskEvent> {
    if (!tracingOn()) return this.inner.stream(message, signal, options);
    const span = startSpan('SendStreamingMessage', SpanKind.CLIENT, this.attributes('SendStreamingMessage', { message }), this.parent);
    return spanOver(span, this.inner.stream(message, signal, options, traceHeaders(span.context)), (event) => span.set(resultAttributes(event)));
  }

  getTask(id: string, signal?: AbortSignal): Promise<Task> {
    return this.unary('GetTask', id, (trace) => this.inner.getTask(id, signal, trace));
  }

  cancelTask(id: string, signal?: AbortSignal): Promise<Task> {
    return this.unary('CancelTask', id, (trace) => this.inner.cancelTask(id, signal, trace));
  }

  subscribe(id: string, signal?: AbortSignal, after?: number): AsyncIterable<TaskEvent> {
    if (!tracingOn()) return this.inner.subscribe(id, signal, after);
    const span = startSpan('SubscribeToTask', SpanKind.CLIENT, this.attributes('SubscribeToTask', { id }), this.parent);
    return spanOver(span, this.inner.subscribe(id, signal, after, traceHeaders(span.context)), (event) => span.set(resultAttributes(event)));
  }

  /** Closes the transport's connection, when it keeps one (gRPC). */
  close(): void {
    (this.inner as { close?: () => void }).close?.();
  }

  private unary(method: string, id: string, call: (trace?: TraceHeaders) => Promise<Task>): Promise<Task> {
    if (!tracingOn()) return call();
    return inSpan(
      method,
      SpanKind.CLIENT,
      this.attributes(method, { id }),
      async (span) => {
        const task = await call(traceHeaders(span.context));
        span.set(resultAttributes(task));
        return task;
      },
      this.parent,
    );
  }

  private attributes(method: string, params: unknown): Attributes {
    const target = this.inner.target;
    return {
      'a2a.method.name': method,
      'a2a.protocol.version': target.version,
      'a2a_lite.binding': BINDINGS[target.binding] ?? target.binding,
      ...(target.tenant === undefined ? {} : { 'a2a.tenant': target.tenant }),
      ...serverAttributes(target.url),
      ...requestAttributes(params),
    };
  }
}
