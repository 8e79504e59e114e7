// The HTTP plumbing every transport shares: where the credential goes, timeouts (a request is
// timed whole, a stream only until its headers), size and depth limits on answers, and the
// failures a user can act on (unreachable, credentials wanted, an answer that is not A2A).

import { LiteError, isLiteError } from '../errors.js';
import { jsonDepth } from '../json-depth.js';
import type { RemoteInterface } from '../model/remote-access.js';
import { notA2A, unreachable } from './peer-errors.js';
import { readBody } from '../net/body.js';
import { outboundFetch, type Fetch } from '../net/outbound-fetch.js';
import { readSse } from '../net/sse.js';
import type { TransportOptions } from './transport.js';

/** Statuses that say "not now" rather than "no": the call is tried again like a broken one. */
const TRANSIENT: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/** The most a non-streaming answer may hold. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/**
 * How deep an answer may nest. An agent takes messages 64 levels deep; a task or an event around
 * them adds a few. Deeper JSON is refused before anything recursive (JSON.stringify, a clone,
 * an error message quoting a value) can overflow the stack on it.
 */
const MAX_ANSWER_DEPTH = 256;
const DEFAULT_TIMEOUT_MS = 60_000;

/** The plumbing every transport shares: timeouts, credentials, size limits, error mapping. */
export class Http {
  private readonly fetchImpl: Fetch;
  private readonly timeoutMs: number;
  private readonly bodies = new WeakMap<Response, string>();
  /** The timeout still running while a body is read. */
  private readonly timers = new WeakMap<Response, NodeJS.Timeout>();

  constructor(
    private readonly target: RemoteInterface,
    private readonly options: TransportOptions,
  ) {
    // The credential's header, when it is not Authorization or Cookie, is a secret too.
    const apiKey = options.security?.bearer ? undefined : options.security?.apiKey;
    this.fetchImpl = options.fetch ?? outboundFetch(options.guard, apiKey?.in === 'header' ? { secretHeaders: [apiKey.name] } : {});
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  post(url: string, body: string, headers: Record<string, string>, signal?: AbortSignal, streaming = false, timeoutMs?: number): Promise<Response> {
    return this.request(url, { method: 'POST', body, headers }, signal, streaming, timeoutMs);
  }

  get(url: string, headers: Record<string, string>, signal?: AbortSignal): Promise<Response> {
    return this.request(url, { method: 'GET', headers }, signal, false);
  }

  private async request(
    url: string,
    init: { method: string; body?: string; headers: Record<string, string> },
    signal: AbortSignal | undefined,
    streaming: boolean,
    timeoutMs = this.timeoutMs,
  ): Promise<Response> {
    const headers: Record<string, string> = { ...init.headers };
    if (this.target.version === '1.0') headers['a2a-version'] = '1.0';
    let target = url;
    const credential = this.options.credential;
    if (credential !== undefined) {
      const apiKey = this.options.security?.bearer ? undefined : this.options.security?.apiKey;
      if (apiKey === undefined) headers.authorization = `Bearer ${credential.token}`;
      else if (apiKey.in === 'header') headers[apiKey.name.toLowerCase()] = credential.token;
      // Sent as it is (servers compare the cookie's text); credentialFor refused what a cookie cannot hold.
      else if (apiKey.in === 'cookie') headers.cookie = `${apiKey.name}=${credential.token}`;
      else {
        const withKey = new URL(url);
        withKey.searchParams.set(apiKey.name, credential.token);
        target = withKey.href;
      }
    }
    // A request is timed whole; a stream may last as long as the task, so only until its
    // headers arrive.
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(new Error('timeout')), timeoutMs);
    timeout.unref();
    const aborted = signal === undefined ? timer.signal : AbortSignal.any([timer.signal, signal]);
    let response: Response;
    try {
      response = await this.fetchImpl(target, { ...init, headers, signal: aborted, redirect: 'error' });
    } catch (error) {
      clearTimeout(timeout);
      if (signal?.aborted) throw signal.reason ?? error;
      // The address guard's refusal, or an address that does not resolve: said as it is.
      if (isLiteError(error)) throw error;
      if (timer.signal.aborted) throw unreachable(this.target, error, `no answer within ${timeoutMs / 1000} s`);
      // A TypeError with no cause is the request refused before it went out (a header value
      // fetch will not send): its message may quote the value, which may be the credential.
      if (error instanceof TypeError && error.cause === undefined) throw unreachable(this.target, error, 'the request could not be sent (a header value is not allowed)');
      throw unreachable(this.target, error);
    }
    if (streaming) clearTimeout(timeout);
    else this.timers.set(response, timeout);
    if (response.status === 401 || response.status === 403) {
      clearTimeout(timeout);
      await response.body?.cancel().catch(() => undefined);
      const wanted = response.headers.get('www-authenticate');
      throw new LiteError(
        'AUTH_REQUIRED',
        credential === undefined
          ? `the agent at ${this.target.url} wants credentials${wanted ? ` (${wanted.split(/[ ,]/)[0]})` : ''}; pass --token-env NAME with the name of the variable that holds the token`
          : `the agent at ${this.target.url} refused the credential (HTTP ${response.status})`,
        { status: response.status, url: this.target.url },
      );
    }
    if (TRANSIENT.has(response.status)) {
      clearTimeout(timeout);
      await response.body?.cancel().catch(() => undefined);
      // A proxy or an overloaded agent: worth trying again, as a broken connection is.
      throw unreachable(this.target, undefined, `HTTP ${response.status}`);
    }
    return response;
  }

  /** The body as text, at most MAX_RESPONSE_BYTES. */
  async text(response: Response): Promise<string> {
    const known = this.bodies.get(response);
    if (known !== undefined) return known;
    const length = Number(response.headers.get('content-length') ?? '0');
    if (length > MAX_RESPONSE_BYTES) throw notA2A(this.target, `the answer is ${length} bytes, over the limit of ${MAX_RESPONSE_BYTES}`);
    let text: string | undefined;
    try {
      text = await readBody(response.body, MAX_RESPONSE_BYTES);
    } catch (error) {
      throw unreachable(this.target, error, 'the answer broke off');
    } finally {
      clearTimeout(this.timers.get(response));
    }
    if (text === undefined) throw notA2A(this.target, `the answer is over the limit of ${MAX_RESPONSE_BYTES} bytes`);
    this.bodies.set(response, text);
    return text;
  }

  async json(response: Response): Promise<unknown> {
    return parseJson(await this.text(response), this.target);
  }

  sse(response: Response): AsyncIterable<{ data: string; id: string }> {
    if (response.body === null) return (async function* () {})();
    const events = readSse(response.body);
    const target = this.target;
    return (async function* () {
      try {
        yield* events;
      } catch (error) {
        if (isLiteError(error)) throw error;
        throw unreachable(target, error, 'the stream broke');
      }
    })();
  }
}

export function isEventStream(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
}

export function parseJson(text: string, target: RemoteInterface): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw notA2A(target, `the answer is not JSON (${JSON.stringify(text.slice(0, 80))})`);
  }
  if (jsonDepth(value, MAX_ANSWER_DEPTH) > MAX_ANSWER_DEPTH) throw notA2A(target, `the answer nests deeper than ${MAX_ANSWER_DEPTH} levels`);
  return value;
}
