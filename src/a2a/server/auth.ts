// Authentication in front of the A2A handler: bearer tokens and API keys, in a KeyRing the
// caller fills (from the environment or files) and may replace while serving. The agent card
// stays public; every other request needs a valid credential, compared in constant time, and
// is made by the principal that credential belongs to. Repeated failures from one address get
// 429. An `Admission` (limits, audit) sees each request once its principal is known. No
// credential is ever written to a response or a log.

import { JWKS_PATH } from '../wire/card-signature.js';
import { statusError, type A2AHandler } from './http.js';
import type { HttpRequest, HttpResponse, RequestHead } from '../../net/http-types.js';
import { KeyRing, type Credential } from './key-ring.js';

export { DEFAULT_PRINCIPAL, KeyRing, type Credential, type CredentialLists, type KeyChange } from './key-ring.js';

export interface AuthOptions {
  /**
   * Accepted bearer tokens (`Authorization: Bearer <token>`). A bare string is a credential of
   * the principal `default`.
   */
  bearerTokens?: readonly (string | Credential)[];
  /** Accepted API keys, sent in `apiKeyHeader`; a bare string as in `bearerTokens`. */
  apiKeys?: readonly (string | Credential)[];
  /**
   * The credentials as one object that can be replaced while the server runs (a rotated or
   * withdrawn token), in place of `bearerTokens` and `apiKeys`: a server made with it always
   * asks for a credential, even while the ring holds none.
   */
  keys?: KeyRing;
  /** The header that carries an API key (default `X-API-Key`). */
  apiKeyHeader?: string;
  /** Failed attempts allowed per address per minute before 429 (default 30). */
  maxFailuresPerMinute?: number;
  /**
   * Told once each time an address reaches that limit (its address and the limit), so that an
   * operator hears of someone guessing; by default one line on stderr. Never told a credential.
   */
  onLockout?: (address: string, limit: number) => void;
  now?: () => number;
}

/** A handler told who made the request: undefined when auth is off and for the public card. */
export type AuthenticatedHandler = (request: HttpRequest, principal: string | undefined) => Promise<HttpResponse>;

// The key set that verifies a signed card is as public as the card.
const PUBLIC_PATHS = new Set(['/.well-known/agent-card.json', '/.well-known/agent.json', JWKS_PATH]);
const WINDOW_MS = 60_000;

/**
 * What a server does with a request once its credential is known (its limits, its audit
 * trail): `admit` lets it through (undefined) or answers it; `refused` hears of each request
 * refused for want of a valid credential (`locked`: with 429, after too many).
 */
export interface Admission {
  admit(head: RequestHead, principal: string | undefined): HttpResponse | undefined;
  refused(head: RequestHead, locked: boolean): void;
}

/** True when any kind of credential is configured. */
export function authEnabled(options: AuthOptions): boolean {
  return options.keys !== undefined || (options.bearerTokens?.length ?? 0) > 0 || (options.apiKeys?.length ?? 0) > 0;
}

/** The ring of `options`: the one given, else one made of its lists; none when auth is off. */
export function keyRingOf(options: AuthOptions): KeyRing | undefined {
  if (options.keys !== undefined) return options.keys;
  return authEnabled(options) ? new KeyRing(options) : undefined;
}

/**
 * Who made a request, from its head: `{ principal }` (undefined when auth is off), or the
 * answer that refuses it (401, or 429 once its address failed too often). Every binding asks
 * the same one: HTTP below, gRPC with its metadata as the headers.
 */
export type Authenticator = (head: RequestHead & { principal?: string }) => { principal: string | undefined } | { refusal: HttpResponse };

/**
 * Checks credentials as `options` say (its `keys`, read per request). Throws USAGE when two
 * principals share a secret: whose request it is would then be a guess. `admission` hears of
 * each request refused for want of a credential, and is asked first whether its address may go on.
 */
export function authenticator(options: AuthOptions, admission?: Admission): Authenticator {
  const keys = keyRingOf(options);
  if (keys === undefined) return (head) => ({ principal: head.principal });
  const header = (options.apiKeyHeader ?? 'X-API-Key').toLowerCase();
  const limit = options.maxFailuresPerMinute ?? 30;
  const now = options.now ?? Date.now;
  const failures = new Map<string, number[]>();
  /** Addresses answered 429 since their last 401: each lockout is told once. */
  const lockedOut = new Set<string>();
  const tellLockout = (who: string, limit: number): void => {
    if (lockedOut.size > 10_000) lockedOut.clear();
    try {
      (options.onLockout ?? lockoutToStderr)(who, limit);
    } catch {
      // Telling is a courtesy: the answer is 429 either way.
    }
  };
  const challenge = challengeFor({ ...options, keys });

  /** 401 for a request without a valid credential, or 429 once its address failed too often. */
  const refuse = (request: RequestHead): HttpResponse => {
    const limited = admission?.admit(request, undefined);
    if (limited !== undefined) return limited;
    // A valid credential always passes: a stranger's failures from the same address (or from
    // behind the same proxy) must not lock out a client that has the right token. Only failures
    // are counted, and past the limit they get 429 instead of 401.
    const who = request.remoteAddress ?? 'unknown';
    const recent = (failures.get(who) ?? []).filter((at) => now() - at < WINDOW_MS);
    if (recent.length >= limit) {
      failures.set(who, recent);
      if (!lockedOut.has(who)) {
        lockedOut.add(who);
        tellLockout(who, limit);
      }
      admission?.refused(request, true);
      return statusError(429, 'RESOURCE_EXHAUSTED', 'too many failed authentication attempts; wait a minute', { 'retry-after': '60' });
    }
    recent.push(now());
    failures.set(who, recent);
    lockedOut.delete(who);
    if (failures.size > 10_000) forgetOldest(failures);
    admission?.refused(request, false);
    return statusError(401, 'UNAUTHENTICATED', 'missing or invalid credentials', { 'www-authenticate': challenge });
  };
  return (head) => {
    // A principal vouched for in-process (the hub's relay) needs no credential of its own.
    const principal = head.principal ?? keys.principalOf(head, header);
    return principal === undefined ? { refusal: refuse(head) } : { principal };
  };
}

/**
 * Wraps `handler` so that only requests with a valid credential reach it, each with the
 * principal of its credential (see `authenticator`), and each admitted once by `admission`
 * (the limits per caller), before its body when the adapter asks.
 */
export function withAuth(handler: AuthenticatedHandler, options: AuthOptions, check: Authenticator = authenticator(options), admission?: Admission): A2AHandler {
  /** Requests already let through by the check before their body: each is admitted once. */
  const admitted = new WeakSet<object>();
  const admit = (head: RequestHead, principal: string | undefined): HttpResponse | undefined => {
    if (admission === undefined || admitted.has(head.headers)) return undefined;
    const refusal = admission.admit(head, principal);
    if (refusal === undefined) admitted.add(head.headers);
    return refusal;
  };
  if (!authEnabled(options)) {
    if (admission === undefined) return (request) => handler(request, request.principal);
    const open: A2AHandler = async (request) => admit(request, request.principal) ?? handler(request, request.principal);
    open.beforeBody = (head) => admit(head, undefined);
    return open;
  }
  /**
   * Principals already found for a request's headers, by the check before its body: the socket
   * adapters hand the handler the same headers object, so its credential is digested once.
   */
  const found = new WeakMap<object, string>();
  const isPublic = (request: RequestHead): boolean => PUBLIC_PATHS.has(request.path) && (request.method === 'GET' || request.method === 'HEAD');

  const guarded: A2AHandler = async (request) => {
    if (isPublic(request)) return admit(request, undefined) ?? handler(request, undefined);
    const known = request.principal ?? found.get(request.headers);
    if (known !== undefined) return admit(request, known) ?? handler(request, known);
    const checked = check(request);
    if ('refusal' in checked) return checked.refusal;
    return admit(request, checked.principal) ?? handler(request, checked.principal);
  };
  guarded.beforeBody = (head) => {
    if (isPublic(head)) return admit(head, undefined);
    const checked = check(head);
    if ('refusal' in checked) return checked.refusal;
    if (checked.principal !== undefined) found.set(head.headers, checked.principal);
    return admit(head, checked.principal);
  };
  return guarded;
}

/** The WWW-Authenticate challenge of a 401: the bearer scheme, unless only API keys are taken. */
export function challengeFor(options: AuthOptions): string {
  const keysOnly = options.keys !== undefined ? !options.keys.bearer && options.keys.apiKey : (options.bearerTokens?.length ?? 0) === 0 && (options.apiKeys?.length ?? 0) > 0;
  return keysOnly ? `ApiKey realm="a2a-lite", header="${options.apiKeyHeader ?? 'X-API-Key'}"` : 'Bearer realm="a2a-lite"';
}

function lockoutToStderr(address: string, limit: number): void {
  // The address is the peer's own, as the socket gave it: a log line cannot be forged through it.
  process.stderr.write(`a2a-lite: ${limit} failed authentication attempts from ${address} within a minute; it gets 429 until they age out\n`);
}

function forgetOldest(failures: Map<string, number[]>): void {
  const oldest = failures.keys().next().value;
  if (oldest !== undefined) failures.delete(oldest);
}
