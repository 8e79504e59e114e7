// The node:http adapter: reads the body (up to a limit), calls the A2A handler, and writes the
// response. Stream events are written as they come, waiting for the socket when the reader is
// slow, and a client that disconnects stops its stream.

import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { A2AHandler, HttpRequest, HttpResponse } from '../a2a/http.js';

export interface NodeAdapterOptions {
  /** Bodies over this size get 413 (default 4 MiB). */
  maxBodyBytes?: number;
}

export const DEFAULT_MAX_BODY = 4 * 1024 * 1024;

/** A request listener for `http.createServer`. */
export function nodeListener(handler: A2AHandler, options: NodeAdapterOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  const max = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  return (req, res) => {
    void serveOne(handler, req, res, max).catch(() => {
      if (!res.headersSent) writeJson(res, 500, { error: { code: 500, status: 'INTERNAL', message: 'internal error' } });
      else res.destroy();
    });
  };
}

async function serveOne(handler: A2AHandler, req: IncomingMessage, res: ServerResponse, max: number): Promise<void> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > max) return tooLarge(res, max);
  const body = await readBody(req, max);
  if (body === undefined) {
    tooLarge(res, max);
    // As leaving a `for await` over the request does: the rest of the upload is not read.
    req.destroy();
    return;
  }
  const { path, search } = splitUrl(req.url ?? '/');
  const request = new NodeRequest(req.method ?? 'GET', path, search, flatHeaders(req.headers), body, res);
  if (req.socket.remoteAddress !== undefined) request.remoteAddress = req.socket.remoteAddress;
  const response = await handler(request);
  await write(res, response, req.method === 'HEAD', () => request.signal);
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
    private readonly search: string,
    readonly headers: Readonly<Record<string, string>>,
    readonly body: string,
    private readonly res: ServerResponse,
  ) {}

  /** Only the REST routes read the query. */
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
}

/** A path of unreserved characters without dot segments, and a query with nothing to escape. */
const PLAIN_URL = /^\/(?:[\w.~:@-]+(?:\/[\w.~:@-]*)*)?(?:\?[\w.~%+=&-]+)?$/;
const DOT_SEGMENT = /\/\.\.?(?:[/?]|$)/;

/**
 * The path and query of a request target, as `new URL(target, base)` gives them. URL parsing
 * is skipped for plain targets like `/jsonrpc`, which it would leave unchanged.
 */
function splitUrl(target: string): { path: string; search: string } {
  if (PLAIN_URL.test(target) && !DOT_SEGMENT.test(target)) {
    const mark = target.indexOf('?');
    return mark === -1 ? { path: target, search: '' } : { path: target.slice(0, mark), search: target.slice(mark) };
  }
  const url = new URL(target, 'http://localhost');
  return { path: url.pathname, search: url.search };
}

/** Header values as single strings (repeated ones joined); node's own object when they are already. */
function flatHeaders(raw: IncomingMessage['headers']): Record<string, string> {
  let flat = true;
  for (const name in raw) {
    if (typeof raw[name] !== 'string') {
      flat = false;
      break;
    }
  }
  if (flat) return raw as Record<string, string>;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** The body as text, or undefined once it is over `max` bytes. */
function readBody(req: IncomingMessage, max: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > max) {
        done();
        resolve(undefined);
      } else {
        chunks.push(chunk);
      }
    };
    const onEnd = (): void => {
      done();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8'));
    };
    const onError = (error: Error): void => {
      done();
      reject(error);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

async function write(res: ServerResponse, response: HttpResponse, head: boolean, goneSignal: () => AbortSignal): Promise<void> {
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
  try {
    for (;;) {
      const next = await events.next();
      if (next.done || gone.aborted) break;
      // Respect backpressure: a slow reader makes us wait instead of buffering without bound.
      if (!res.write(next.value)) await drainedOrClosed(res);
    }
  } finally {
    gone.removeEventListener('abort', stop);
    res.end();
  }
}

/** Resolves on `drain` or `close`, removing both listeners: a slow reader waits many times. */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

function tooLarge(res: ServerResponse, max: number): void {
  writeJson(res, 413, { error: { code: 413, status: 'PAYLOAD_TOO_LARGE', message: `the request body is over ${max} bytes` } }, { connection: 'close' });
}

function writeJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

export interface Listening {
  server: Server;
  /** `http://host:port` as clients should use it. */
  url: string;
  close(): Promise<void>;
}

/** Starts an HTTP server for `handler` on `host:port` (port 0: any free port). */
export async function listen(handler: A2AHandler, options: NodeAdapterOptions & { port?: number; host?: string } = {}): Promise<Listening> {
  const server = createServer(nodeListener(handler, options));
  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
