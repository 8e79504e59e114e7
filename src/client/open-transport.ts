// Opening the transport for one interface of an agent: JSON-RPC 1.0, HTTP+JSON 1.0 or JSON-RPC
// 0.3, each over the same HTTP plumbing, or gRPC 1.0 (which loads its library on first use);
// each call a span while tracing is on (traced-transport.ts).

import type { RemoteInterface } from '../model/remote-access.js';
import { Http } from './http-call.js';
import { JsonRpc, V03_RPC, V1_RPC } from './jsonrpc-transport.js';
import { GrpcV1 } from './grpc-transport.js';
import { RestV1 } from './rest-transport.js';
import { TracedTransport, type TraceableTransport } from './traced-transport.js';
import type { Transport, TransportOptions } from './transport.js';

/** Makes the transport for one interface of an agent. */
export function openTransport(target: RemoteInterface, options: TransportOptions = {}): Transport {
  return new TracedTransport(bindingOf(target, options), options.trace);
}

function bindingOf(target: RemoteInterface, options: TransportOptions): TraceableTransport {
  if (target.binding === 'GRPC') return new GrpcV1(target, options);
  const http = new Http(target, options);
  if (target.binding === 'HTTP+JSON') return new RestV1(target, http);
  return target.version === '1.0' ? new JsonRpc(target, http, V1_RPC) : new JsonRpc(target, http, V03_RPC);
}
