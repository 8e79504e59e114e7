// Calling an agent over A2A 1.0 HTTP+JSON (REST): each call is a route under the interface's
// URL (behind its tenant), errors are google.rpc.Status bodies with an HTTP status.

import { A2A_JSON } from '../media-types.js';
import { eventFromV1, messageToV1, taskFromV1 } from '../a2a/wire/v1.js';
import type { RemoteInterface } from '../model/remote-access.js';
import type { TraceHeaders } from '../telemetry/carrier.js';
import type { Task, TaskEvent, TaskMessage } from '../model/task.js';
import { isEventStream, parseJson, type Http } from './http-call.js';
import { notA2A, peerError, read } from './peer-errors.js';
import { idempotencyHeaders, numbered, resumeHeaders, type Outcome, type SendOptions, type Transport } from './transport.js';

export class RestV1 implements Transport {
  constructor(
    readonly target: RemoteInterface,
    private readonly http: Http,
  ) {}

  async send(message: TaskMessage, options: SendOptions = {}, trace: TraceHeaders = {}): Promise<Outcome> {
    const body = JSON.stringify({ message: messageToV1(message), configuration: { returnImmediately: options.returnImmediately === true } });
    const result = await this.http.json(await this.checked(await this.http.post(this.url('/message:send'), body, { ...this.headers(), ...idempotencyHeaders(options.idempotencyKey), ...trace }, options.signal, false, options.timeoutMs)));
    const event = read(() => eventFromV1(result), this.target);
    if (event.kind === 'task') return { kind: 'task', task: event.task };
    if (event.kind === 'message') return { kind: 'message', message: event.message };
    throw notA2A(this.target, `a message:send result holds a task or a message, not a ${event.kind} update`);
  }

  stream(message: TaskMessage, signal?: AbortSignal, options: Pick<SendOptions, 'idempotencyKey'> = {}, trace: TraceHeaders = {}): AsyncIterable<TaskEvent> {
    return this.events('/message:stream', JSON.stringify({ message: messageToV1(message) }), signal, { ...idempotencyHeaders(options.idempotencyKey), ...trace });
  }

  async getTask(id: string, signal?: AbortSignal, trace: TraceHeaders = {}): Promise<Task> {
    const response = await this.checked(await this.http.get(this.url(`/tasks/${encodeURIComponent(id)}`), { ...this.headers(), ...trace }, signal));
    const value = await this.http.json(response);
    return read(() => taskFromV1(value), this.target);
  }

  async cancelTask(id: string, signal?: AbortSignal, trace: TraceHeaders = {}): Promise<Task> {
    const response = await this.checked(await this.http.post(this.url(`/tasks/${encodeURIComponent(id)}:cancel`), '{}', { ...this.headers(), ...trace }, signal));
    const value = await this.http.json(response);
    return read(() => taskFromV1(value), this.target);
  }

  subscribe(id: string, signal?: AbortSignal, after?: number, trace: TraceHeaders = {}): AsyncIterable<TaskEvent> {
    return this.events(`/tasks/${encodeURIComponent(id)}:subscribe`, '{}', signal, { ...resumeHeaders(after), ...trace });
  }

  /** The route under the interface's URL, behind its tenant when it names one (spec 1.0, §11). */
  private url(path: string): string {
    const tenant = this.target.tenant === undefined ? '' : `/${encodeURIComponent(this.target.tenant)}`;
    return `${this.target.url.replace(/\/+$/, '')}${tenant}${path}`;
  }

  private headers(accept = `${A2A_JSON}, application/json`): Record<string, string> {
    return { 'content-type': A2A_JSON, accept };
  }

  private async *events(path: string, body: string, signal?: AbortSignal, headers: Record<string, string> = {}): AsyncGenerator<TaskEvent> {
    const response = await this.checked(await this.http.post(this.url(path), body, { ...this.headers('text/event-stream'), ...headers }, signal, true));
    if (!isEventStream(response)) throw notA2A(this.target, `${path} answered with ${response.headers.get('content-type') ?? 'no content type'}, not an event stream`);
    for await (const event of this.http.sse(response)) {
      const value = parseJson(event.data, this.target);
      // Some servers wrap each event as a JSON-RPC response even over REST.
      const inner = typeof value === 'object' && value !== null && 'jsonrpc' in value && 'result' in value ? (value as { result: unknown }).result : value;
      if (typeof inner === 'object' && inner !== null && 'error' in inner) throw peerError((inner as { error: unknown }).error, this.target);
      yield numbered(read(() => eventFromV1(inner), this.target), event.id);
    }
  }

  /** An HTTP error status with the REST error body (google.rpc.Status) turned into a LiteError. */
  private async checked(response: Response): Promise<Response> {
    if (response.ok) return response;
    const text = await this.http.text(response);
    let error: unknown = { code: response.status, message: text.slice(0, 500) };
    try {
      const parsed = JSON.parse(text) as { error?: unknown };
      if (parsed && typeof parsed === 'object' && parsed.error !== undefined) error = parsed.error;
    } catch {
      // Not JSON: the status and the start of the text will do.
    }
    throw peerError(error, this.target, response.status);
  }
}
