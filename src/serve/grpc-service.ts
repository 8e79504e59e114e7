// The A2A gRPC binding (lf.a2a.v1.A2AService) over the A2A handler: each call's message is read
// as the 1.0 JSON params its method takes (grpc/service.ts), the handler runs the method of
// METHODS_V1 by name behind the same credentials as HTTP, and its result or events go back as
// protobuf; errors as gRPC statuses with their details (grpc/status.ts). Loaded, with
// @grpc/grpc-js and the generated messages, only when a gRPC port is asked for.

import type { A2AHandler } from '../a2a/server/http.js';
import { mapEvents } from '../a2a/server/map-events.js';
import { LiteError } from '../errors.js';
import { GRPC_PATHS, jsonToMessage, messageToJson } from '../grpc/service.js';
import { grpcCodeOf, grpcStatusOf } from '../grpc/status.js';
import type { HttpResponse } from '../net/http-types.js';
import { listenGrpc, type GrpcFailure, type GrpcHandler, type GrpcServer, type GrpcServerOptions } from '../net/grpc-server.js';

export type GrpcServeOptions = Omit<GrpcServerOptions, 'methods' | 'failure'>;

/** A caller the handler refused before any method ran (no credential, too many tries). */
class Refused {
  constructor(readonly response: HttpResponse) {}
}

/**
 * Serves the handler's 1.0 methods over gRPC on `options.host:options.port`.
 *
 * @example
 * const grpc = await serveGrpc(createA2AHandler({ agent, baseUrl }), { host: '127.0.0.1', port: 0 });
 * grpc.target; // '127.0.0.1:40123', the URL of the card's GRPC interface
 */
export async function serveGrpc(handler: A2AHandler, options: GrpcServeOptions): Promise<GrpcServer> {
  const run = handler.runMethod;
  if (run === undefined) throw new LiteError('INTERNAL', 'this handler runs no methods by name');
  const serve: GrpcHandler = async (head, request) => {
    const method = GRPC_PATHS.get(head.path);
    if (method === undefined) throw new LiteError('METHOD_NOT_FOUND', `no gRPC method at ${head.path}`);
    const params = messageToJson(method.input, request);
    const outcome = await run({ method: method.name, params, headers: head.headers, ...(head.remoteAddress === undefined ? {} : { remoteAddress: head.remoteAddress }) });
    if ('refusal' in outcome) throw new Refused(outcome.refusal);
    if ('result' in outcome) return { message: answer(method.output, outcome.result) };
    return { messages: mapEvents(outcome.events, (item) => answer(method.output, item.json)) };
  };
  return listenGrpc(serve, { ...options, methods: [...GRPC_PATHS.values()], failure });
}

/** A method's JSON result as its answer message; a null result (a delete) is the empty message. */
function answer(schema: Parameters<typeof jsonToMessage>[0], json: unknown): Uint8Array {
  try {
    return jsonToMessage(schema, json ?? {});
  } catch (error) {
    // Our own answer that the proto cannot carry is our bug, not the client's bad argument.
    throw new LiteError('INTERNAL', `the answer is not a valid ${schema.typeName}`, undefined, { cause: error });
  }
}

/** How a failure is sent: a refusal with the status its HTTP answer names, any other by the error table. */
function failure(error: unknown): GrpcFailure {
  if (error instanceof Refused) {
    const body = 'body' in error.response ? (JSON.parse(error.response.body) as { error?: { status?: string; message?: string } }) : {};
    return { code: grpcCodeOf(body.error?.status ?? 'UNKNOWN'), message: body.error?.message ?? 'refused' };
  }
  return grpcStatusOf(error);
}
