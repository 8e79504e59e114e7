// The outbound gRPC connection, on @grpc/grpc-js (loaded only when a gRPC interface is called).
// Guarded like every outbound request: the target's host is resolved once, every address is
// judged (address-guard.ts), and the channel dials the address judged, by number, with the
// name kept for the :authority and the TLS check. It knows paths and bytes, not A2A.

import type * as Grpc from '@grpc/grpc-js';
import { LiteError } from '../errors.js';
import { checkAddress, type AddressGuardOptions } from './address-guard.js';
import { clientTls } from './tls.js';
import { isIP } from 'node:net';

/** Where an interface is: `host:port` (as the SDKs write it), or a grpc(s):// or http(s):// URL. */
export interface GrpcTarget {
  host: string;
  port: number;
  /** grpcs:// and https:// speak TLS; a bare `host:port`, grpc:// and http:// do not. */
  tls: boolean;
}

/** A call that ended with a status other than OK. */
export class GrpcCallError extends Error {
  override readonly name = 'GrpcCallError';
  constructor(
    readonly code: number,
    message: string,
    /** The `grpc-status-details-bin` trailer: a google.rpc.Status. */
    readonly details: Uint8Array | undefined,
  ) {
    super(message);
  }
}

export interface GrpcChannel {
  readonly target: GrpcTarget;
  /** One request, one answer; a status other than OK is a GrpcCallError. */
  unary(path: string, request: Uint8Array, metadata: Record<string, string>, options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<Uint8Array>;
  /** One request, the answers as they come; ending the iteration cancels the call. */
  stream(path: string, request: Uint8Array, metadata: Record<string, string>, signal?: AbortSignal): AsyncIterable<Uint8Array>;
  close(): void;
}

export interface GrpcChannelOptions {
  /** Check the address before connecting, and connect to the one checked. */
  guard?: AddressGuardOptions;
  /** The largest answer message, in bytes (default 16 MiB). */
  maxMessageBytes?: number;
}

/**
 * Reads an interface URL as a gRPC target; INVALID_PARAMS for anything else.
 *
 * @example
 * grpcTarget('127.0.0.1:50051'); // { host: '127.0.0.1', port: 50051, tls: false }
 * grpcTarget('grpcs://agent.example:443'); // { host: 'agent.example', port: 443, tls: true }
 */
export function grpcTarget(url: string): GrpcTarget {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme !== undefined && !['grpc', 'grpcs', 'http', 'https'].includes(scheme)) throw new LiteError('INVALID_PARAMS', `a gRPC interface is host:port or a grpc://, grpcs://, http:// or https:// URL, not ${scheme}://`);
  let parsed: URL;
  try {
    parsed = new URL(scheme === undefined ? `grpc://${url}` : url);
  } catch {
    throw new LiteError('INVALID_PARAMS', 'the gRPC interface URL is not host:port or a URL');
  }
  const tls = scheme === 'grpcs' || scheme === 'https';
  const port = parsed.port === '' ? (tls ? 443 : 80) : Number(parsed.port);
  const host = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
  if (host === '' || (parsed.pathname !== '' && parsed.pathname !== '/') || parsed.search !== '' || parsed.username !== '') {
    throw new LiteError('INVALID_PARAMS', 'the gRPC interface URL names a host and a port, and nothing else');
  }
  return { host, port, tls };
}

/** Opens a channel to `url`, checked by `options.guard` when given. */
export async function openGrpcChannel(url: string, options: GrpcChannelOptions = {}): Promise<GrpcChannel> {
  const target = grpcTarget(url);
  const bracketed = target.host.includes(':') ? `[${target.host}]` : target.host;
  const authority = `${bracketed}:${target.port}`;
  let dial = authority;
  if (options.guard !== undefined) {
    // checkAddress speaks http(s) URLs; only the host matters to it.
    const checked = await checkAddress(`http://${authority}/`, options.guard);
    dial = checked.family === 6 ? `ipv6:[${checked.address}]:${target.port}` : `ipv4:${checked.address}:${target.port}`;
  }
  const grpc = await import('@grpc/grpc-js');
  // The same authorities as every other connection: the system's, and those of --tls-ca.
  const authorities = clientTls().ca;
  const credentials = target.tls ? grpc.credentials.createSsl(authorities === undefined ? null : Buffer.from(authorities.join('\n'))) : grpc.credentials.createInsecure();
  const client = new grpc.Client(dial, credentials, {
    'grpc.default_authority': authority,
    // The name the certificate must hold; an address is checked against its IP names instead (TLS sends no address as a server name).
    ...(target.tls && isIP(target.host) === 0 ? { 'grpc.ssl_target_name_override': target.host } : {}),
    'grpc.max_receive_message_length': options.maxMessageBytes ?? 16 * 1024 * 1024,
  });
  const same = (value: Uint8Array): Buffer => Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  const raw = (buffer: Buffer): Uint8Array => buffer;
  const metadataOf = (headers: Record<string, string>): Grpc.Metadata => {
    const metadata = new grpc.Metadata();
    for (const [name, value] of Object.entries(headers)) metadata.set(name.toLowerCase(), value);
    return metadata;
  };
  return {
    target,
    unary: (path, request, headers, callOptions = {}) =>
      new Promise<Uint8Array>((resolve, reject) => {
        const deadline = callOptions.timeoutMs === undefined ? {} : { deadline: Date.now() + callOptions.timeoutMs };
        const call = client.makeUnaryRequest(path, same, raw, request, metadataOf(headers), deadline, (error, answer) => {
          callOptions.signal?.removeEventListener('abort', cancel);
          if (error) reject(callError(error));
          else resolve(answer ?? new Uint8Array());
        });
        const cancel = (): void => call.cancel();
        if (callOptions.signal?.aborted) cancel();
        else callOptions.signal?.addEventListener('abort', cancel, { once: true });
      }),
    stream: (path, request, headers, signal) => ({
      async *[Symbol.asyncIterator]() {
        const call = client.makeServerStreamRequest(path, same, raw, request, metadataOf(headers), {});
        const cancel = (): void => call.cancel();
        if (signal?.aborted) cancel();
        else signal?.addEventListener('abort', cancel, { once: true });
        try {
          for await (const message of call as AsyncIterable<Uint8Array>) yield message;
        } catch (error) {
          throw callError(error);
        } finally {
          signal?.removeEventListener('abort', cancel);
          call.cancel();
        }
      },
    }),
    close: () => client.close(),
  };
}

/** A grpc-js failure as a GrpcCallError with its code, message and details trailer. */
function callError(error: unknown): GrpcCallError {
  const status = error as Partial<Grpc.ServiceError>;
  if (typeof status.code !== 'number') return new GrpcCallError(2, error instanceof Error ? error.message : 'the call failed', undefined);
  const details = status.metadata?.get('grpc-status-details-bin')[0];
  return new GrpcCallError(status.code, status.details ?? status.message ?? '', Buffer.isBuffer(details) ? new Uint8Array(details) : undefined);
}
