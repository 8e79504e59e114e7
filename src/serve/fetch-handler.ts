// The web-standard adapter: `fetch(Request) → Response`, for Bun, Deno and edge runtimes.

import type { A2AHandler } from '../a2a/server/http.js';
import { readBody } from '../net/body.js';
import { DEFAULT_MAX_BODY, STATUS_ERROR_HEADERS, tooLargeBody } from '../net/node-http.js';

export function fetchHandler(handler: A2AHandler, options: { maxBodyBytes?: number } = {}): (request: Request) => Promise<Response> {
  const max = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  return async (request) => {
    const url = new URL(request.url);
    const headers = headersOf(request);
    const early = handler.beforeBody?.({ method: request.method, path: url.pathname, headers });
    if (early !== undefined) {
      // The body is never read: a caller without a credential cannot make this runtime hold it.
      void request.body?.cancel().catch(() => {});
      return new Response(request.method === 'HEAD' || !('body' in early) ? null : early.body, { status: early.status, headers: early.headers });
    }
    const body = await readBody(request.body, max);
    if (body === undefined) {
      return new Response(JSON.stringify(tooLargeBody(max)), { status: 413, headers: STATUS_ERROR_HEADERS });
    }
    const response = await handler({ method: request.method, path: url.pathname, query: url.searchParams, search: url.search, headers, body, signal: request.signal });
    // 204 and 304 carry no body, and a Response refuses one for them.
    const bodiless = request.method === 'HEAD' || response.status === 204 || response.status === 304;
    if ('body' in response) return new Response(bodiless ? null : response.body, { status: response.status, headers: response.headers });
    const events = response.events[Symbol.asyncIterator]();
    const encoder = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await events.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
      // Called even while a pull waits for the next event; `return()` reaches the agent at once,
      // so a quiet task drops this subscriber now rather than at its next event.
      async cancel() {
        await events.return?.();
      },
    });
    return new Response(stream, { status: response.status, headers: response.headers });
  };
}

/** The request's headers by lower-case name. */
function headersOf(request: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
  return headers;
}
