// The gRPC server socket, on @grpc/grpc-js (loaded only when a gRPC port is asked for). It
// knows paths and bytes, not A2A: each call's request arrives as the bytes of its message and
// its metadata as headers, and the handler answers bytes, a stream of them, or an error that
// `failure` turns into a status. Limits as the HTTP server has them: the largest message, the
// streams one connection may have open, an idle connection's life, a stream's backlog.

import type * as Grpc from '@grpc/grpc-js';

/** What a call is, besides its message. */
export interface GrpcCallHead {
  path: string;
  /** The metadata: lower-case names, text values (binary `-bin` ones left out), repeats joined with `, `. */
  headers: Record<string, string | undefined>;
  /** The client's address, without its port. */
  remoteAddress?: string;
  /** Aborted when the client cancels the call or goes away. */
  signal: AbortSignal;
}

/** A call's answer: one message, or a stream of them. */
export type GrpcAnswer = { message: Uint8Array } | { messages: AsyncIterable<Uint8Array> };

/** A failure as sent: its code, its message, and the bytes of the `grpc-status-details-bin` trailer. */
export interface GrpcFailure {
  code: number;
  message: string;
  details?: Uint8Array;
}

export type GrpcHandler = (head: GrpcCallHead, request: Uint8Array) => Promise<GrpcAnswer>;

export interface GrpcServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** The methods served: anything else is UNIMPLEMENTED, answered by gRPC itself. */
  methods: readonly { path: string; streaming: boolean }[];
  /** How an error the handler throws (or a stream ends with) is sent. */
  failure: (error: unknown) => GrpcFailure;
  /** The largest request message, in bytes (default 4 MiB); larger ones are RESOURCE_EXHAUSTED. */
  maxMessageBytes?: number;
  /** Calls open at once on one connection (default 100). */
  maxConcurrentStreams?: number;
  /** Milliseconds a connection with no call open is kept (default 5 minutes). */
  idleTimeoutMs?: number;
  /**
   * Bytes of a stream's messages held while the client reads slower than they come (default
   * 1 MiB): past it the stream ends with RESOURCE_EXHAUSTED, and the client may subscribe again.
   */
  maxStreamBacklogBytes?: number;
  /** A certificate and its key (PEM): the port speaks TLS. Without, plaintext. */
  tls?: { cert: string | Buffer; key: string | Buffer };
}

export interface GrpcServer {
  /** Where clients reach it, as a gRPC target: `127.0.0.1:50051`, `[::1]:50051`. */
  target: string;
  port: number;
  /**
   * Serves new connections with `tls` from now on (a renewed certificate); open ones go on. Only
   * for a server started with TLS.
   */
  setTls(tls: { cert: string | Buffer; key: string | Buffer }): void;
  /** Stops taking calls; those still open get `graceMs`, then are cut. */
  close(graceMs?: number): Promise<void>;
}

const MiB = 1024 * 1024;

/** Starts a gRPC server on `host:port` that runs `handler` for each call. */
export async function listenGrpc(handler: GrpcHandler, options: GrpcServerOptions): Promise<GrpcServer> {
  const grpc = await import('@grpc/grpc-js');
  const server = new grpc.Server({
    'grpc.max_receive_message_length': options.maxMessageBytes ?? 4 * MiB,
    'grpc.max_concurrent_streams': options.maxConcurrentStreams ?? 100,
    'grpc.max_connection_idle_ms': options.idleTimeoutMs ?? 300_000,
    'grpc.max_metadata_size': 16 * 1024,
    // Channelz keeps figures for a debugging service we do not serve, at a cost on every call.
    'grpc.enable_channelz': 0,
  });
  const bytes = (value: Uint8Array): Buffer => (Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  const definition: Record<string, Grpc.MethodDefinition<Buffer, Uint8Array>> = {};
  const implementation: Grpc.UntypedServiceImplementation = {};
  const backlog = options.maxStreamBacklogBytes ?? MiB;
  for (const method of options.methods) {
    definition[method.path] = {
      path: method.path,
      requestStream: false,
      responseStream: method.streaming,
      originalName: method.path,
      // The handler decodes: bytes that are not the message get its error, not gRPC's INTERNAL.
      requestDeserialize: (buffer: Buffer) => buffer,
      requestSerialize: bytes,
      responseSerialize: bytes,
      responseDeserialize: (buffer: Buffer) => buffer,
    };
    implementation[method.path] = method.streaming
      ? (call: Grpc.ServerWritableStream<Buffer, Uint8Array>) => void serveStream(grpc, call, handler, method.path, options.failure, backlog)
      : (call: Grpc.ServerUnaryCall<Buffer, Uint8Array>, callback: Grpc.sendUnaryData<Uint8Array>) => void serveUnary(grpc, call, callback, handler, method.path, options.failure);
  }
  server.addService(definition, implementation);
  const renewable = options.tls === undefined ? undefined : renewableCredentials(grpc, options.tls);
  const credentials = renewable ?? grpc.ServerCredentials.createInsecure();
  const host = options.host.includes(':') && !options.host.startsWith('[') ? `[${options.host}]` : options.host;
  const port = await new Promise<number>((resolve, reject) => server.bindAsync(`${host}:${options.port}`, credentials, (error, bound) => (error ? reject(error) : resolve(bound))));
  return {
    target: `${host}:${port}`,
    port,
    setTls: (tls) => {
      if (renewable === undefined) throw new Error('this gRPC server was started without TLS');
      renewable.renew(tls);
    },
    close: (graceMs = 3000) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.forceShutdown(), graceMs);
        timer.unref();
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}

/**
 * TLS credentials that can be renewed: grpc-js gives the server's TLS listener each new set, as
 * it does for its own certificate providers, and new connections get it.
 */
function renewableCredentials(grpc: typeof Grpc, tls: { cert: string | Buffer; key: string | Buffer }): Grpc.ServerCredentials & { renew(tls: { cert: string | Buffer; key: string | Buffer }): void } {
  class Renewable extends grpc.ServerCredentials {
    constructor() {
      super({}, { cert: tls.cert, key: tls.key });
    }
    renew(next: { cert: string | Buffer; key: string | Buffer }): void {
      this.updateSecureContextOptions({ cert: next.cert, key: next.key });
    }
    _equals(other: Grpc.ServerCredentials): boolean {
      return other === this;
    }
  }
  return new Renewable();
}

/** The head of a call: its metadata as headers, its peer's address, a signal for its end. */
function headOf(call: Grpc.ServerUnaryCall<Buffer, Uint8Array> | Grpc.ServerWritableStream<Buffer, Uint8Array>, path: string): GrpcCallHead {
  const headers: Record<string, string | undefined> = {};
  // toJSON: every name with all its values in one pass (getMap and get would be two).
  const metadata = call.metadata.toJSON();
  for (const name in metadata) {
    const values = metadata[name]!;
    if (name.endsWith('-bin') || typeof values[0] !== 'string') continue;
    headers[name] = values.length === 1 ? values[0] : values.join(', ');
  }
  // grpc-js says 'cancelled' at the end of every call, answered or not, and an abort costs an
  // exception object and an event: the signal is made only when something reads it.
  let controller: AbortController | undefined;
  let cancelled = false;
  call.on('cancelled', () => {
    if (cancelled) return;
    cancelled = true;
    controller?.abort();
  });
  const head: GrpcCallHead = {
    path,
    headers,
    get signal() {
      if (controller === undefined) {
        controller = new AbortController();
        if (cancelled) controller.abort();
      }
      return controller.signal;
    },
  };
  const address = addressOf(call.getPeer());
  if (address !== undefined) head.remoteAddress = address;
  return head;
}

/** `127.0.0.1:5000` → `127.0.0.1`, `[::1]:5000` → `::1`. */
function addressOf(peer: string): string | undefined {
  const match = /^(?:ipv[46]:)?\[?([^\]]*?)\]?:\d+$/.exec(peer);
  return match?.[1] || undefined;
}

function errorOf(grpc: typeof Grpc, failure: GrpcFailure): Partial<Grpc.StatusObject> & { code: number; details: string } {
  const metadata = new grpc.Metadata();
  if (failure.details !== undefined && failure.details.length > 0) metadata.set('grpc-status-details-bin', Buffer.from(failure.details));
  return { code: failure.code, details: failure.message, metadata };
}

async function serveUnary(grpc: typeof Grpc, call: Grpc.ServerUnaryCall<Buffer, Uint8Array>, callback: Grpc.sendUnaryData<Uint8Array>, handler: GrpcHandler, path: string, failure: (error: unknown) => GrpcFailure): Promise<void> {
  try {
    const answer = await handler(headOf(call, path), call.request);
    if ('message' in answer) return callback(null, answer.message);
    // A unary method answered with a stream: a bug of the caller's table.
    throw new Error(`${path} answered a stream`);
  } catch (error) {
    callback(errorOf(grpc, failure(error)));
  }
}

/**
 * Writes a stream's messages as the client reads them: while gRPC says its buffer is full
 * (write() answered false), they wait here until it drains, up to the backlog. Waiting without
 * a bound would only move the pile: the task goes on, and its events would queue up before the
 * stream instead of in it.
 */
async function serveStream(grpc: typeof Grpc, call: Grpc.ServerWritableStream<Buffer, Uint8Array>, handler: GrpcHandler, path: string, failure: (error: unknown) => GrpcFailure, maxBacklog: number): Promise<void> {
  const head = headOf(call, path);
  let messages: AsyncIterator<Uint8Array> | undefined;
  const stop = (): void => void messages?.return?.();
  head.signal.addEventListener('abort', stop, { once: true });
  const held: Uint8Array[] = [];
  let heldBytes = 0;
  let full = false;
  let drained: (() => void) | undefined;
  const flush = (): void => {
    while (!full && held.length > 0 && !head.signal.aborted) {
      const next = held.shift()!;
      heldBytes -= next.byteLength;
      full = !call.write(next);
    }
  };
  call.on('drain', () => {
    full = false;
    flush();
    if (held.length === 0) drained?.();
  });
  try {
    const answer = await handler(head, call.request);
    if (!('messages' in answer)) throw new Error(`${path} answered one message`);
    messages = answer.messages[Symbol.asyncIterator]();
    if (head.signal.aborted) return stop();
    for (;;) {
      const next = await messages.next();
      if (next.done || head.signal.aborted) break;
      held.push(next.value);
      heldBytes += next.value.byteLength;
      if (heldBytes > maxBacklog) {
        stop();
        call.emit('error', { code: grpc.status.RESOURCE_EXHAUSTED, details: `the stream fell more than ${maxBacklog} bytes behind; subscribe again to go on` });
        return;
      }
      flush();
    }
    if (held.length > 0 && !head.signal.aborted) {
      await new Promise<void>((resolve) => {
        drained = resolve;
        head.signal.addEventListener('abort', () => resolve(), { once: true });
      });
    }
    if (!head.signal.aborted) call.end();
  } catch (error) {
    if (!head.signal.aborted) call.emit('error', errorOf(grpc, failure(error)));
  } finally {
    head.signal.removeEventListener('abort', stop);
  }
}
