// What the A2A handler answers with at the HTTP layer, over the shapes of net/http-types.ts.
//
// Media types: a JSON-RPC response is `application/json` (§9.1); a google.rpc.Status error body,
// from the REST routes or from the HTTP layer (no route, wrong method, no credentials, too many
// tries, too large), is `application/a2a+json` (§11.1, §11.6); the agent card is `application/json`.

import type { HttpHandler, HttpRequest, HttpResponse } from '../../net/http-types.js';
import type { MethodResult } from './methods.js';
import type { Json } from '../wire/fields.js';

/**
 * The A2A handler: an HTTP handler whose routes are the A2A bindings, and, for the bindings
 * that are not HTTP (gRPC), `runMethod`: a 1.0 method called by name, behind the same credentials,
 * required extensions and error reports.
 */
export type A2AHandler = HttpHandler & {
  /** @internal The gRPC service's way in (serve/grpc-service.ts); not part of the package's API. */
  runMethod?: (call: MethodCall) => Promise<CallOutcome>;
};

/** A 1.0 method called by a binding that is not HTTP: its name, its params, the request's metadata. */
export interface MethodCall {
  /** As METHODS_V1 names it: `SendMessage`. */
  method: string;
  params: Json;
  /** The request's metadata, as HTTP headers: lower-case names. */
  headers: Readonly<Record<string, string | undefined>>;
  remoteAddress?: string;
}

/** What a method call comes to: the method's result or events, or the answer refusing the caller (401, 429). */
export type CallOutcome = MethodResult | { refusal: HttpResponse };

export { json, statusError } from '../../net/http-types.js';

/**
 * The `A2A-Version` a request asks for (§3.6.1): the header, else the query parameter of that
 * name (in any case, as service parameter names are); '' when neither says. The query is read
 * only when the header is missing or empty.
 */
export function askedVersion(request: Pick<HttpRequest, 'headers' | 'query'>): string {
  const header = request.headers['a2a-version']?.trim();
  if (header) return header;
  for (const [name, value] of request.query) if (name.toLowerCase() === 'a2a-version' && value.trim() !== '') return value.trim();
  return '';
}
