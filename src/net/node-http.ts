// The node:http adapter: reads the body (up to a limit), calls the handler, and writes the
// response. Stream events are written as they come; a client that disconnects stops its stream,
// and one that reads too slowly is dropped. Slow or silent senders are timed out by `listen`.

import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ERROR_TABLE, LiteError } from '../errors.js';
import { readBody } from './body.js';
import type { HttpHandler, HttpRequest, HttpResponse } from './http-types.js';
import { answeredByHead, flatHeaders, splitUrl } from './request-head.js';
import { A2A_JSON } from '../media-types.js';
import type { TlsCredentials } from './tls.js';

export interface NodeAdapterOptions {
  /** Bodies over this size get 413 (default 4 MiB). */
  maxBodyBytes?: number;
  /**
   * A stream whose reader falls further behind than this is closed (default 1 MiB): the bytes
   * of events written while the socket still had earlier ones to send. One large event alone
   * never counts. The client can subscribe again and gets the task as it is by then.
   */
  maxStreamBacklogBytes?: number;
  /**
   * Milliseconds a client has to send a request's headers, counted from the connection or from
   * the first byte of the request (default 10 s; 0: no limit). Used by `listen`.
   */
  headersTimeout?: number;
  /**
   * Milliseconds a client has to send a whole request, headers and body (default 30 s; 0: no
   * limit). Only receiving counts: a slow handler and a long stream are not limited. Used by
   * `listen`.
   */
  requestTimeout?: number;
  /**
   * Milliseconds an idle keep-alive connection is kept open after a response (default 5 s; 0:
   * until the client closes it). Clients are told this figure; node:http closes a second later.
   * Used by `listen`.
   */
  keepAliveTimeout?: number;
}

export const DEFAULT_MAX_BODY = 4 * 1024 * 1024;
export const DEFAULT_MAX_STREAM_BACKLOG = 1024 * 1024;
export const DEFAULT_HEADERS_TIMEOUT = 10_000;
export const DEFAULT_REQUEST_TIMEOUT = 30_000;
export const DEFAULT_KEEP_ALIVE_TIMEOUT = 5_000;

/** A request listener for `http.createServer`. */
export function nodeListener(handler: HttpHandler, options: NodeAdapterOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  const limits = { body: options.maxBodyBytes ?? DEFAULT_MAX_BODY, backlog: options.maxStreamBacklogBytes ?? DEFAULT_MAX_STREAM_BACKLOG };
  return (req, res) => {
    void serveOne(handler, req, res, limits).catch(() => {
      if (!res.headersSent) writeStatusError(res, 500, { error: { code: 500, status: 'INTERNAL', message: 'internal error' } });
      else res.destroy();
    });
  };
}

async function serveOne(handler: HttpHandler, req: IncomingMessage, res: ServerResponse, limits: { body: number; backlog: number }): Promise<void> {
  if (answeredByHead(handler, req, res)) return;
  const max = limits.body;
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > max) return tooLarge(res, max);
  const body = await readBody(req, max);
  if (body === undefined) {
    tooLarge(res, max);
    // As leaving a `for await` over the request does: the rest of the upload is not read.
    req.destroy();
    return;
  }
  await respond(handler, req, res, body, limits.backlog);
}

/**
 * Runs `handler` on `req` (its body read) and writes its answer to `res`. `upgrade`: the
 * connection of a request that asked to switch protocols, for a handler that takes it over and
 * answers `status` 101 (then nothing is written).
 */
export async function respond(handler: HttpHandler, req: IncomingMessage, res: ServerResponse, body: string, maxBacklog: number, upgrade?: { socket: Socket; head: Buffer }): Promise<void> {
  const { path, search } = splitUrl(req.url ?? '/');
  const request: NodeRequest & { upgrade?: { socket: Socket; head: Buffer } } = new NodeRequest(req.method ?? 'GET', path, search, flatHeaders(req.headers), body, res);
  if (req.socket.remoteAddress !== undefined) request.remoteAddress = req.socket.remoteAddress;
  if (upgrade !== undefined) request.upgrade = upgrade;
  const response = await handler(request);
  if (upgrade !== undefined && response.status === 101) return;
  await write(res, response, req.method === 'HEAD', () => request.signal, maxBacklog);
}

/**
 * A request as the handler sees it. The query and the "client went away" signal are made on
 * first use, since most requests never read them; they are getters of this class, not of an
 * object literal, because a literal with getters gets a hidden class of its own each time,
 * which made young-generation collections slower by half.
 */
class NodeRequest implements HttpRequest {
  remoteAddress?: string;
  private parsedQuery: URLSearchParams | undefined;
  private gone: AbortController | undefined;

  constructor(
    readonly method: string,
    readonly path: string,
    readonly search: string,
    readonly headers: Readonly<Record<string, string>>,
    readonly body: string,
    private readonly res: ServerResponse,
  ) {}

  /** Read by the REST routes, and for `A2A-Version` when a request has no such header. */
  get query(): URLSearchParams {
    return (this.parsedQuery ??= new URLSearchParams(this.search));
  }

  /**
   * Fires when the client goes away before the response is written: that matters only to
   * streams, the only readers. Aborting after every finished response would cost an exception
   * object per request.
   */
  get signal(): AbortSignal {
    if (this.gone === undefined) {
      const gone = (this.gone = new AbortController());
      const res = this.res;
      if (res.closed) {
        if (!res.writableFinished) gone.abort();
      } else {
        res.on('close', () => {
          if (!res.writableFinished) gone.abort();
        });
      }
    }
    return this.gone.signal;
  }

  onGone(listener: () => void): () => void {
    const res = this.res;
    if (res.closed) {
      if (!res.writableFinished) listener();
      return () => {};
    }
    // `on`, not `once`: a response closes once, and `once` would wrap the listener in two more objects.
    const closed = (): void => {
      if (!res.writableFinished) listener();
    };
    res.on('close', closed);
    return () => res.off('close', closed);
  }
}

async function write(res: ServerResponse, response: HttpResponse, head: boolean, goneSignal: () => AbortSignal, maxBacklog: number): Promise<void> {
  if ('body' in response) {
    res.writeHead(response.status, { ...response.headers, 'content-length': Buffer.byteLength(response.body) });
    res.end(head ? undefined : response.body);
    return;
  }
  const gone = goneSignal();
  res.writeHead(response.status, response.headers);
  res.flushHeaders();
  const events = response.events[Symbol.asyncIterator]();
  const stop = (): void => void events.return?.();
  gone.addEventListener('abort', stop, { once: true });
  // Bytes written since the socket last had more than it could send at once. Waiting for the
  // socket instead would not bound anything: the task goes on, and its events would queue up
  // before the stream rather than in it.
  let backlog = 0;
  try {
    for (;;) {
      const next = await events.next();
      if (next.done || gone.aborted) break;
      if (res.writableNeedDrain) {
        backlog += Buffer.byteLength(next.value);
        if (backlog > maxBacklog) {
          // Too far behind: drop the connection (an ended stream would still hold what it has
          // not sent) and unsubscribe.
          res.destroy();
          stop();
          return;
        }
      } else {
        backlog = 0;
      }
      res.write(next.value);
    }
  } finally {
    gone.removeEventListener('abort', stop);
    res.end();
  }
}

function tooLarge(res: ServerResponse, max: number): void {
  writeStatusError(res, 413, tooLargeBody(max), { connection: 'close' });
}

/** The answer to a body over the limit, before any handler runs: a google.rpc.Status, as REST errors are. */
export function tooLargeBody(max: number): { error: { code: number; status: string; message: string } } {
  const row = ERROR_TABLE.INPUT_TOO_LARGE;
  return { error: { code: row.http, status: row.status, message: `the request body is over ${max} bytes` } };
}

/** The headers of an adapter's own error answers (413, 500): a google.rpc.Status body. */
export const STATUS_ERROR_HEADERS: Readonly<Record<string, string>> = { 'content-type': A2A_JSON };

function writeStatusError(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { ...STATUS_ERROR_HEADERS, 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** What `listen` needs to serve upgrades (upgrade.ts): which requests are taken over, and the listener for all of them. */
export interface Upgrades {
  takes(req: IncomingMessage): boolean;
  listener(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

export interface Listening {
  server: Server;
  /** `http://host:port` (or `https://` with TLS) as clients should use it. */
  url: string;
  /**
   * Serves new connections with `credentials` from now on (a renewed certificate); connections
   * already open, and their streams, go on as they are. Only for a server started with TLS.
   */
  setTls(credentials: TlsCredentials): void;
  close(): Promise<void>;
}

/**
 * Starts an HTTP server for `handler` on `host:port` (port 0: any free port). A client that is
 * slow to send its request, or silent, gets 408 and is disconnected after `headersTimeout` or
 * `requestTimeout`; an idle keep-alive connection is closed after `keepAliveTimeout`.
 */
export async function listen(handler: HttpHandler, options: NodeAdapterOptions & { port?: number; host?: string; upgrades?: Upgrades; tls?: TlsCredentials } = {}): Promise<Listening> {
  const requestTimeout = options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT;
  // node:http refuses a headers limit above the request limit; the request limit covers both.
  const headersTimeout = Math.min(options.headersTimeout ?? DEFAULT_HEADERS_TIMEOUT, requestTimeout || Infinity);
  // node:http checks both limits on a timer, every 30 s unless told: a limit of 10 s would then
  // close a slow client after up to 40 s. A quarter of the shorter limit, at most 1 s.
  const shortest = Math.min(headersTimeout || Infinity, requestTimeout || Infinity);
  const connectionsCheckingInterval = Math.max(5, Math.min(1000, Math.floor(shortest / 4)));
  const upgrades = options.upgrades;
  // Node 24.9 and later pass upgrades not taken to the request listener; before, upgrade.ts does.
  const settings = { headersTimeout, requestTimeout, connectionsCheckingInterval, handshakeTimeout: headersTimeout || 120_000, ...(upgrades === undefined ? {} : { shouldUpgradeCallback: upgrades.takes }) };
  const tls = options.tls;
  // An https server is an http one on TLS sockets: the same requests, upgrades and limits.
  const server: Server = tls === undefined ? createServer(settings, nodeListener(handler, options)) : (createTlsServer({ ...settings, cert: tls.cert, key: tls.key }, nodeListener(handler, options)) as unknown as Server);
  if (upgrades !== undefined) server.on('upgrade', upgrades.listener);
  server.keepAliveTimeout = options.keepAliveTimeout ?? DEFAULT_KEEP_ALIVE_TIMEOUT;
  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `${tls === undefined ? 'http' : 'https'}://${host}:${address.port}`,
    setTls: (credentials) => {
      if (tls === undefined) throw new LiteError('USAGE', 'this server was started without TLS');
      (server as unknown as TlsServer).setSecureContext({ cert: credentials.cert, key: credentials.key });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
