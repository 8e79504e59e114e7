// The framework-free HTTP shapes the A2A handler works on. Adapters (node:http, fetch) turn
// real requests into these and these into real responses.

export interface HttpRequest {
  method: string;
  /** The path without the query: `/jsonrpc`, `/.well-known/agent-card.json`. */
  path: string;
  query: URLSearchParams;
  /** Header names in lower case. */
  headers: Readonly<Record<string, string | undefined>>;
  body: string;
  /** Fires when the client goes away, so streams stop. */
  signal?: AbortSignal;
  /** The client's address, when the adapter knows it (for rate limits). */
  remoteAddress?: string;
}

export type HttpResponse =
  | { status: number; headers: Record<string, string>; body: string }
  | { status: number; headers: Record<string, string>; events: AsyncIterable<string> };

export type A2AHandler = (request: HttpRequest) => Promise<HttpResponse>;

export function json(status: number, value: unknown, headers: Record<string, string> = {}): HttpResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(value) };
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
