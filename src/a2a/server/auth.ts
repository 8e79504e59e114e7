// Authentication in front of the A2A handler: bearer tokens and API keys, taken from the
// environment by the caller. The agent card stays public; every other request needs a valid
// credential, compared in constant time, and is made by the principal that credential belongs
// to. Repeated failures from one address get 429. No credential is ever written to a response
// or a log.

import { createHash, timingSafeEqual } from 'node:crypto';
import { LiteError } from '../../errors.js';
import { JWKS_PATH } from '../wire/card-signature.js';
import { statusError, type A2AHandler } from './http.js';
import type { HttpRequest, HttpResponse, RequestHead } from '../../net/http-types.js';

/** A secret and the principal it belongs to. */
export interface Credential {
  /**
   * Who presents it: the tasks its requests make are theirs alone. Not a secret: it is stored
   * with the tasks (`serve` uses the name of the environment variable holding the secret).
   */
  principal: string;
  secret: string;
}

export interface AuthOptions {
  /**
   * Accepted bearer tokens (`Authorization: Bearer <token>`). A bare string is a credential of
   * the principal `default`.
   */
  bearerTokens?: readonly (string | Credential)[];
  /** Accepted API keys, sent in `apiKeyHeader`; a bare string as in `bearerTokens`. */
  apiKeys?: readonly (string | Credential)[];
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

/** The principal of a credential given as a bare string. */
export const DEFAULT_PRINCIPAL = 'default';

// The key set that verifies a signed card is as public as the card.
const PUBLIC_PATHS = new Set(['/.well-known/agent-card.json', '/.well-known/agent.json', JWKS_PATH]);
const WINDOW_MS = 60_000;

/** An accepted secret as compared: its digest, and whose it is. */
interface Accepted {
  digest: Buffer;
  principal: string;
}

/** True when any kind of credential is configured. */
export function authEnabled(options: AuthOptions): boolean {
  return (options.bearerTokens?.length ?? 0) > 0 || (options.apiKeys?.length ?? 0) > 0;
}

/**
 * Who made a request, from its head: `{ principal }` (undefined when auth is off), or the
 * answer that refuses it (401, or 429 once its address failed too often). Every binding asks
 * the same one: HTTP below, gRPC with its metadata as the headers.
 */
export type Authenticator = (head: RequestHead & { principal?: string }) => { principal: string | undefined } | { refusal: HttpResponse };

/**
 * Checks credentials as `options` say. Throws USAGE when two principals share a secret: whose
 * request it is would then be a guess.
 */
export function authenticator(options: AuthOptions): Authenticator {
  if (!authEnabled(options)) return (head) => ({ principal: head.principal });
  const bearer = (options.bearerTokens ?? []).map(accepted);
  const keys = (options.apiKeys ?? []).map(accepted);
  checkDistinct([...bearer, ...keys]);
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
  const challenge = challengeFor(options);

  /** 401 for a request without a valid credential, or 429 once its address failed too often. */
  const refuse = (request: RequestHead): HttpResponse => {
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
      return statusError(429, 'RESOURCE_EXHAUSTED', 'too many failed authentication attempts; wait a minute', { 'retry-after': '60' });
    }
    recent.push(now());
    failures.set(who, recent);
    lockedOut.delete(who);
    if (failures.size > 10_000) forgetOldest(failures);
    return statusError(401, 'UNAUTHENTICATED', 'missing or invalid credentials', { 'www-authenticate': challenge });
  };
  return (head) => {
    // A principal vouched for in-process (the hub's relay) needs no credential of its own.
    const principal = head.principal ?? principalOf(head, bearer, keys, header);
    return principal === undefined ? { refusal: refuse(head) } : { principal };
  };
}

/**
 * Wraps `handler` so that only requests with a valid credential reach it, each with the
 * principal of its credential (see `authenticator`).
 */
export function withAuth(handler: AuthenticatedHandler, options: AuthOptions, check: Authenticator = authenticator(options)): A2AHandler {
  if (!authEnabled(options)) return (request) => handler(request, request.principal);
  /**
   * Principals already found for a request's headers, by the check before its body: the socket
   * adapters hand the handler the same headers object, so its credential is digested once.
   */
  const found = new WeakMap<object, string>();
  const isPublic = (request: RequestHead): boolean => PUBLIC_PATHS.has(request.path) && (request.method === 'GET' || request.method === 'HEAD');

  const guarded: A2AHandler = async (request) => {
    if (isPublic(request)) return handler(request, undefined);
    const known = request.principal ?? found.get(request.headers);
    if (known !== undefined) return handler(request, known);
    const checked = check(request);
    return 'refusal' in checked ? checked.refusal : handler(request, checked.principal);
  };
  guarded.beforeBody = (head) => {
    if (isPublic(head)) return undefined;
    const checked = check(head);
    if ('refusal' in checked) return checked.refusal;
    if (checked.principal !== undefined) found.set(head.headers, checked.principal);
    return undefined;
  };
  return guarded;
}

/** The WWW-Authenticate challenge of a 401: the bearer scheme, unless only API keys are taken. */
export function challengeFor(options: AuthOptions): string {
  const keysOnly = (options.bearerTokens?.length ?? 0) === 0 && (options.apiKeys?.length ?? 0) > 0;
  return keysOnly ? `ApiKey realm="a2a-lite", header="${options.apiKeyHeader ?? 'X-API-Key'}"` : 'Bearer realm="a2a-lite"';
}

/** The principal whose credential the request carries, or undefined when it carries none valid. */
function principalOf(request: RequestHead, bearer: readonly Accepted[], keys: readonly Accepted[], header: string): string | undefined {
  const authorization = request.headers.authorization ?? '';
  const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  const byToken = token !== undefined && bearer.length > 0 ? find(digest(token), bearer) : undefined;
  if (byToken !== undefined) return byToken;
  const key = request.headers[header];
  return key !== undefined && keys.length > 0 ? find(digest(key.trim()), keys) : undefined;
}

/**
 * Compares against every accepted value, each in constant time: the time taken tells
 * nothing about how much of a guess was right, nor which value it was close to.
 */
function find(candidate: Buffer, accepted: readonly Accepted[]): string | undefined {
  let found: string | undefined;
  for (const value of accepted) if (timingSafeEqual(candidate, value.digest)) found ??= value.principal;
  return found;
}

function accepted(credential: string | Credential): Accepted {
  return typeof credential === 'string'
    ? { digest: digest(credential), principal: DEFAULT_PRINCIPAL }
    : { digest: digest(credential.secret), principal: credential.principal };
}

/** Refuses one secret held by two principals, naming the principals, never the secret. */
function checkDistinct(all: readonly Accepted[]): void {
  const owners = new Map<string, string>();
  for (const { digest: value, principal } of all) {
    const other = owners.get(value.toString('hex'));
    if (other !== undefined && other !== principal) {
      throw new LiteError('USAGE', `the credentials of ${other} and ${principal} are the same secret; each principal needs its own`);
    }
    owners.set(value.toString('hex'), principal);
  }
}

/** Equal-length digests, so that timingSafeEqual can compare secrets of any length. */
function digest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

function lockoutToStderr(address: string, limit: number): void {
  // The address is the peer's own, as the socket gave it: a log line cannot be forged through it.
  process.stderr.write(`a2a-lite: ${limit} failed authentication attempts from ${address} within a minute; it gets 429 until they age out\n`);
}

function forgetOldest(failures: Map<string, number[]>): void {
  const oldest = failures.keys().next().value;
  if (oldest !== undefined) failures.delete(oldest);
}
