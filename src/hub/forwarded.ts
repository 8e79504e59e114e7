// A request as the hub sends it on to an agent: the path and body it read, the headers it passes
// (the hubs it went through, and a caller's own Idempotency-Key for an agent at a URL), and the
// hook that tells when the answer is over (an agent's load counts a send until then).

import { createHash } from 'node:crypto';
import { whenGone, type HttpRequest, type HttpResponse } from '../net/http-types.js';
import { VIA_HEADER } from './loop-guard.js';
import { passedHeaders } from './passed-headers.js';
import { watchedEvents } from './watched-events.js';

/**
 * `request` as the hub forwards it: the path and body it read, the headers it passes on. Not a
 * spread: the node adapter's query and signal are getters, made on first use, which a spread
 * would make at once or drop.
 */
export class Forwarded implements HttpRequest {
  constructor(
    private readonly request: HttpRequest,
    readonly path: string,
    readonly body: string,
    readonly headers: HttpRequest['headers'],
  ) {}

  get method(): string {
    return this.request.method;
  }

  get query(): URLSearchParams {
    return this.request.query;
  }

  get search(): string | undefined {
    return this.request.search;
  }

  get signal(): AbortSignal | undefined {
    return this.request.signal;
  }

  onGone(listener: () => void): () => void {
    return whenGone(this.request, listener);
  }
}

/**
 * The headers passed on: the hubs the request went through, and for an agent at a URL (which
 * sees every caller as the hub) an Idempotency-Key of the caller's own, so that two callers who
 * chose the same key do not get one task.
 */
export function forwardedHeaders(headers: HttpRequest['headers'], via: string, principal: string | undefined): Record<string, string> {
  const key = headers['idempotency-key'];
  if (principal === undefined || key === undefined) return passedHeaders(headers, [[VIA_HEADER, via]]);
  return passedHeaders(headers, [
    [VIA_HEADER, via],
    ['idempotency-key', createHash('sha256').update(`${principal}\n${key}`).digest('base64url')],
  ]);
}

/** `response`, running `done` once when its body has been answered or its stream has ended. */
export function whenDone(response: HttpResponse, done: () => void): HttpResponse {
  if ('body' in response) {
    done();
    return response;
  }
  return { ...response, events: watchedEvents(response.events, { end: done }) };
}
