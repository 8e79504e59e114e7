// Finding an A2A agent's card from its URL, and keeping it in the known-agents cache as an
// A2A-Lite card whose channel is `a2a:<url>`, with what a client needs to call it beside it.

import { LiteError, isLiteError } from '../errors.js';
import type { AgentDirectory, KnownAgent } from '../home/known-agents.js';
import type { RemoteAccess } from '../model/remote-access.js';
import type { AddressGuardOptions } from '../net/address-guard.js';
import { readBody } from '../net/body.js';
import { outboundFetch, type Fetch } from '../net/outbound-fetch.js';
import { idFromName, readRemoteCard, toLiteCard, type RemoteCard } from './remote-card.js';

/** The most a card may hold. */
const MAX_CARD_BYTES = 1024 * 1024;
const CARD_PATHS = ['/.well-known/agent-card.json', '/.well-known/agent.json'];

export interface FetchCardOptions {
  /**
   * Check the address of the card's URL and of every redirect before connecting (and connect to
   * the address checked); a refusal is the guard's error (FORBIDDEN unless it words its own).
   */
  guard?: AddressGuardOptions;
  /** Sends the requests instead of the outbound request (tests); `guard` is then not applied. */
  fetch?: typeof fetch;
  timeoutMs?: number;
}

export interface Discovered {
  card: RemoteCard;
  /** The card as fetched, for what reads it whole (its signatures are checked over every field). */
  json: Record<string, unknown>;
  /** The URL the user named, as the agent's address: `a2a:<baseUrl>` is its channel. */
  baseUrl: string;
}

/**
 * Fetches the agent card of the agent at `url`: the URL itself when it names a `.json` file,
 * else `/.well-known/agent-card.json` below it (then at its origin), falling back to the older
 * `/.well-known/agent.json`. Redirects are followed (a few), each checked by `options.guard`.
 * Throws PEER_UNREACHABLE, INVALID_CARD or PEER_ERROR, or the guard's refusal.
 */
export async function fetchAgentCard(url: string, options: FetchCardOptions = {}): Promise<Discovered> {
  const base = parseBase(url);
  const candidates = candidateUrls(base);
  const misses: string[] = [];
  const fetcher = options.fetch ?? outboundFetch(options.guard);
  for (const candidate of candidates) {
    const text = await get(candidate, fetcher, options.timeoutMs);
    if (typeof text === 'number') {
      misses.push(`${candidate} (HTTP ${text})`);
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new LiteError('INVALID_CARD', `${candidate} does not hold JSON, so it is no agent card`, { url: candidate });
    }
    return { card: readRemoteCard(json, candidate), json: json as Record<string, unknown>, baseUrl: base.pathname.endsWith('.json') ? base.origin : trimSlash(base.href) };
  }
  throw new LiteError('PEER_ERROR', `no agent card at ${misses.join(', ')}`, { url });
}

/**
 * Caches `found` in `agents` and returns the entry. The id is the one the agent gives itself
 * (an a2a-lite agent does), else one made from its name; an agent already cached from the same
 * address keeps its id, and another agent's id is never taken over.
 */
export function cacheDiscovered(agents: AgentDirectory, found: Discovered, options: { tokenEnv?: string; now?: Date } = {}): { agent: KnownAgent; replaced: boolean } {
  const source = `a2a:${found.baseUrl}`;
  const sameAddress = agents.list().find((a) => a.cache.source === source);
  let id = sameAddress?.card.agent.id;
  if (id === undefined) {
    const own = typeof found.card.lite?.id === 'string' && /^[\p{L}\p{N}][\p{L}\p{N}_.:-]{0,127}$/u.test(found.card.lite.id) ? found.card.lite.id : undefined;
    id = own ?? idFromName(found.card.name);
    const taken = agents.find(id);
    if (taken !== undefined && taken.cache.source !== source) id = `${id}-${idFromName(new URL(found.baseUrl).host)}`;
  }
  const card = toLiteCard(found.card, { id, baseUrl: found.baseUrl });
  const access: RemoteAccess = { cardUrl: found.card.cardUrl, interfaces: found.card.interfaces, streaming: found.card.streaming, security: found.card.security };
  const extra: { a2a: RemoteAccess; tokenEnv?: string } = { a2a: access };
  if (options.tokenEnv !== undefined) extra.tokenEnv = options.tokenEnv;
  return agents.add(card, source, options.now, extra);
}

function parseBase(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new LiteError('USAGE', `${JSON.stringify(url)} is not a URL; give the agent's address, e.g. http://127.0.0.1:7331`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new LiteError('USAGE', `an agent's URL starts with http:// or https://, not ${parsed.protocol}`);
  if (parsed.username || parsed.password) throw new LiteError('USAGE', 'put no user name or password in the URL; pass --token-env NAME instead');
  parsed.hash = '';
  return parsed;
}

function candidateUrls(base: URL): string[] {
  if (base.pathname.endsWith('.json')) return [base.href];
  const below = trimSlash(`${base.origin}${base.pathname}`);
  const roots = below === base.origin ? [base.origin] : [below, base.origin];
  return roots.flatMap((root) => CARD_PATHS.map((path) => `${root}${path}`));
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** The body of a GET, or the status when it is not 200. */
async function get(url: string, fetcher: Fetch, timeoutMs = 15_000): Promise<string | number> {
  let response: Response;
  try {
    response = await fetcher(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
  } catch (error) {
    if (isLiteError(error)) throw error;
    const cause = (error as { cause?: { code?: string } }).cause;
    throw new LiteError('PEER_UNREACHABLE', `could not reach ${url}: ${cause?.code ?? (error as Error).message}`, { url }, { cause: error });
  }
  // A hub answering for its agent (docs/hub.md: unavailable, and whether it had the request): no other path will do better.
  const delivery = response.headers.get('a2a-lite-delivery');
  if (response.status !== 200 && delivery !== null) {
    let said = `HTTP ${response.status}`;
    try {
      const message = (JSON.parse((await readBody(response.body, 64 * 1024)) ?? '') as { error?: { message?: unknown } }).error?.message;
      if (typeof message === 'string') said = message.slice(0, 500);
    } catch {
      // The status says enough.
    }
    throw new LiteError('PEER_ERROR', `the hub in front of ${url} answered for its agent: ${said}`, { url, status: response.status, delivery });
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    return response.status;
  }
  let text: string | undefined;
  try {
    text = await readBody(response.body, MAX_CARD_BYTES);
  } catch (error) {
    throw new LiteError('PEER_UNREACHABLE', `the card at ${url} broke off`, { url }, { cause: error });
  }
  if (text === undefined) throw new LiteError('INVALID_CARD', `the card at ${url} is over ${MAX_CARD_BYTES} bytes`, { url });
  return text;
}
