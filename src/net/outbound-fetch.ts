// The outbound request in the shape of `fetch`, for code written against it (the client's
// transports, card discovery): `outboundFetch(guard)` is a `fetch` whose every hop goes through
// request() in outbound.ts, checked by `guard` when one is given. It behaves as fetch does where
// callers look: `redirect: 'follow' | 'manual' | 'error'`, a TypeError('fetch failed') with the
// network's error as its cause, an AbortError on abort, a streamed body.

import { Readable } from 'node:stream';
import type { AddressGuardOptions } from './address-guard.js';
import { keptAliveAgents, MAX_REDIRECTS, request, type IncomingAnswer } from './outbound.js';

export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface OutboundFetchOptions {
  /** Headers that carry a secret besides Authorization and Cookie: dropped when a redirect leaves the origin. */
  secretHeaders?: readonly string[];
}

/** Statuses whose answer has no body, which a Response refuses one for. */
const BODILESS = new Set([101, 204, 205, 304]);

/**
 * A `fetch` that sends through the one outbound request: with `guard`, every hop's address is
 * checked and connected to as checked; a refusal rejects with the guard's error (FORBIDDEN).
 *
 * @example
 * const fetch = outboundFetch({ allowPrivateNetworks: false });
 * await fetch('http://127.0.0.1:7331/'); // rejects: FORBIDDEN, a loopback address
 */
export function outboundFetch(guard?: AddressGuardOptions, options: OutboundFetchOptions = {}): Fetch {
  // A guarded fetch keeps its own connections: none opened under other rules is reused.
  const agents = guard === undefined ? undefined : keptAliveAgents();
  return async (input, init = {}) => {
    const url = input instanceof Request ? input.url : input;
    const method = init.method ?? (input instanceof Request ? input.method : 'GET');
    const headers = headersOf(input instanceof Request ? input.headers : undefined, init.headers);
    const body = await bodyOf(init.body ?? (input instanceof Request && input.body !== null ? await input.arrayBuffer() : undefined));
    const redirect = init.redirect ?? 'follow';
    const signal = init.signal ?? undefined;
    let answer: IncomingAnswer;
    try {
      answer = await request(url, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        ...(signal === undefined ? {} : { signal }),
        ...(guard === undefined ? {} : { guard }),
        ...(agents === undefined ? {} : { agents }),
        maxRedirects: redirect === 'follow' ? MAX_REDIRECTS : 0,
        ...(options.secretHeaders === undefined ? {} : { secretHeaders: options.secretHeaders }),
      });
    } catch (error) {
      throw failure(error, signal);
    }
    const status = answer.statusCode ?? 0;
    if (redirect === 'error' && status >= 300 && status < 400 && answer.headers.location !== undefined) {
      answer.destroy();
      throw new TypeError('fetch failed', { cause: new Error('unexpected redirect') });
    }
    return responseOf(answer, method === 'HEAD');
  };
}

/** Errors as fetch gives them: ours (a refusal) as they are, the network's wrapped, an abort as an abort. */
function failure(error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return signal.reason ?? error;
  if (error instanceof Error && (error.name === 'LiteError' || error.name === 'AbortError')) return error;
  // Node refuses a header value it cannot send before anything goes out; its words never quote the value.
  if (error instanceof TypeError && (error as { code?: string }).code === 'ERR_INVALID_CHAR') return new TypeError('a header value is not allowed');
  return new TypeError('fetch failed', { cause: error });
}

function responseOf(answer: IncomingAnswer, head: boolean): Response {
  const status = answer.statusCode ?? 0;
  const headers = new Headers();
  const raw = answer.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      headers.append(raw[i] as string, raw[i + 1] as string);
    } catch {
      // A value fetch would refuse to hold: left out, as fetch leaves it out.
    }
  }
  const empty = head || BODILESS.has(status);
  if (empty) answer.resume();
  const body = empty ? null : (Readable.toWeb(answer) as ReadableStream<Uint8Array>);
  // A Response takes 200–599; an agent that answers otherwise is read as a failure.
  return new Response(body, { status: status >= 200 && status <= 599 ? status : 502, statusText: answer.statusMessage ?? '', headers });
}

/** The headers, lower-cased, `given` over `base`; a value a header cannot hold is refused without quoting it (it may be a credential). */
function headersOf(base: Headers | undefined, given: RequestInit['headers']): Record<string, string> {
  const headers: Record<string, string> = {};
  base?.forEach((value, name) => (headers[name] = value));
  if (given === undefined) return headers;
  if (!(given instanceof Headers) && !Array.isArray(given)) {
    for (const [name, value] of Object.entries(given as Record<string, string>)) headers[name.toLowerCase()] = value;
    return headers;
  }
  try {
    new Headers(given).forEach((value, name) => (headers[name] = value));
  } catch {
    throw new TypeError('a header value is not allowed');
  }
  return headers;
}

async function bodyOf(body: RequestInit['body'] | ArrayBuffer): Promise<string | Uint8Array | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  return new Uint8Array(await new Response(body).arrayBuffer());
}
