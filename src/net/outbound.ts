// The one way a request leaves this process: plain, or address-checked when a guard is given.
// Checked means every hop: the first URL and each redirect's are resolved and judged by the
// address guard, and the connection goes to the address that was judged (no second DNS
// answer). Redirects are followed only when asked, a few at most; one that leaves the origin
// drops the credentials (Authorization, Cookie and any header the caller marks secret).
//
//   URL ─► checkAddress ─► connect to the pinned address ─► 3xx? ─► next URL (checked again)

import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { LiteError } from '../errors.js';
import { checkAddress, pinnedLookup, type AddressGuardOptions } from './address-guard.js';
import { certificateRefusal, clientTls, isCertificateError } from './tls.js';

/** An answer as it arrives: status, headers, and the body still to be read (or destroyed). */
export type IncomingAnswer = IncomingMessage;

/** Connections kept open between requests to the same places. */
export interface Agents {
  http: HttpAgent;
  https: HttpsAgent;
}

export interface OutboundOptions {
  method?: string;
  /** Header names in any case. */
  headers?: Readonly<Record<string, string>>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
  /** Milliseconds the connection may be silent before the request fails (default: no limit). */
  timeoutMs?: number;
  /** Check every hop's address with these rules, and connect to the address checked. */
  guard?: AddressGuardOptions;
  /** Redirects to follow, each checked as the first URL was (at most 5; default 0: a 3xx is the answer). */
  maxRedirects?: number;
  /** Headers that carry a secret besides Authorization and Cookie: dropped when a redirect leaves the origin. */
  secretHeaders?: readonly string[];
  /** Keep-alive connections to use (default: node's shared agents, or new ones per request when guarded). */
  agents?: Agents;
  /** Send small writes at once (posts that follow one another closely). */
  noDelay?: boolean;
}

/** The most redirects any request follows. */
export const MAX_REDIRECTS = 5;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Dropped on every redirect that leaves the origin, whatever the caller marks. */
const CREDENTIALS = ['authorization', 'cookie', 'proxy-authorization'];

/** Agents that keep connections open (and let the process exit while they idle). */
export function keptAliveAgents(options: { maxSockets?: number } = {}): Agents {
  return { http: new HttpAgent({ keepAlive: true, ...options }), https: new HttpsAgent({ keepAlive: true, ...options }) };
}

/**
 * Sends a request and resolves with the answer's head, its body still to be read. Rejects with
 * the guard's refusal (FORBIDDEN unless it words its own), INVALID_PARAMS for a URL that is not
 * http(s) or a name that does not resolve (guarded), PEER_ERROR for a redirect that cannot be
 * followed, and the network's own error (ECONNREFUSED, a timeout, an abort) otherwise.
 *
 * @example
 * const answer = await request('https://agent.example/.well-known/agent-card.json', { guard: {}, maxRedirects: 5 });
 * const card = JSON.parse(await readText(answer, 1024 * 1024));
 */
export async function request(url: string | URL, options: OutboundOptions = {}): Promise<IncomingAnswer> {
  const limit = Math.min(Math.max(0, options.maxRedirects ?? 0), MAX_REDIRECTS);
  let target = toUrl(url);
  let method = (options.method ?? 'GET').toUpperCase();
  let headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  let body = options.body;
  for (let hop = 0; ; hop += 1) {
    const answer = await send(target, method, headers, body, options);
    const status = answer.statusCode ?? 0;
    const location = answer.headers.location;
    if (limit === 0 || !REDIRECTS.has(status) || location === undefined) return answer;
    answer.destroy();
    if (hop === limit) throw new LiteError('PEER_ERROR', `${target.origin} redirected more than ${limit} times`, { url: target.href });
    const next = redirectTarget(location, target);
    if (next.origin !== target.origin) headers = withoutSecrets(headers, options.secretHeaders ?? []);
    // As browsers do: a 303 (and a 301 or 302 after a POST) is followed by a GET without a body.
    if ((status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
      delete headers['content-type'];
      delete headers['content-length'];
    }
    target = next;
  }
}

/** One hop: checked and pinned when guarded. */
async function send(url: URL, method: string, headers: Record<string, string>, body: string | Uint8Array | undefined, options: OutboundOptions): Promise<IncomingAnswer> {
  // The name's lookup counts against the caller's deadline too: a resolver may hang.
  const guarded = options.guard === undefined ? undefined : await untilAborted(checkAddress(url, options.guard), options.signal);
  const secure = url.protocol === 'https:';
  // A guarded request never shares a pooled connection with requests checked differently (or
  // not at all): a socket is keyed by host name, and could lead where this check did not look.
  const agent = options.agents === undefined ? (guarded === undefined ? undefined : false) : secure ? options.agents.https : options.agents.http;
  const length = body === undefined ? {} : { 'content-length': String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength) };
  return new Promise<IncomingAnswer>((resolve, reject) => {
    const req = (secure ? httpsRequest : httpRequest)(
      url,
      {
        method,
        headers: { ...headers, ...length },
        ...(agent === undefined ? {} : { agent }),
        ...(guarded === undefined ? {} : { lookup: pinnedLookup(guarded) }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
        ...(secure ? clientTls() : {}),
      },
      resolve,
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error(`no answer within ${(options.timeoutMs ?? 0) / 1000} s`), { code: 'ETIMEDOUT' })));
    req.on('error', (error) => {
      if (!isCertificateError(error)) return reject(error);
      const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
      void certificateRefusal(error, host, Number(url.port || 443), guarded?.address).then(reject);
    });
    if (options.noDelay) req.setNoDelay(true);
    req.end(body);
  });
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    const abort = (): void => reject(abortError(signal));
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? Object.assign(new Error('aborted'), { name: 'AbortError' });
}

function toUrl(url: string | URL): URL {
  if (url instanceof URL) return url;
  try {
    return new URL(url);
  } catch {
    throw new LiteError('INVALID_PARAMS', `${JSON.stringify(url.slice(0, 200))} is not an absolute URL`);
  }
}

function redirectTarget(location: string, from: URL): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new LiteError('PEER_ERROR', `${from.origin} redirected to ${JSON.stringify(location.slice(0, 200))}, which is no URL`, { url: from.href });
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new LiteError('PEER_ERROR', `${from.origin} redirected to a ${next.protocol} URL, which is not followed`, { url: from.href });
  next.hash = '';
  return next;
}

function withoutSecrets(headers: Record<string, string>, marked: readonly string[]): Record<string, string> {
  const secret = new Set([...CREDENTIALS, ...marked.map((name) => name.toLowerCase())]);
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !secret.has(name)));
}
