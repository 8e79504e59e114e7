// Calling an agent over JSON-RPC, 1.0 or 0.3: the two differ only in method names, shapes and
// how a send says it will not wait (a dialect each); requests, answers, errors and streams are
// read the same way.

import { eventFromV1, messageToV1, taskFromV1 } from '../a2a/wire/v1.js';
import { eventFromV03, messageToV03, taskFromV03 } from '../a2a/wire/v03.js';
import type { RemoteInterface } from '../model/remote-access.js';
import type { TraceHeaders } from '../telemetry/carrier.js';
import type { Task, TaskEvent, TaskMessage } from '../model/task.js';
import { readRpcReply, rpcRequest } from '../net/jsonrpc.js';
import { isEventStream, parseJson, type Http } from './http-call.js';
import { httpError, notA2A, peerError, read } from './peer-errors.js';
import { idempotencyHeaders, numbered, resumeHeaders, type Outcome, type SendOptions, type Transport } from './transport.js';

interface RpcDialect {
  version: '1.0' | '0.3';
  methods: Record<'send' | 'stream' | 'get' | 'cancel' | 'subscribe', string>;
  message(message: TaskMessage): unknown;
  event(value: unknown): TaskEvent;
  task(value: unknown): Task;
  sendParams(message: TaskMessage, returnImmediately: boolean): Record<string, unknown>;
}

export const V1_RPC: RpcDialect = {
  version: '1.0',
  methods: { send: 'SendMessage', stream: 'SendStreamingMessage', get: 'GetTask', cancel: 'CancelTask', subscribe: 'SubscribeToTask' },
  message: messageToV1,
  event: (value) => eventFromV1(value),
  task: (value) => taskFromV1(value),
  sendParams: (message, returnImmediately) => ({ message: messageToV1(message), configuration: { returnImmediately } }),
};

export const V03_RPC: RpcDialect = {
  version: '0.3',
  methods: { send: 'message/send', stream: 'message/stream', get: 'tasks/get', cancel: 'tasks/cancel', subscribe: 'tasks/resubscribe' },
  message: messageToV03,
  event: (value) => eventFromV03(value),
  task: (value) => taskFromV03(value),
  // 0.3 says it the other way round: `blocking`.
  sendParams: (message, returnImmediately) => ({ message: messageToV03(message), configuration: { blocking: !returnImmediately } }),
};

export class JsonRpc implements Transport {
  private counter = 0;

  constructor(
    readonly target: RemoteInterface,
    private readonly http: Http,
    private readonly dialect: RpcDialect,
  ) {}

  async send(message: TaskMessage, options: SendOptions = {}, trace: TraceHeaders = {}): Promise<Outcome> {
    const result = await this.call(this.dialect.methods.send, this.dialect.sendParams(message, options.returnImmediately === true), options.signal, options.timeoutMs, { ...idempotencyHeaders(options.idempotencyKey), ...trace });
    const event = read(() => this.dialect.event(result), this.target);
    if (event.kind === 'task') return { kind: 'task', task: event.task };
    if (event.kind === 'message') return { kind: 'message', message: event.message };
    throw notA2A(this.target, `a ${this.dialect.methods.send} result holds a task or a message, not a ${event.kind} update`);
  }

  stream(message: TaskMessage, signal?: AbortSignal, options: Pick<SendOptions, 'idempotencyKey'> = {}, trace: TraceHeaders = {}): AsyncIterable<TaskEvent> {
    return this.events(this.dialect.methods.stream, this.dialect.sendParams(message, false), signal, { ...idempotencyHeaders(options.idempotencyKey), ...trace });
  }

  async getTask(id: string, signal?: AbortSignal, trace: TraceHeaders = {}): Promise<Task> {
    const result = await this.call(this.dialect.methods.get, { id }, signal, undefined, trace);
    return read(() => this.dialect.task(result), this.target);
  }

  async cancelTask(id: string, signal?: AbortSignal, trace: TraceHeaders = {}): Promise<Task> {
    const result = await this.call(this.dialect.methods.cancel, { id }, signal, undefined, trace);
    return read(() => this.dialect.task(result), this.target);
  }

  subscribe(id: string, signal?: AbortSignal, after?: number, trace: TraceHeaders = {}): AsyncIterable<TaskEvent> {
    return this.events(this.dialect.methods.subscribe, { id }, signal, { ...resumeHeaders(after), ...trace });
  }

  /**
   * The JSON-RPC answer in `response`. An HTTP error whose body is no JSON-RPC response (a proxy's
   * page, a framework's `{"error": "Bad Request"}`) is reported with its status and words.
   */
  private async reply(response: Response): Promise<unknown> {
    const text = await this.http.text(response);
    if (response.status >= 400) {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw httpError(this.target, response.status, text);
      }
      const isRpc = typeof body === 'object' && body !== null && (body as Record<string, unknown>).jsonrpc === '2.0' && typeof (body as Record<string, unknown>).error === 'object';
      if (!isRpc) throw httpError(this.target, response.status, text);
    }
    return parseJson(text, this.target);
  }

  private request(method: string, params: Record<string, unknown>): { id: number; body: string } {
    const id = (this.counter += 1);
    // A 1.0 interface that names a tenant gets it in every request (spec 1.0, §8.3).
    const withTenant = this.target.tenant === undefined ? params : { ...params, tenant: this.target.tenant };
    return { id, body: rpcRequest(id, method, withTenant) };
  }

  private async call(method: string, params: Record<string, unknown>, signal?: AbortSignal, timeoutMs?: number, headers: Record<string, string> = {}): Promise<unknown> {
    const { id, body } = this.request(method, params);
    const response = await this.http.post(this.target.url, body, { 'content-type': 'application/json', accept: 'application/json', ...headers }, signal, false, timeoutMs);
    return rpcResult(await this.reply(response), id, this.target, response.status);
  }

  private async *events(method: string, params: Record<string, unknown>, signal?: AbortSignal, headers: Record<string, string> = {}): AsyncGenerator<TaskEvent> {
    const { id, body } = this.request(method, params);
    const response = await this.http.post(this.target.url, body, { 'content-type': 'application/json', accept: 'text/event-stream', ...headers }, signal, true);
    if (!isEventStream(response)) {
      // An error comes as one JSON-RPC response instead of a stream.
      rpcResult(await this.reply(response), id, this.target, response.status);
      throw notA2A(this.target, `${method} answered with ${response.headers.get('content-type') ?? 'no content type'}, not an event stream`);
    }
    for await (const event of this.http.sse(response)) {
      const reply = parseJson(event.data, this.target);
      yield numbered(read(() => this.dialect.event(rpcResult(reply, id, this.target)), this.target), event.id);
    }
  }
}

/** The result of a JSON-RPC response, or its error as a LiteError. */
function rpcResult(reply: unknown, id: number, target: RemoteInterface, httpStatus?: number): unknown {
  const read = readRpcReply(reply, id);
  if (read.kind === 'error') throw peerError(read.error, target, httpStatus !== undefined && httpStatus >= 400 ? httpStatus : undefined);
  if (read.kind === 'invalid') throw notA2A(target, read.problem);
  return read.result;
}
