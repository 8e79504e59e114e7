// Calling an agent over A2A 1.0 gRPC (lf.a2a.v1.A2AService): each call is the method's protobuf
// message, made from the same 1.0 JSON the other bindings send and read back the same way
// (grpc/service.ts); service parameters and the credential travel as metadata. The gRPC
// library and the generated messages load on the first call.

import { eventFromV1, messageToV1, taskFromV1 } from '../a2a/wire/v1.js';
import { LiteError, isLiteError } from '../errors.js';
import type { RemoteInterface } from '../model/remote-access.js';
import type { Task, TaskEvent, TaskMessage } from '../model/task.js';
import type { GrpcChannel } from '../net/grpc-channel.js';
import { notA2A, peerError, read, unreachable } from './peer-errors.js';
import type { TraceHeaders } from '../telemetry/carrier.js';
import { idempotencyHeaders, resumeHeaders, type Outcome, type SendOptions, type Transport, type TransportOptions } from './transport.js';

const DEFAULT_TIMEOUT_MS = 60_000;

/** What the first call loads: the codec, the status reader and the channel. */
type Loaded = [typeof import('../grpc/service.js'), typeof import('../grpc/status.js'), GrpcChannel];

export class GrpcV1 implements Transport {
  private loading: Promise<Loaded> | undefined;

  constructor(
    readonly target: RemoteInterface,
    private readonly options: TransportOptions = {},
  ) {}

  async send(message: TaskMessage, options: SendOptions = {}, trace: TraceHeaders = {}): Promise<Outcome> {
    const request = { message: messageToV1(message), configuration: { returnImmediately: options.returnImmediately === true } };
    const result = await this.unary('SendMessage', request, { ...idempotencyHeaders(options.idempotencyKey), ...trace }, options.signal, options.timeoutMs);
    const event = read(() => eventFromV1(result), this.target);
    if (event.kind === 'task') return { kind: 'task', task: event.task };
    if (event.kind === 'message') return { kind: 'message', message: event.message };
    throw notA2A(this.target, `a SendMessage answer holds a task or a message, not a ${event.kind} update`);
  }

  stream(message: TaskMessage, signal?: AbortSignal, options: Pick<SendOptions, 'idempotencyKey'> = {}, trace: TraceHeaders = {}): AsyncIterable<TaskEvent> {
    return this.events('SendStreamingMessage', { message: messageToV1(message) }, { ...idempotencyHeaders(options.idempotencyKey), ...trace }, signal);
  }

  async getTask(id: string, signal?: AbortSignal, trace: TraceHeaders = {}): Promise<Task> {
    const value = await this.unary('GetTask', { id }, trace, signal);
    return read(() => taskFromV1(value), this.target);
  }

  async cancelTask(id: string, signal?: AbortSignal, trace: TraceHeaders = {}): Promise<Task> {
    const value = await this.unary('CancelTask', { id }, trace, signal);
    return read(() => taskFromV1(value), this.target);
  }

  subscribe(id: string, signal?: AbortSignal, after?: number, trace: TraceHeaders = {}): AsyncIterable<TaskEvent> {
    return this.events('SubscribeToTask', { id }, { ...resumeHeaders(after), ...trace }, signal);
  }

  /** Closes the connection; a later call opens another. */
  close(): void {
    void this.loading?.then(([, , channel]) => channel.close(), () => undefined);
    this.loading = undefined;
  }

  private load(): Promise<Loaded> {
    this.loading ??= (async () => {
      const [service, status, net] = await Promise.all([import('../grpc/service.js'), import('../grpc/status.js'), import('../net/grpc-channel.js')]);
      const channel = await net.openGrpcChannel(this.target.url, this.options.guard === undefined ? {} : { guard: this.options.guard });
      return [service, status, channel] as Loaded;
    })();
    // A failed open (refused by the guard, say) is not kept: the next call tries again.
    this.loading.catch(() => (this.loading = undefined));
    return this.loading;
  }

  private async unary(name: string, request: unknown, extra: Record<string, string>, signal?: AbortSignal, timeoutMs = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS): Promise<unknown> {
    const [service, status, channel] = await this.load();
    const method = service.grpcMethod(name);
    let answer: Uint8Array;
    try {
      answer = await channel.unary(method.path, service.jsonToMessage(method.input, request), this.metadata(extra), { timeoutMs, ...(signal === undefined ? {} : { signal }) });
    } catch (error) {
      if (signal?.aborted) throw signal.reason ?? error;
      throw this.failure(error, status);
    }
    return read(() => service.messageToJson(method.output, answer), this.target);
  }

  private async *events(name: string, request: unknown, extra: Record<string, string>, signal?: AbortSignal): AsyncGenerator<TaskEvent> {
    const [service, status, channel] = await this.load();
    const method = service.grpcMethod(name);
    try {
      for await (const bytes of channel.stream(method.path, service.jsonToMessage(method.input, request), this.metadata(extra), signal)) {
        const value = read(() => service.messageToJson(method.output, bytes), this.target);
        yield read(() => eventFromV1(value), this.target);
      }
    } catch (error) {
      if (signal?.aborted) return;
      throw this.failure(error, status);
    }
  }

  /** The version, the credential where the card wants it (always as metadata: gRPC has no query or cookie), and `extra`. */
  private metadata(extra: Record<string, string>): Record<string, string> {
    const metadata: Record<string, string> = { 'a2a-version': '1.0', ...extra };
    const credential = this.options.credential;
    if (credential !== undefined) {
      const apiKey = this.options.security?.bearer ? undefined : this.options.security?.apiKey;
      if (apiKey === undefined) metadata.authorization = `Bearer ${credential.token}`;
      else metadata[apiKey.name.toLowerCase()] = credential.token;
    }
    return metadata;
  }

  /** A failed call as the LiteError a user can act on, as the HTTP transports word them. */
  private failure(error: unknown, status: Loaded[1]): LiteError {
    if (isLiteError(error)) return error;
    const code = (error as { code?: unknown }).code;
    if (typeof code !== 'number') return unreachable(this.target, error);
    const name = status.grpcCodeName(code);
    const said = (error as Error).message;
    if (name === 'UNAUTHENTICATED' || name === 'PERMISSION_DENIED') {
      return new LiteError(
        'AUTH_REQUIRED',
        this.options.credential === undefined
          ? `the agent at ${this.target.url} wants credentials; pass --token-env NAME with the name of the variable that holds the token`
          : `the agent at ${this.target.url} refused the credential (gRPC ${name})`,
        { status: name, url: this.target.url },
      );
    }
    if (name === 'UNAVAILABLE' || name === 'DEADLINE_EXCEEDED') return unreachable(this.target, error, `gRPC ${name}: ${said.slice(0, 200)}`);
    const details = status.detailsOfStatus((error as { details?: Uint8Array }).details);
    return peerError({ status: name, message: said, details }, this.target);
  }
}
