// A transport whose calls are CLIENT spans named by their A2A method (the A2A semantic
// conventions), each active while its request goes out, so that the request carries the span
// as its traceparent (http-call.ts, grpc-transport.ts). A stream's span lasts while it is read.
// While tracing is off, each call goes straight to the transport.

import type { Attributes } from '@opentelemetry/api';
import type { Task, TaskEvent, TaskMessage } from '../model/task.js';
import { requestAttributes, resultAttributes, serverAttributes } from '../telemetry/a2a-attributes.js';
import { inSpan, SpanKind, spanOver, startSpan } from '../telemetry/spans.js';
import { tracingOn } from '../telemetry/switch.js';
import type { Outcome, SendOptions, Transport } from './transport.js';

/** The binding as the server's spans name it. */
const BINDINGS: Readonly<Record<string, string>> = { JSONRPC: 'jsonrpc', 'HTTP+JSON': 'rest', GRPC: 'grpc' };

export class TracedTransport implements Transport {
  constructor(private readonly inner: Transport) {}

  get target(): Transport['target'] {
    return this.inner.target;
  }

  send(message: TaskMessage, options?: SendOptions): Promise<Outcome> {
    if (!tracingOn()) return this.inner.send(message, options);
    return inSpan('SendMessage', SpanKind.CLIENT, this.attributes('SendMessage', { message }), async (span) => {
      const outcome = await this.inner.send(message, options);
      span.set(resultAttributes(outcome));
      return outcome;
    });
  }

  stream(message: TaskMessage, signal?: AbortSignal, options?: Pick<SendOptions, 'idempotencyKey'>): AsyncIterable<TaskEvent> {
    if (!tracingOn()) return this.inner.stream(message, signal, options);
    const span = startSpan('SendStreamingMessage', SpanKind.CLIENT, this.attributes('SendStreamingMessage', { message }));
    return spanOver(span, span.run(() => this.inner.stream(message, signal, options)), (event) => span.set(resultAttributes(event)));
  }

  getTask(id: string, signal?: AbortSignal): Promise<Task> {
    return this.unary('GetTask', id, () => this.inner.getTask(id, signal));
  }

  cancelTask(id: string, signal?: AbortSignal): Promise<Task> {
    return this.unary('CancelTask', id, () => this.inner.cancelTask(id, signal));
  }

  subscribe(id: string, signal?: AbortSignal, after?: number): AsyncIterable<TaskEvent> {
    if (!tracingOn()) return this.inner.subscribe(id, signal, after);
    const span = startSpan('SubscribeToTask', SpanKind.CLIENT, this.attributes('SubscribeToTask', { id }));
    return spanOver(span, span.run(() => this.inner.subscribe(id, signal, after)), (event) => span.set(resultAttributes(event)));
  }

  /** Closes the transport's connection, when it keeps one (gRPC). */
  close(): void {
    (this.inner as { close?: () => void }).close?.();
  }

  private unary(method: string, id: string, call: () => Promise<Task>): Promise<Task> {
    if (!tracingOn()) return call();
    return inSpan(method, SpanKind.CLIENT, this.attributes(method, { id }), async (span) => {
      const task = await call();
      span.set(resultAttributes(task));
      return task;
    });
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
