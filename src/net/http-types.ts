// The framework-free HTTP shapes every handler works on (the A2A handler, the hub's routes).
// The adapters (node-http.ts here, serve/fetch-handler.ts) turn real requests into these and
// these into real responses; nothing above them sees a socket.

import { A2A_JSON } from '../media-types.js';

export interface HttpRequest {
  method: string;
  /** The path without the query: `/jsonrpc`, `/.well-known/agent-card.json`. */
  path: string;
  query: URLSearchParams;
  /**
   * The query as the client sent it (`?a=1`, or '' for none), escapes undecoded, when the
   * adapter has it: `query` quietly keeps a malformed `%` escape, which a reader that must
   * refuse one (the hub) finds only here.
   */
  search?: string;
  /** Header names in lower case. */
  headers: Readonly<Record<string, string | undefined>>;
  body: string;
  /** Fires when the client goes away, so streams stop. */
  signal?: AbortSignal;
  /**
   * Calls `listener` once if the client goes away before its answer is written, as `signal`
   * would, without making one; returns what stops listening. For code on every request (the
   * hub's relay), where a signal and its listeners cost more than the rest of the work.
   */
  onGone?(listener: () => void): () => void;
  /** The client's address, when the adapter knows it (for rate limits). */
  remoteAddress?: string;
  /**
   * Who made the request, when a caller in this process already knows it: the hub's relay
   * passes on the principal the hub authenticated. Never read from the wire; the socket
   * adapters do not set it.
   */
  principal?: string;
}

/** A whole answer, or a stream of pieces of text (server-sent events) written as they come. */
export type HttpResponse =
  | { status: number; headers: Record<string, string>; body: string }
  | { status: number; headers: Record<string, string>; events: AsyncIterable<string> };

/** What is known of a request before its body is read. */
export type RequestHead = Pick<HttpRequest, 'method' | 'path' | 'headers' | 'remoteAddress'>;

/**
 * Serves one request. `beforeBody`, when a handler has it, answers from the head alone what
 * needs no body (a missing or wrong credential): the socket adapters ask it before they read
 * the body, so a caller without a credential never makes the server hold one.
 */
export type HttpHandler = ((request: HttpRequest) => Promise<HttpResponse>) & { beforeBody?: (head: RequestHead) => HttpResponse | undefined };

/** Calls `listener` once if the client of `request` goes away; returns what stops listening. */
export function whenGone(request: HttpRequest, listener: () => void): () => void {
  if (request.onGone !== undefined) return request.onGone(listener);
  const signal = request.signal;
  if (signal === undefined) return () => {};
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}

export function json(status: number, value: unknown, headers: Record<string, string> = {}): HttpResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(value) };
}

/** An answer of the HTTP layer, outside any binding's method: a google.rpc.Status body. */
export function statusError(code: number, status: string, message: string, headers: Record<string, string> = {}): HttpResponse {
  return json(code, { error: { code, status, message } }, { 'content-type': A2A_JSON, ...headers });
}
