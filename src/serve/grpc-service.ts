// The A2A gRPC binding (lf.a2a.v1.A2AService) over the A2A handler: each call's message is read
// as the 1.0 JSON params its method takes (grpc/service.ts), the handler runs the method of
// METHODS_V1 by name behind the same credentials as HTTP, and its result or events go back as
// protobuf; errors as gRPC statuses with their details (grpc/status.ts). The generated messages
// and @grpc/grpc-js load when `serveGrpc` is first called, so that importing this costs nothing.

import type { A2AHandler } from '../a2a/server/http.js';
import { mapEvents } from '../a2a/server/map-events.js';
import { LiteError } from '../errors.js';
import type { HttpResponse } from '../net/http-types.js';
import { listenGrpc, type GrpcFailure, type GrpcHandler, type GrpcServer } from '../net/grpc-server.js';
import type { TlsCredentials } from '../net/tls.js';

/** Where the gRPC port listens, and its limits: those of `listen`, in gRPC's terms. */
export interface GrpcServeOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port (`target` and `port` say which). */
  port?: number;
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
  /** A certificate and its key (PEM, e.g. from `readTlsCredentials`): the port speaks TLS. Without, plaintext. */
  tls?: TlsCredentials;
}

/** A caller the handler refused before any method ran (no credential, too many tries). */
class Refused {
  constructor(readonly response: HttpResponse) {}
}

/**
 * Serves the handler's 1.0 methods over gRPC on `options.host` (default 127.0.0.1) and
 * `options.port` (default 0: a free one), with the handler's credentials read from each call's
 * metadata (`authorization`, the API key's header). Give the handler `grpcUrl` for its card to
 * declare the GRPC interface.
 *
 * @example
 * const grpc = await serveGrpc(handler, { port: 50051 });
 * grpc.target; // '127.0.0.1:50051', what createA2AHandler({ grpcUrl }) should say
 * await grpc.close();
 */
export async function serveGrpc(handler: A2AHandler, options: GrpcServeOptions = {}): Promise<GrpcServer> {
  const run = handler.runMethod;
  if (run === undefined) throw new LiteError('INTERNAL', 'this handler runs no methods by name');
  const [{ GRPC_PATHS, jsonToMessage, messageToJson }, { grpcCodeOf, grpcStatusOf }] = await Promise.all([import('../grpc/service.js'), import('../grpc/status.js')]);
  /** A method's JSON result as its answer message; a null result (a delete) is the empty message. */
  const answer = (schema: Parameters<typeof jsonToMessage>[0], json: unknown): Uint8Array => {
    try {
      return jsonToMessage(schema, json ?? {});
    } catch (error) {
      // Our own answer that the proto cannot carry is our bug, not the client's bad argument.
      throw new LiteError('INTERNAL', `the answer is not a valid ${schema.typeName}`, undefined, { cause: error });
    }
  };
  /** How a failure is sent: a refusal with the status its HTTP answer names, any other by the error table. */
  const failure = (error: unknown): GrpcFailure => {
    if (error instanceof Refused) {
      const body = 'body' in error.response ? (JSON.parse(error.response.body) as { error?: { status?: string; message?: string } }) : {};
      return { code: grpcCodeOf(body.error?.status ?? 'UNKNOWN'), message: body.error?.message ?? 'refused' };
    }
    return grpcStatusOf(error);
  };
  const serve: GrpcHandler = async (head, request) => {
    const method = GRPC_PATHS.get(head.path);
    if (method === undefined) throw new LiteError('METHOD_NOT_FOUND', `no gRPC method at ${head.path}`);
    const params = messageToJson(method.input, request);
    const outcome = await run({ method: method.name, params, headers: head.headers, ...(head.remoteAddress === undefined ? {} : { remoteAddress: head.remoteAddress }) });
    if ('refusal' in outcome) throw new Refused(outcome.refusal);
    if ('result' in outcome) return { message: answer(method.output, outcome.result) };
    return { messages: mapEvents(outcome.events, (item) => answer(method.output, item.json)) };
  };
  return listenGrpc(serve, { host: '127.0.0.1', port: 0, ...options, methods: [...GRPC_PATHS.values()], failure });
}
