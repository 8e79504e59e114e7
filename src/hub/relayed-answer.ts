// What the hub passes back of an agent's answer. The hub's origin is the console's, so an answer
// an agent wrote must never become a page there: only JSON and event streams go through, with the
// headers an A2A client reads, marked so that no browser sniffs or runs them; a redirect is not
// followed nor passed on (it would make the hub an open redirect).

import { statusError } from '../a2a/server/http.js';
import { type HttpResponse } from '../net/http-types.js';

const PASSED_TYPES = new Set(['application/json', 'application/a2a+json', 'text/event-stream', 'application/problem+json', 'application/jwk-set+json']);

/** Headers of the agent's that reach the client; every other is dropped. */
const PASSED_HEADERS = new Set(['content-type', 'cache-control', 'etag', 'last-modified', 'vary', 'a2a-extensions', 'a2a-version', 'retry-after', 'www-authenticate', 'allow', 'x-accel-buffering', 'a2a-lite-delivery']);

const NO_SNIFF = 'nosniff';
const SANDBOX = "default-src 'none'; sandbox; frame-ancestors 'none'";
const SAFE_HEADERS: Readonly<Record<string, string>> = { 'x-content-type-options': NO_SNIFF, 'content-security-policy': SANDBOX };

/** `response` as the hub gives it to the client. */
export function relayedAnswer(response: HttpResponse): HttpResponse {
  if (response.status >= 300 && response.status < 400 && response.status !== 304) {
    return refused(502, `the agent answered with a redirect (HTTP ${response.status}), which the hub does not follow or pass on`);
  }
  // A literal, not a spread of SAFE_HEADERS: this runs for every answer.
  const headers: Record<string, string> = { 'x-content-type-options': NO_SNIFF, 'content-security-policy': SANDBOX };
  const given = response.headers;
  for (const name in given) {
    // Names come lower-case from node:http and the relay's frames; others are lowered first.
    const lower = PASSED_HEADERS.has(name) ? name : name.toLowerCase();
    if (PASSED_HEADERS.has(lower)) headers[lower] = given[name] as string;
  }
  const raw = headers['content-type'] ?? '';
  const type = PASSED_TYPES.has(raw) ? raw : raw.split(';')[0]!.trim().toLowerCase();
  const empty = 'body' in response && response.body === '';
  if (!PASSED_TYPES.has(type) && !(empty && type === '')) {
    return refused(response.status >= 400 ? response.status : 502, `the agent answered with ${type === '' ? 'no content type' : `content type ${type.slice(0, 100)}`}, which the hub passes on only as JSON or an event stream`);
  }
  return 'body' in response ? { status: response.status, headers, body: response.body } : { status: response.status, headers, events: response.events };
}

function refused(status: number, message: string): HttpResponse {
  const answer = statusError(status, status === 502 ? 'UNAVAILABLE' : 'UNKNOWN', message);
  return { ...answer, headers: { ...answer.headers, ...SAFE_HEADERS } };
}
