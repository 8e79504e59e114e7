// The framework-free HTTP shapes the A2A handler works on. Adapters (node:http, fetch) turn
// real requests into these and these into real responses.
//
// Media types: a JSON-RPC response is `application/json` (§9.1); a google.rpc.Status error body,
// from the REST routes or from the HTTP layer (no route, wrong method, no credentials, too many
// tries, too large), is `application/a2a+json` (§11.1, §11.6); the agent card is `application/json`.

import { A2A_JSON } from '../wire/v1.js';

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
export type A2AHandler = ((request: HttpRequest) => Promise<HttpResponse>) & { beforeBody?: (head: RequestHead) => HttpResponse | undefined };

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

/**
 * The `A2A-Version` a request asks for (§3.6.1): the header, else the query parameter of that
 * name (in any case, as service parameter names are); '' when neither says. The query is read
 * only when the header is missing or empty.
 */
export function askedVersion(request: HttpRequest): string {
  const header = request.headers['a2a-version']?.trim();
  if (header) return header;
  for (const [name, value] of request.query) if (name.toLowerCase() === 'a2a-version' && value.trim() !== '') return value.trim();
  return '';
}

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** One server-sent event: its `id:` when it has one, its JSON on a `data:` line, then a blank line. */
export function sseEvent(value: unknown, id?: number): string {
  return id === undefined ? `data: ${JSON.stringify(value)}\n\n` : `id: ${id}\ndata: ${JSON.stringify(value)}\n\n`;
}
