// Requests that ask to switch protocols (an `Upgrade` header). node:http hands every one of them
// to the server's `upgrade` listener, not to its request listener, and from Node 24.9 lets a
// server choose which with `shouldUpgradeCallback`. Here the handler gets those it takes over
// (a WebSocket route) with their connection; any other is answered as the plain request it also
// is, as node:http does for servers with no upgrade listener: a client sending `Upgrade: h2c`
// on an ordinary call gets its ordinary answer.

import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { HttpHandler } from './http-types.js';
import { answeredByHead } from './request-head.js';
import { respond, tooLargeBody, STATUS_ERROR_HEADERS, type Upgrades } from './node-http.js';

export interface UpgradeLimits {
  maxBodyBytes: number;
  maxStreamBacklogBytes: number;
  /** Milliseconds a plain request sent with an Upgrade header has to send its body (0: no limit). */
  requestTimeout: number;
}

/** Upgrades for `handler`: `takes` names the requests whose connection it takes over. */
export function upgrades(handler: HttpHandler, takes: (req: IncomingMessage) => boolean, limits: UpgradeLimits): Upgrades {
  const listener = (req: IncomingMessage, duplex: Duplex, head: Buffer): void => {
    const socket = duplex as Socket;
    socket.on('error', () => socket.destroy());
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket);
    res.on('finish', () => socket.end());
    const taken = takes(req);
    const served = taken ? respond(handler, req, res, '', limits.maxStreamBacklogBytes, { socket, head }) : plain(handler, req, res, socket, head, limits);
    served.then(
      // A connection taken over is the handler's alone from now on.
      () => taken && !res.headersSent && res.detachSocket(socket),
      () => socket.destroy(),
    );
  };
  return { takes, listener };
}

/** An ordinary request that happened to carry an Upgrade header: its body read here, as node:http would have. */
async function plain(handler: HttpHandler, req: IncomingMessage, res: ServerResponse, socket: Socket, head: Buffer, limits: UpgradeLimits): Promise<void> {
  if (answeredByHead(handler, req, res)) return;
  if (req.headers['transfer-encoding'] !== undefined) {
    return refuse(res, 400, { error: { code: 400, status: 'INVALID_ARGUMENT', message: 'a request with an Upgrade header must give its Content-Length; send it without the Upgrade header' } });
  }
  const length = Number(req.headers['content-length'] ?? '0');
  if (!Number.isSafeInteger(length) || length < 0) return refuse(res, 400, { error: { code: 400, status: 'INVALID_ARGUMENT', message: 'Content-Length is not a whole number of bytes' } });
  if (length > limits.maxBodyBytes) return refuse(res, 413, tooLargeBody(limits.maxBodyBytes));
  const body = await readBody(socket, head, length, limits.requestTimeout);
  if (body === undefined) return;
  await respond(handler, req, res, body, limits.maxStreamBacklogBytes);
}

/** `length` bytes of body from what came with the head and then from the socket; undefined if it closes or times out first. */
function readBody(socket: Socket, head: Buffer, length: number, timeoutMs: number): Promise<string | undefined> {
  if (head.length >= length) return Promise.resolve(head.subarray(0, length).toString('utf8'));
  return new Promise((resolve) => {
    const chunks = [head];
    let size = head.length;
    const timer = timeoutMs > 0 ? setTimeout(() => socket.destroy(), timeoutMs) : undefined;
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      size += chunk.length;
      if (size < length) return;
      done();
      resolve(Buffer.concat(chunks, size).subarray(0, length).toString('utf8'));
    };
    const onClose = (): void => {
      done();
      resolve(undefined);
    };
    const done = (): void => {
      if (timer !== undefined) clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
    };
    socket.on('data', onData);
    socket.on('close', onClose);
  });
}

function refuse(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { ...STATUS_ERROR_HEADERS, 'content-length': Buffer.byteLength(body), connection: 'close' });
  res.end(body);
}
