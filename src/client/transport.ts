// Calling an A2A agent over one of its interfaces: JSON-RPC 1.0, HTTP+JSON 1.0 or JSON-RPC 0.3.
// Each transport turns the same five calls (send, stream, get, cancel, subscribe) into its wire
// format and reads the answers back into the task model, so that everything above it is the
// same whatever the agent speaks. Failures become LiteErrors a user can act on: unreachable,
// credentials wanted, the agent's own error, or an answer that is not A2A.

import { randomUUID } from 'node:crypto';
import { A2A_JSON } from '../a2a/server/rest-v1.js';
import { eventFromV1, messageToV1, taskFromV1 } from '../a2a/wire/v1.js';
import { eventFromV03, messageToV03, taskFromV03 } from '../a2a/wire/v03.js';
import { LiteError, isLiteError } from '../errors.js';
import { jsonDepth } from '../json-depth.js';
import type { Task, TaskEvent, TaskMessage } from '../model/task.js';
import type { RemoteAccess, RemoteInterface } from '../model/remote-access.js';
import { readSse } from './sse.js';

/** A credential to present, read from the environment by the caller; never stored. */
export interface Credential {
  token: string;
}

export interface TransportOptions {
  credential?: Credential;
  /** What the card says the agent wants; decides where the credential goes. */
  security?: RemoteAccess['security'];
  /** Milliseconds a request (not a stream) may take. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface SendOptions {
  /** Answer as soon as the task exists instead of when it ends or asks for input. */
  returnImmediately?: boolean;
  signal?: AbortSignal;
  /** Milliseconds this call may take, instead of the transport's (a blocking send waits long). */
  timeoutMs?: number;
}

/** What SendMessage gives back: the task, or a direct message (an agent may answer without one). */
export type SendResult = { kind: 'task'; task: Task } | { kind: 'message'; message: TaskMessage };

export interface Transport {
  readonly target: RemoteInterface;
  send(message: TaskMessage, options?: SendOptions): Promise<SendResult>;
  stream(message: TaskMessage, signal?: AbortSignal): AsyncIterable<TaskEvent>;
  getTask(id: string, signal?: AbortSignal): Promise<Task>;
  cancelTask(id: string, signal?: AbortSignal): Promise<Task>;
  subscribe(id: string, signal?: AbortSignal): AsyncIterable<TaskEvent>;
}

/** Statuses that say "not now" rather than "no": the call is tried again like a broken one. */
const TRANSIENT: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/** The most a non-streaming answer may hold. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/**
 * How deep an answer may nest. An agent takes messages 64 levels deep; a task or an event around
 * them adds a few. Deeper JSON is refused before anything recursive (JSON.stringify, a clone,
 * an error message quoting a value) can overflow the stack on it.
 */
const MAX_ANSWER_DEPTH = 256;
const DEFAULT_TIMEOUT_MS = 60_000;

/** Makes the transport for one interface of an agent. */
export function openTransport(target: RemoteInterface, options: TransportOptions = {}): Transport {
  const http = new Http(target, options);
  if (target.binding === 'HTTP+JSON') return new RestV1(target, http);
  return target.version === '1.0' ? new JsonRpc(target, http, V1_RPC) : new JsonRpc(target, http, V03_RPC);
}

interface RpcDialect {
  version: '1.0' | '0.3';
  methods: Record<'send' | 'stream' | 'get' | 'cancel' | 'subscribe', string>;
  message(message: TaskMessage): unknown;
  event(value: unknown): TaskEvent;
  task(value: unknown): Task;
  sendParams(message: TaskMessage, returnImmediately: boolean): Record<string, unknown>;
}

const V1_RPC: RpcDialect = {
  version: '1.0',
  methods: { send: 'SendMessage', stream: 'SendStreamingMessage', get: 'GetTask', cancel: 'CancelTask', subscribe: 'SubscribeToTask' },
  message: messageToV1,
  event: (value) => eventFromV1(value),
  task: (value) => taskFromV1(value),
  sendParams: (message, returnImmediately) => ({ message: messageToV1(message), configuration: { returnImmediately } }),
};

const V03_RPC: RpcDialect = {
  version: '0.3',
  methods: { send: 'message/send', stream: 'message/stream', get: 'tasks/get', cancel: 'tasks/cancel', subscribe: 'tasks/resubscribe' },
  message: messageToV03,
  event: (value) => eventFromV03(value),
  task: (value) => taskFromV03(value),
  // 0.3 says it the other way round: `blocking`.
  sendParams: (message, returnImmediately) => ({ message: messageToV03(message), configuration: { blocking: !returnImmediately } }),
};

class JsonRpc implements Transport {
  private counter = 0;

  constructor(
    readonly target: RemoteInterface,
    private readonly http: Http,
    private readonly dialect: RpcDialect,
  ) {}

  async send(message: TaskMessage, options: SendOptions = {}): Promise<SendResult> {
    const result = await this.call(this.dialect.methods.send, this.dialect.sendParams(message, options.returnImmediately === true), options.signal, options.timeoutMs);
    const event = read(() => this.dialect.event(result), this.target);
    if (event.kind === 'task') return { kind: 'task', task: event.task };
    if (event.kind === 'message') return { kind: 'message', message: event.message };
    throw notA2A(this.target, `a ${this.dialect.methods.send} result holds a task or a message, not a ${event.kind} update`);
  }

  stream(message: TaskMessage, signal?: AbortSignal): AsyncIterable<TaskEvent> {
    return this.events(this.dialect.methods.stream, this.dialect.sendParams(message, false), signal);
  }

  async getTask(id: string, signal?: AbortSignal): Promise<Task> {
    const result = await this.call(this.dialect.methods.get, { id }, signal);
    return read(() => this.dialect.task(result), this.target);
  }

  async cancelTask(id: string, signal?: AbortSignal): Promise<Task> {
    const result = await this.call(this.dialect.methods.cancel, { id }, signal);
    return read(() => this.dialect.task(result), this.target);
  }

  subscribe(id: string, signal?: AbortSignal): AsyncIterable<TaskEvent> {
    return this.events(this.dialect.methods.subscribe, { id }, signal);
  }

  private request(method: string, params: Record<string, unknown>): { id: number; body: string } {
    const id = (this.counter += 1);
    // A 1.0 interface that names a tenant gets it in every request (spec 1.0, §8.3).
    const withTenant = this.target.tenant === undefined ? params : { ...params, tenant: this.target.tenant };
    return { id, body: JSON.stringify({ jsonrpc: '2.0', id, method, params: withTenant }) };
  }

  private async call(method: string, params: Record<string, unknown>, signal?: AbortSignal, timeoutMs?: number): Promise<unknown> {
    const { id, body } = this.request(method, params);
    const response = await this.http.post(this.target.url, body, { 'content-type': 'application/json', accept: 'application/json' }, signal, false, timeoutMs);
    const reply = await this.http.json(response);
    return rpcResult(reply, id, this.target);
  }

  private async *events(method: string, params: Record<string, unknown>, signal?: AbortSignal): AsyncGenerator<TaskEvent> {
    const { id, body } = this.request(method, params);
    const response = await this.http.post(this.target.url, body, { 'content-type': 'application/json', accept: 'text/event-stream' }, signal, true);
    if (!isEventStream(response)) {
      // An error comes as one JSON-RPC response instead of a stream.
      rpcResult(await this.http.json(response), id, this.target);
      throw notA2A(this.target, `${method} answered with ${response.headers.get('content-type') ?? 'no content type'}, not an event stream`);
    }
    for await (const event of this.http.sse(response)) {
      const reply = parseJson(event.data, this.target);
      yield read(() => this.dialect.event(rpcResult(reply, id, this.target)), this.target);
    }
  }
}

class RestV1 implements Transport {
  constructor(
    readonly target: RemoteInterface,
    private readonly http: Http,
  ) {}

  async send(message: TaskMessage, options: SendOptions = {}): Promise<SendResult> {
    const body = JSON.stringify({ message: messageToV1(message), configuration: { returnImmediately: options.returnImmediately === true } });
    const result = await this.http.json(await this.checked(await this.http.post(this.url('/message:send'), body, this.headers(), options.signal, false, options.timeoutMs)));
    const event = read(() => eventFromV1(result), this.target);
    if (event.kind === 'task') return { kind: 'task', task: event.task };
    if (event.kind === 'message') return { kind: 'message', message: event.message };
    throw notA2A(this.target, `a message:send result holds a task or a message, not a ${event.kind} update`);
  }

  stream(message: TaskMessage, signal?: AbortSignal): AsyncIterable<TaskEvent> {
    return this.events('/message:stream', JSON.stringify({ message: messageToV1(message) }), signal);
  }

  async getTask(id: string, signal?: AbortSignal): Promise<Task> {
    const response = await this.checked(await this.http.get(this.url(`/tasks/${encodeURIComponent(id)}`), this.headers(), signal));
    const value = await this.http.json(response);
    return read(() => taskFromV1(value), this.target);
  }

  async cancelTask(id: string, signal?: AbortSignal): Promise<Task> {
    const response = await this.checked(await this.http.post(this.url(`/tasks/${encodeURIComponent(id)}:cancel`), '{}', this.headers(), signal));
    const value = await this.http.json(response);
    return read(() => taskFromV1(value), this.target);
  }

  subscribe(id: string, signal?: AbortSignal): AsyncIterable<TaskEvent> {
    return this.events(`/tasks/${encodeURIComponent(id)}:subscribe`, '{}', signal);
  }

  /** The route under the interface's URL, behind its tenant when it names one (spec 1.0, §11). */
  private url(path: string): string {
    const tenant = this.target.tenant === undefined ? '' : `/${encodeURIComponent(this.target.tenant)}`;
    return `${this.target.url.replace(/\/+$/, '')}${tenant}${path}`;
  }

  private headers(accept = `${A2A_JSON}, application/json`): Record<string, string> {
    return { 'content-type': A2A_JSON, accept };
  }

  private async *events(path: string, body: string, signal?: AbortSignal): AsyncGenerator<TaskEvent> {
    const response = await this.checked(await this.http.post(this.url(path), body, this.headers('text/event-stream'), signal, true));
    if (!isEventStream(response)) throw notA2A(this.target, `${path} answered with ${response.headers.get('content-type') ?? 'no content type'}, not an event stream`);
    for await (const event of this.http.sse(response)) {
      const value = parseJson(event.data, this.target);
      // Some servers wrap each event as a JSON-RPC response even over REST.
      const inner = typeof value === 'object' && value !== null && 'jsonrpc' in value && 'result' in value ? (value as { result: unknown }).result : value;
      if (typeof inner === 'object' && inner !== null && 'error' in inner) throw peerError((inner as { error: unknown }).error, this.target);
      yield read(() => eventFromV1(inner), this.target);
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

/** The plumbing every transport shares: timeouts, credentials, size limits, error mapping. */
class Http {
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;
  private readonly bodies = new WeakMap<Response, string>();
  /** The timeout still running while a body is read. */
  private readonly timers = new WeakMap<Response, NodeJS.Timeout>();

  constructor(
    private readonly target: RemoteInterface,
    private readonly options: TransportOptions,
  ) {
    this.fetchImpl = options.fetch ?? fetch;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  post(url: string, body: string, headers: Record<string, string>, signal?: AbortSignal, streaming = false, timeoutMs?: number): Promise<Response> {
    return this.request(url, { method: 'POST', body, headers }, signal, streaming, timeoutMs);
  }

  get(url: string, headers: Record<string, string>, signal?: AbortSignal): Promise<Response> {
    return this.request(url, { method: 'GET', headers }, signal, false);
  }

  private async request(
    url: string,
    init: { method: string; body?: string; headers: Record<string, string> },
    signal: AbortSignal | undefined,
    streaming: boolean,
    timeoutMs = this.timeoutMs,
  ): Promise<Response> {
    const headers: Record<string, string> = { ...init.headers };
    if (this.target.version === '1.0') headers['a2a-version'] = '1.0';
    let target = url;
    const credential = this.options.credential;
    if (credential !== undefined) {
      const apiKey = this.options.security?.bearer ? undefined : this.options.security?.apiKey;
      if (apiKey === undefined) headers.authorization = `Bearer ${credential.token}`;
      else if (apiKey.in === 'header') headers[apiKey.name.toLowerCase()] = credential.token;
      // Sent as it is (servers compare the cookie's text); credentialFor refused what a cookie cannot hold.
      else if (apiKey.in === 'cookie') headers.cookie = `${apiKey.name}=${credential.token}`;
      else {
        const withKey = new URL(url);
        withKey.searchParams.set(apiKey.name, credential.token);
        target = withKey.href;
      }
    }
    // A request is timed whole; a stream may last as long as the task, so only until its
    // headers arrive.
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(new Error('timeout')), timeoutMs);
    timeout.unref();
    const aborted = signal === undefined ? timer.signal : AbortSignal.any([timer.signal, signal]);
    let response: Response;
    try {
      response = await this.fetchImpl(target, { ...init, headers, signal: aborted, redirect: 'error' });
    } catch (error) {
      clearTimeout(timeout);
      if (signal?.aborted) throw signal.reason ?? error;
      if (timer.signal.aborted) throw unreachable(this.target, error, `no answer within ${timeoutMs / 1000} s`);
      // A TypeError with no cause is the request refused before it went out (a header value
      // fetch will not send): its message may quote the value, which may be the credential.
      if (error instanceof TypeError && error.cause === undefined) throw unreachable(this.target, error, 'the request could not be sent (a header value is not allowed)');
      throw unreachable(this.target, error);
    }
    if (streaming) clearTimeout(timeout);
    else this.timers.set(response, timeout);
    if (response.status === 401 || response.status === 403) {
      clearTimeout(timeout);
      await response.body?.cancel().catch(() => undefined);
      const wanted = response.headers.get('www-authenticate');
      throw new LiteError(
        'AUTH_REQUIRED',
        credential === undefined
          ? `the agent at ${this.target.url} wants credentials${wanted ? ` (${wanted.split(/[ ,]/)[0]})` : ''}; pass --token-env NAME with the name of the variable that holds the token`
          : `the agent at ${this.target.url} refused the credential (HTTP ${response.status})`,
        { status: response.status, url: this.target.url },
      );
    }
    if (TRANSIENT.has(response.status)) {
      clearTimeout(timeout);
      await response.body?.cancel().catch(() => undefined);
      // A proxy or an overloaded agent: worth trying again, as a broken connection is.
      throw unreachable(this.target, undefined, `HTTP ${response.status}`);
    }
    return response;
  }

  /** The body as text, at most MAX_RESPONSE_BYTES. */
  async text(response: Response): Promise<string> {
    const known = this.bodies.get(response);
    if (known !== undefined) return known;
    const length = Number(response.headers.get('content-length') ?? '0');
    if (length > MAX_RESPONSE_BYTES) throw notA2A(this.target, `the answer is ${length} bytes, over the limit of ${MAX_RESPONSE_BYTES}`);
    const chunks: Buffer[] = [];
    let size = 0;
    if (response.body !== null) {
      try {
        for await (const chunk of response.body) {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) throw notA2A(this.target, `the answer is over the limit of ${MAX_RESPONSE_BYTES} bytes`);
          chunks.push(Buffer.from(chunk));
        }
      } catch (error) {
        clearTimeout(this.timers.get(response));
        if (isLiteError(error)) throw error;
        throw unreachable(this.target, error, 'the answer broke off');
      }
    }
    clearTimeout(this.timers.get(response));
    const text = Buffer.concat(chunks).toString('utf8');
    this.bodies.set(response, text);
    return text;
  }

  async json(response: Response): Promise<unknown> {
    return parseJson(await this.text(response), this.target);
  }

  sse(response: Response): AsyncIterable<{ data: string }> {
    if (response.body === null) return (async function* () {})();
    const events = readSse(response.body);
    const target = this.target;
    return (async function* () {
      try {
        yield* events;
      } catch (error) {
        if (isLiteError(error)) throw error;
        throw unreachable(target, error, 'the stream broke');
      }
    })();
  }
}

function isEventStream(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
}

/** The result of a JSON-RPC response, or its error as a LiteError. */
function rpcResult(reply: unknown, id: number, target: RemoteInterface): unknown {
  if (typeof reply !== 'object' || reply === null || Array.isArray(reply)) throw notA2A(target, 'the answer is not a JSON-RPC response object');
  const response = reply as Record<string, unknown>;
  if (response.error !== undefined) throw peerError(response.error, target);
  if (!('result' in response)) throw notA2A(target, 'the JSON-RPC response has neither result nor error');
  if (response.id !== id && response.id !== String(id)) throw notA2A(target, `the JSON-RPC response answers request ${JSON.stringify(response.id)}, not ${id}`);
  return response.result;
}

/**
 * An A2A error from the agent, as the LiteError a user would expect for it. Over HTTP+JSON the
 * reason is in a google.rpc.ErrorInfo of `details` (one status, FAILED_PRECONDITION, stands for
 * several errors); over JSON-RPC it is the code.
 */
function peerError(error: unknown, target: RemoteInterface, httpStatus?: number): LiteError {
  const object = typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {};
  const code = typeof object.code === 'number' ? object.code : httpStatus;
  const status = typeof object.status === 'string' ? object.status : '';
  const message = typeof object.message === 'string' ? object.message.slice(0, 500) : `error ${String(code)}`;
  const reason = reasonOf(object.details);
  const details = { url: target.url, code, status: status || undefined, reason };
  if (code === -32001 || reason === 'TASK_NOT_FOUND') return new LiteError('TASK_NOT_FOUND', `the agent says: ${message}`, details);
  if (code === -32002 || reason === 'TASK_NOT_CANCELABLE') return new LiteError('TASK_TERMINAL', `the agent says: ${message}`, details);
  if (reason === undefined && httpStatus === 404 && status === 'NOT_FOUND' && /task/i.test(message)) return new LiteError('TASK_NOT_FOUND', `the agent says: ${message}`, details);
  return new LiteError('PEER_ERROR', `the agent answered with an error: ${message}${code !== undefined ? ` (${code})` : ''}`, details);
}

/** The A2A reason of an error's google.rpc.ErrorInfo detail, if it has one. */
function reasonOf(details: unknown): string | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    if (typeof detail === 'object' && detail !== null && typeof (detail as { reason?: unknown }).reason === 'string') return (detail as { reason: string }).reason;
  }
  return undefined;
}

function notA2A(target: RemoteInterface, problem: string): LiteError {
  return new LiteError('PEER_ERROR', `the agent at ${target.url} did not answer in A2A ${target.version}: ${problem}`, { url: target.url });
}

function unreachable(target: RemoteInterface, error: unknown, why?: string): LiteError {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const reason = why ?? cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return new LiteError('PEER_UNREACHABLE', `could not reach the agent at ${target.url}: ${reason}`, { url: target.url }, { cause: error });
}

function parseJson(text: string, target: RemoteInterface): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw notA2A(target, `the answer is not JSON (${JSON.stringify(text.slice(0, 80))})`);
  }
  if (jsonDepth(value, MAX_ANSWER_DEPTH) > MAX_ANSWER_DEPTH) throw notA2A(target, `the answer nests deeper than ${MAX_ANSWER_DEPTH} levels`);
  return value;
}

/** Decodes with the wire readers, whose refusals (INVALID_PARAMS) become PEER_ERROR here. */
function read<T>(decode: () => T, target: RemoteInterface): T {
  try {
    return decode();
  } catch (error) {
    if (isLiteError(error, 'INVALID_PARAMS')) throw notA2A(target, error.message);
    throw error;
  }
}

/** A new message id. */
export function newMessageId(): string {
  return randomUUID();
}
