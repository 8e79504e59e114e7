// One push notification POST: net's outbound request with the address guard (to the address
// checked, never a second DNS answer), within a deadline, following no redirect. It reports
// what happened; retrying is the sender's.

import { isLiteError, LiteError } from '../errors.js';
import type { AddressGuardOptions, Refused } from '../net/address-guard.js';
import { placeOf } from '../net/address-guard.js';
import { request, type Agents, type IncomingAnswer } from '../net/outbound.js';

export type PostOutcome = { ok: true } | { ok: false; permanent: boolean; reason: string };

export interface PostOptions extends AddressGuardOptions {
  headers: Record<string, string>;
  /** From the DNS lookup to the response headers. */
  timeoutMs: number;
  /** Aborts the attempt (the sender closing); the outcome then does not matter. */
  signal: AbortSignal;
  agents: Agents;
}

/** What of a response body is read (to keep the connection) before the socket is dropped. */
const MAX_RESPONSE_BYTES = 64 * 1024;
const RESPONSE_DRAIN_MS = 2_000;

/** A webhook's refusal, in the words push configs have always been refused with. */
export function webhookRefusal(refused: Refused): LiteError {
  const hint = refused.allowable ? 'an operator can allow private networks with --allow-private-webhooks' : 'no setting allows it';
  return new LiteError('WEBHOOK_REFUSED', `webhooks may not go to ${placeOf(refused)}: it is a ${refused.reason} address; ${hint}`, { host: refused.host, address: refused.address, reason: refused.reason, allowable: refused.allowable });
}

/**
 * Posts `body` to `url` and tells whether it was delivered. Any 2xx is; a redirect, or a 4xx
 * other than 408, 425 and 429, is a failure that trying again will not fix; the rest (5xx,
 * timeouts, refused connections, DNS failures) may be retried.
 */
export async function postWebhook(url: string, body: string, options: PostOptions): Promise<PostOutcome> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
  const abort = (): void => deadline.abort();
  options.signal.addEventListener('abort', abort, { once: true });
  try {
    const guard: AddressGuardOptions = { allowPrivateNetworks: options.allowPrivateNetworks ?? false, refuse: webhookRefusal };
    if (options.resolve !== undefined) guard.resolve = options.resolve;
    const answer = await request(url, { method: 'POST', headers: options.headers, body, guard, agents: options.agents, signal: deadline.signal });
    const status = answer.statusCode ?? 0;
    discard(answer);
    return outcomeOf(status);
  } catch (error) {
    if (isLiteError(error, 'WEBHOOK_REFUSED')) return { ok: false, permanent: true, reason: error.message };
    if (deadline.signal.aborted) return { ok: false, permanent: false, reason: `no answer within ${options.timeoutMs / 1000} s` };
    if (isLiteError(error)) return { ok: false, permanent: false, reason: error.message };
    const code = (error as { code?: unknown } | null)?.code;
    return { ok: false, permanent: false, reason: typeof code === 'string' ? code : String((error as Error | null)?.message ?? error) };
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', abort);
  }
}

function outcomeOf(status: number): PostOutcome {
  if (status >= 200 && status < 300) return { ok: true };
  if (status >= 300 && status < 400) return { ok: false, permanent: true, reason: `HTTP ${status}: redirects are not followed` };
  const retry = status >= 500 || status === 408 || status === 425 || status === 429 || status < 200;
  return { ok: false, permanent: !retry, reason: `HTTP ${status}` };
}

/** Reads a little of the body so that the connection can be reused, then gives up on it. */
function discard(response: IncomingAnswer): void {
  let size = 0;
  const stop = setTimeout(() => response.destroy(), RESPONSE_DRAIN_MS);
  stop.unref();
  response.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_RESPONSE_BYTES) response.destroy();
  });
  response.on('close', () => clearTimeout(stop));
  response.on('error', () => undefined);
}
