// `serve --grpc-port N`: the A2A gRPC binding on a port of its own, beside HTTP, declared in the
// card. Off unless asked; @grpc/grpc-js and the generated messages load only then.

import type { A2AHandler } from '../../a2a/server/http.js';
import { LiteError } from '../../errors.js';
import type { GrpcServer } from '../../net/grpc-server.js';
import type { TlsCredentials } from '../../net/tls.js';

export const GRPC_OPTIONS = {
  'grpc-port': { type: 'string' },
  'grpc-host': { type: 'string' },
  'grpc-max-streams': { type: 'string' },
} as const;

export const GRPC_HELP = `  --grpc-port N           also serve A2A 1.0 over gRPC on port N (0 picks a free one), with the
                          same methods, credentials (in metadata) and limits as HTTP; the card
                          declares it (protocolBinding GRPC). Off unless given
  --grpc-host H           where the gRPC port listens (default: --host)
  --grpc-max-streams N    calls one gRPC connection may have open at once (default 100); with
                          --tls-cert, the gRPC port speaks TLS too`;

export interface GrpcFlagValues {
  'grpc-port'?: string;
  'grpc-host'?: string;
  'grpc-max-streams'?: string;
  host?: string;
}

/** The limits HTTP has, as the gRPC port takes them. */
export interface GrpcLimits {
  maxBodyBytes: number;
  keepAliveTimeout: number;
  maxStreamBacklogBytes: number;
}

/** Checks the gRPC flags before anything starts: a mistake is a usage error, not a half-started server. */
export function grpcFlags(values: GrpcFlagValues): { port: number; host: string; maxStreams: number } | undefined {
  const given = values['grpc-port'];
  if (given === undefined) {
    for (const flag of ['grpc-host', 'grpc-max-streams'] as const) {
      if (values[flag] !== undefined) throw new LiteError('USAGE', `serve: --${flag} needs --grpc-port N`);
    }
    return undefined;
  }
  const port = whole('--grpc-port', given, 65535);
  const maxStreams = whole('--grpc-max-streams', values['grpc-max-streams'] ?? '100', 100_000);
  if (maxStreams === 0) throw new LiteError('USAGE', 'serve: --grpc-max-streams is at least 1');
  return { port, host: values['grpc-host'] ?? values.host ?? '127.0.0.1', maxStreams };
}

/** Starts the gRPC port for `handler`, with the HTTP limits. */
export async function startGrpc(flags: NonNullable<ReturnType<typeof grpcFlags>>, handler: A2AHandler, limits: GrpcLimits, tls?: TlsCredentials): Promise<GrpcServer> {
  const { serveGrpc } = await import('../../serve/grpc-service.js');
  return serveGrpc(handler, {
    host: flags.host,
    port: flags.port,
    maxMessageBytes: limits.maxBodyBytes,
    maxConcurrentStreams: flags.maxStreams,
    idleTimeoutMs: limits.keepAliveTimeout,
    maxStreamBacklogBytes: limits.maxStreamBacklogBytes,
    ...(tls === undefined ? {} : { tls }),
  });
}


function whole(option: string, value: string, max: number): number {
  if (!/^\d+$/.test(value) || Number(value) > max) throw new LiteError('USAGE', `serve: ${option} is a whole number up to ${max}`);
  return Number(value);
}
