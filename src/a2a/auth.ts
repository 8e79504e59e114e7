// Authentication in front of the A2A handler: bearer tokens and API keys, taken from the
// environment by the caller. The agent card stays public; every other request needs a valid
// credential, compared in constant time. Repeated failures from one address get 429.
// No credential is ever written to a response or a log.

import { createHash, timingSafeEqual } from 'node:crypto';
import { json, type A2AHandler, type HttpRequest } from './http.js';

export interface AuthOptions {
  /** Accepted bearer tokens (`Authorization: Bearer <token>`). */
  bearerTokens?: readonly string[];
  /** Accepted API keys, sent in `apiKeyHeader`. */
  apiKeys?: readonly string[];
  /** The header that carries an API key (default `X-API-Key`). */
  apiKeyHeader?: string;
  /** Failed attempts allowed per address per minute before 429 (default 30). */
  maxFailuresPerMinute?: number;
  now?: () => number;
}

const PUBLIC_PATHS = new Set(['/.well-known/agent-card.json', '/.well-known/agent.json']);
const WINDOW_MS = 60_000;

/** True when any kind of credential is configured. */
export function authEnabled(options: AuthOptions): boolean {
  return (options.bearerTokens?.length ?? 0) > 0 || (options.apiKeys?.length ?? 0) > 0;
}

/** Wraps `handler` so that only requests with a valid credential reach it. */
export function withAuth(handler: A2AHandler, options: AuthOptions): A2AHandler {
  if (!authEnabled(options)) return handler;
  const bearer = (options.bearerTokens ?? []).map(digest);
  const keys = (options.apiKeys ?? []).map(digest);
  const header = (options.apiKeyHeader ?? 'X-API-Key').toLowerCase();
  const limit = options.maxFailuresPerMinute ?? 30;
  const now = options.now ?? Date.now;
  const failures = new Map<string, number[]>();
  const challenge = bearer.length > 0 ? 'Bearer realm="a2a-lite"' : `ApiKey realm="a2a-lite", header="${options.apiKeyHeader ?? 'X-API-Key'}"`;

  return async (request) => {
    if (PUBLIC_PATHS.has(request.path) && (request.method === 'GET' || request.method === 'HEAD')) return handler(request);
    // A valid credential always passes: a stranger's failures from the same address (or from
    // behind the same proxy) must not lock out a client that has the right token. Only failures
    // are counted, and past the limit they get 429 instead of 401.
    if (matches(request, bearer, keys, header)) return handler(request);
    const who = request.remoteAddress ?? 'unknown';
    const recent = (failures.get(who) ?? []).filter((at) => now() - at < WINDOW_MS);
    if (recent.length >= limit) {
      failures.set(who, recent);
      return json(429, { error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'too many failed authentication attempts; wait a minute' } }, { 'retry-after': '60' });
    }
    recent.push(now());
    failures.set(who, recent);
    if (failures.size > 10_000) forgetOldest(failures);
    return json(401, { error: { code: 401, status: 'UNAUTHENTICATED', message: 'missing or invalid credentials' } }, { 'www-authenticate': challenge });
  };
}

function matches(request: HttpRequest, bearer: readonly Buffer[], keys: readonly Buffer[], header: string): boolean {
  const authorization = request.headers.authorization ?? '';
  const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  if (token !== undefined && bearer.length > 0 && anyEqual(digest(token), bearer)) return true;
  const key = request.headers[header];
  return key !== undefined && keys.length > 0 && anyEqual(digest(key.trim()), keys);
}

/**
 * Compares against every accepted value, each in constant time: the time taken tells
 * nothing about how much of a guess was right, nor which value it was close to.
 */
function anyEqual(candidate: Buffer, accepted: readonly Buffer[]): boolean {
  let found = false;
  for (const value of accepted) found = timingSafeEqual(candidate, value) || found;
  return found;
}

/** Equal-length digests, so that timingSafeEqual can compare secrets of any length. */
function digest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

function forgetOldest(failures: Map<string, number[]>): void {
  const oldest = failures.keys().next().value;
  if (oldest !== undefined) failures.delete(oldest);
}
