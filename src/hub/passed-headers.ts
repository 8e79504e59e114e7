// What of a client's request the hub passes on to an agent: its headers without the caller's
// credentials and the connection's own, copied once per relayed request, and its query.

import type { HttpRequest } from '../net/http-types.js';

/** Headers the hub never passes on: the caller's credentials, and the connection's own. */
export const PRIVATE_HEADERS = new Set(['authorization', 'x-api-key', 'cookie', 'proxy-authorization', 'host', 'connection', 'content-length', 'accept-encoding', 'keep-alive', 'transfer-encoding']);

/**
 * The header objects `passedHeaders` makes: already without private headers, passed on as they
 * are. A class of its own is how they are told apart: `instanceof` is cheaper than a WeakSet,
 * and its instances stringify as plain objects.
 */
class Passable {
  [name: string]: string;
}

/**
 * `given` without the private headers (and unset ones), with the `extra` ones set: what goes on to an
 * agent. Made once per relayed request; `headersToPass` then takes it as it is.
 */
export function passedHeaders(given: HttpRequest['headers'], extra?: readonly [name: string, value: string][]): Record<string, string> {
  const headers: Record<string, string> = new Passable();
  for (const name in given) {
    const value = given[name];
    if (value !== undefined && !PRIVATE_HEADERS.has(name)) headers[name] = value;
  }
  if (extra !== undefined) for (const [name, value] of extra) headers[name] = value;
  return headers;
}

/** The headers of `request` to pass on to its agent. */
export function headersToPass(request: HttpRequest): Record<string, string> {
  return request.headers instanceof Passable ? (request.headers as Record<string, string>) : passedHeaders(request.headers);
}

/**
 * The query to pass down a link, without its `?`: as the client sent it when the adapter kept
 * it, since the agent's end parses it with URLSearchParams as the hub did; else as the hub
 * parsed it.
 */
export function queryToPass(request: HttpRequest): string {
  const search = request.search;
  if (search === undefined) return request.query.toString();
  return search.startsWith('?') ? search.slice(1) : search;
}
