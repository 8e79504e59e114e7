// The node:http adapter: reads the body (up to a limit), calls the A2A handler, and writes the
// response. Stream events are written as they come, waiting for the socket when the reader is
// slow, and a client that disconnects stops its stream.

import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { A2AHandler, HttpResponse } from '../a2a/http.js';

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
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) return tooLarge(res, max);
    chunks.push(chunk as Buffer);
  }
  const url = new URL(req.url ?? '/', 'http://localhost');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  // "The client went away" matters only while a response is still being written (a stream);
  // aborting after every finished response would cost an exception object per request.
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  const response = await handler({
    method: req.method ?? 'GET',
    path: url.pathname,
    query: url.searchParams,
    headers,
    body: Buffer.concat(chunks).toString('utf8'),
    signal: gone.signal,
    ...(req.socket.remoteAddress === undefined ? {} : { remoteAddress: req.socket.remoteAddress }),
  });
  await write(res, response, req.method === 'HEAD', gone.signal);
}

async function write(res: ServerResponse, response: HttpResponse, head: boolean, gone: AbortSignal): Promise<void> {
  if ('body' in response) {
    res.writeHead(response.status, { ...response.headers, 'content-length': Buffer.byteLength(response.body) });
    res.end(head ? undefined : response.body);
    return;
  }
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
      if (!res.write(next.value)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
    }
  } finally {
    gone.removeEventListener('abort', stop);
    res.end();
  }
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
