// What the A2A handler answers with at the HTTP layer, over the shapes of net/http-types.ts.
//
// Media types: a JSON-RPC response is `application/json` (§9.1); a google.rpc.Status error body,
// from the REST routes or from the HTTP layer (no route, wrong method, no credentials, too many
// tries, too large), is `application/a2a+json` (§11.1, §11.6); the agent card is `application/json`.

import { A2A_JSON } from '../../media-types.js';
import type { HttpHandler, HttpRequest, HttpResponse } from '../../net/http-types.js';

/** The A2A handler: an HTTP handler whose routes are the A2A bindings. */
export type A2AHandler = HttpHandler;

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
