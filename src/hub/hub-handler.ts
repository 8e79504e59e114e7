// The hub's HTTP routes, framework-free like the A2A handler (and served by the same node:http
// adapter). Public: the AI Catalog and each agent's card. Everything else needs a hub token when
// the hub has any: the agents' A2A endpoints, the registry API, the relay's connect routes.
//
//   /agents/<id>/…                  the agent's own A2A endpoint, relayed or forwarded
//   /hub/v1/connect?agent=<id>      an agent behind NAT dials in: a WebSocket both ways, or an
//                                   event stream of requests when it cannot upgrade
//   /hub/v1/connect/<session>       on an event stream, it posts its answers back as frames
//   /hub/v1/…, /ard/search          the registry API (hub-api.ts)
//   /console/                       the live console, when the hub serves it (console.ts)

import { JWKS_PATH } from '../a2a/wire/card-signature.js';
import { authenticator, keyRingOf, withAuth, type AuthOptions } from '../a2a/server/auth.js';
import { outcomeOf, tell, type AuditSink } from '../a2a/server/audit.js';
import { CAP_RETRY_SECONDS, type LimitOptions } from '../a2a/server/caller-limits.js';
import { HubGuard } from './hub-guard.js';
import { askedVersion, json, statusError, type A2AHandler } from '../a2a/server/http.js';
import { cardCompatProblem, type CardCompat } from '../a2a/server/card-shape.js';
import { Forwarded } from './forwarded.js';
import type { HttpRequest, HttpResponse, RequestHead } from '../net/http-types.js';
import { ERROR_TABLE, isLiteError, LiteError } from '../errors.js';
import { parseJson } from '../json-text.js';
import { consoleRoutes } from './console.js';
import { parseUpFrames } from './frames.js';
import { apiRoute, catalog } from './hub-api.js';
import type { Hub } from './hub.js';
import { checkRequest, METHODS } from './request-guard.js';
import { DEFAULT_MAX_BODY, DEFAULT_MAX_STREAM_BACKLOG, DEFAULT_REQUEST_TIMEOUT, type Upgrades } from '../net/node-http.js';
import { upgrades, type UpgradeLimits } from '../net/upgrade.js';
import { acceptLink, TAKEN, WebSocketLink, type LinkOptions, type UpgradeRequest } from '../net/websocket.js';

export interface HubHandlerOptions {
  /** Tokens of agents and clients; none: the hub is open, and everyone is `anonymous`. */
  auth?: AuthOptions;
  /** Told of failures that are the hub's own (never a request's body or credential). */
  onError?: (error: unknown, where: string) => void;
  /**
   * Serve the console's page at `/console/`. The page holds no data, so it is public; what it
   * shows, it reads from the API with the token its user gives it.
   */
  console?: boolean;
  /** Limits of agents' WebSocket links (default: messages up to 65 MiB, 256 MiB written ahead). */
  link?: LinkOptions;
  /** How long an agent that dials in has to give its card before it is dropped (default 10 s). */
  cardReadMs?: number;
  /**
   * Limits on each caller: requests per principal and per address (429 with Retry-After), open
   * streams and sends in flight per caller (docs/operations.md). None by default.
   */
  limits?: LimitOptions;
  /**
   * Told of each security event (a failed login, a limit hit) and each request that changes
   * state (an agent registered or removed; a send, cancel or push config relayed): never a
   * token or a message's text. `hub --audit FILE` writes them as JSON lines.
   */
  audit?: AuditSink;
  /**
   * The agents' cards for clients that say no A2A-Version: `'1.0'` (default) passes the request
   * on as it came (an a2a-lite agent then gives its strict 1.0 card); `'0.3'` asks the agent for
   * its 0.3 card (A2A-Version 0.3), for 0.3 clients that send no version (card-shape.ts).
   */
  cardCompat?: CardCompat;
}

const DEFAULT_LINK: LinkOptions = { maxMessageBytes: 65 * 1024 * 1024, maxBacklogBytes: 256 * 1024 * 1024 };

/** The principal of every caller of a hub without tokens. */
export const ANONYMOUS = 'anonymous';

const AGENT_PATH = /^\/agents\/([^/]+)(\/.*)?$/;
// An agent's key set (the `jku` of its signed card) is as public as its card.
const CARD_SUFFIXES = new Set(['/.well-known/agent-card.json', '/.well-known/agent.json', JWKS_PATH]);

export function createHubHandler(hub: Hub, options: HubHandlerOptions = {}): A2AHandler {
  const compatProblem = options.cardCompat === undefined ? undefined : cardCompatProblem(options.cardCompat);
  if (compatProblem !== undefined) throw new LiteError('USAGE', compatProblem);
  const report = options.onError ?? ((error: unknown, where: string) => process.stderr.write(`a2a-lite hub: ${where}: ${error instanceof Error ? error.message : String(error)}\n`));
  const link = options.link ?? DEFAULT_LINK;
  const keys = keyRingOf(options.auth ?? {});
  const guard = new HubGuard(options.limits, options.audit, keys !== undefined);
  // A withdrawn token's streams end, and so do the relay links of the agents that dialled in with it.
  keys?.onRevoke((principals) => {
    guard.limits.streams.close(principals);
    for (const principal of principals) hub.relay.dropPrincipal(principal, 'the token this agent dialled in with was withdrawn');
  });
  const dialIn = { link, cardReadMs: options.cardReadMs ?? 10_000, guard };
  const page = options.console === true ? consoleRoutes() : undefined;
  const door = options.limits === undefined && options.audit === undefined ? undefined : guard.admission();
  /** Public routes spend their caller's tokens too, once a request. */
  const admitted = new WeakSet<object>();
  const admitPublic = (head: RequestHead): HttpResponse | undefined => {
    if (door === undefined || admitted.has(head.headers)) return undefined;
    const refused = door.admit(head, undefined);
    if (refused === undefined) admitted.add(head.headers);
    return refused;
  };
  // The console's answer to any other method (405) is for those who may use the hub.
  const auth: AuthOptions = { ...options.auth, ...(keys === undefined ? {} : { keys }) };
  const guarded = withAuth(async (request, principal) => page?.(request) ?? route(hub, request, principal ?? ANONYMOUS, dialIn), auth, authenticator(auth, door), door);
  const handler: A2AHandler = async (request) => {
    try {
      if (!METHODS.has(request.method)) return statusError(405, 'UNIMPLEMENTED', `the hub takes ${[...METHODS].join(', ')}`, { allow: [...METHODS].join(', ') });
      checkRequest(request);
      // What is public is decided here and before the body alike (`isPublic`), so that a request
      // gets the same answer from a socket and from a call in process.
      const open = publicRoute(request, page !== undefined);
      const limited = open === undefined ? undefined : admitPublic(request);
      if (limited !== undefined) return limited;
      if (open === 'console') return (page as NonNullable<typeof page>)(request) as HttpResponse;
      if (open === 'catalog') return await catalog(hub);
      if (open !== undefined) return await hub.call(agentId(open.agent), cardRequest(request, options.cardCompat), open.card);
      return await guarded(request);
    } catch (error) {
      // A client's mistake, or an agent that could not be reached or answered wrongly (502),
      // is answered as such; only the hub's own failures are reported.
      if (isLiteError(error)) {
        const row = ERROR_TABLE[error.code];
        if (row.http !== 500) return statusError(row.http, row.status, error.message);
      }
      report(error, `${request.method} ${request.path}`);
      return statusError(500, 'INTERNAL', 'internal error');
    }
  };
  // Only what is public is read without a credential: a stranger cannot make the hub hold
  // bodies of up to its limit (64 MiB) just to answer 401.
  const refusal = guarded.beforeBody;
  if (refusal !== undefined) handler.beforeBody = (head) => (!METHODS.has(head.method) ? undefined : isPublic(head, page !== undefined) ? admitPublic(head) : refusal(head));
  return handler;
}

/** A public route: the console's files, the AI Catalog, or an agent's card (its id, still escaped, and the card's path). */
type PublicRoute = 'console' | 'catalog' | { agent: string; card: string };

/** The hub's route that needs no credential that `head` asks for, if it asks for one. */
function publicRoute(head: RequestHead, console: boolean): PublicRoute | undefined {
  if (head.method !== 'GET' && head.method !== 'HEAD') return undefined;
  if (console && (head.path === '/console' || head.path.startsWith('/console/'))) return 'console';
  if (head.path === '/.well-known/ai-catalog.json') return 'catalog';
  const agent = AGENT_PATH.exec(head.path);
  return agent !== null && CARD_SUFFIXES.has(agent[2] ?? '') ? { agent: agent[1] as string, card: agent[2] as string } : undefined;
}

/** The card request as the agent gets it: with cardCompat 0.3, one that says no version asks for 0.3. */
function cardRequest(request: HttpRequest, compat: CardCompat | undefined): HttpRequest {
  if (compat !== '0.3' || askedVersion(request) !== '') return request;
  return new Forwarded(request, request.path, request.body, { ...request.headers, 'a2a-version': '0.3' });
}

function isPublic(head: RequestHead, console: boolean): boolean {
  return publicRoute(head, console) !== undefined;
}

/** The limits `listen` applies by default, for a hub served with them. */
const LISTEN_LIMITS: UpgradeLimits = { maxBodyBytes: DEFAULT_MAX_BODY, maxStreamBacklogBytes: DEFAULT_MAX_STREAM_BACKLOG, requestTimeout: DEFAULT_REQUEST_TIMEOUT };

/**
 * The hub's upgrades for `listen`: agents' WebSocket links to `/hub/v1/connect` are taken over
 * by `handler` (a hub handler); other requests with an Upgrade header are served as plain ones,
 * with `limits`: the same as the `listen` options (default: `listen`'s own defaults).
 *
 * @example
 * const handler = createHubHandler(hub);
 * await listen(handler, { port: 7400, upgrades: hubUpgrades(handler) });
 */
export function hubUpgrades(handler: A2AHandler, limits: UpgradeLimits = LISTEN_LIMITS): Upgrades {
  return upgrades(handler, (req) => (req.url ?? '').startsWith('/hub/v1/connect?') && /\bwebsocket\b/i.test(req.headers.upgrade ?? ''), limits);
}

/** How agents dial in (their WebSocket's limits, how long they have to give their card), and the caller limits and audit trail. */
interface DialIn {
  link: LinkOptions;
  cardReadMs: number;
  guard: HubGuard;
}

async function route(hub: Hub, request: UpgradeRequest, principal: string, dialIn: DialIn): Promise<HttpResponse> {
  const { guard } = dialIn;
  const agent = AGENT_PATH.exec(request.path);
  if (agent !== null) {
    const id = agentId(agent[1] as string);
    return guard.track(principal, await hub.gatedCall(id, request, agent[2] ?? '/', principal, guard.gate(principal, request.remoteAddress, id)));
  }
  if (request.path === '/hub/v1/connect') {
    if (request.method !== 'GET') return statusError(405, 'UNIMPLEMENTED', 'use GET', { allow: 'GET' });
    return connect(hub, request, principal, dialIn);
  }
  const post = /^\/hub\/v1\/connect\/([0-9a-f-]{36})$/.exec(request.path);
  if (post !== null) {
    if (request.method !== 'POST') return statusError(405, 'UNIMPLEMENTED', 'use POST', { allow: 'POST' });
    return frames(hub, request, post[1] as string, principal);
  }
  if (request.path === '/hub/v1/limits' && request.method === 'GET') return json(200, { limits: limitsOf(guard), limited: guard.limits.limited() });
  if (request.path === '/hub/v1/events' && request.method === 'GET') {
    try {
      guard.limits.checkStreams(principal, request.remoteAddress);
    } catch (error) {
      return statusError(429, 'RESOURCE_EXHAUSTED', (error as Error).message, { 'retry-after': String(CAP_RETRY_SECONDS) });
    }
  }
  const changes = request.path === '/hub/v1/agents' && request.method === 'POST' ? 'register' : /^\/hub\/v1\/agents\/[^/]+$/.test(request.path) && request.method === 'DELETE' ? 'remove' : undefined;
  const api = changes === undefined ? await apiRoute(hub, request, principal) : await guard.audited(changes, principal, request.remoteAddress, changes === 'remove' ? safeId(request.path.slice('/hub/v1/agents/'.length)) : undefined, async () => (await apiRoute(hub, request, principal)) as HttpResponse);
  return api === undefined ? statusError(404, 'NOT_FOUND', `nothing at ${request.path} on this hub; see docs/hub.md`) : guard.track(principal, api);
}

/** The limits in force, as the console shows them. */
function limitsOf(guard: HubGuard): Record<string, unknown> {
  const { rate, addressRate, maxStreams, maxTasks } = guard.limits.options;
  return { ...(rate === undefined ? {} : { rate }), ...(addressRate === undefined ? {} : { addressRate }), ...(maxStreams === undefined ? {} : { maxStreams }), ...(maxTasks === undefined ? {} : { maxTasks }) };
}

/** An agent id from a path for the audit trail; what is no valid escape is left as it came. */
function safeId(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The agent id in a path segment; a malformed escape is refused as no id could hold it. */
function agentId(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new LiteError('INVALID_PARAMS', 'the agent id in the path is not valid percent-encoding');
  }
}

/**
 * An agent dials in: a WebSocket when it asked for one, an event stream otherwise. An id owned
 * by another principal is refused. The id becomes the caller's only once a valid card has been
 * read through the new connection: until then nothing is routed to it and nothing is claimed,
 * so a connection that never answers keeps the id from nobody. The owner's own reconnect is
 * routed at once, as the same agent coming back.
 */
async function connect(hub: Hub, request: UpgradeRequest, principal: string, dialIn: DialIn): Promise<HttpResponse> {
  const id = request.query.get('agent') ?? '';
  const shared = request.query.get('shared') ?? 'false';
  if (shared !== 'true' && shared !== 'false') throw new LiteError('INVALID_PARAMS', '"shared" is true or false');
  const maxBody = maxBodyOf(request.query.get('maxBody'));
  const owner = await hub.registry.ownerOf(id);
  if (owner !== undefined && owner !== principal) throw new LiteError('FORBIDDEN', `the agent id "${id}" is registered by another principal`);
  const routed = owner === principal;
  let answer: HttpResponse;
  let session: string;
  if (request.upgrade === undefined) {
    const opened = hub.relay.open(id, hub.agentUrl(id), principal, routed, maxBody);
    session = opened.session;
    answer = opened;
  } else {
    const link = acceptLink(request, dialIn.link);
    if (!(link instanceof WebSocketLink)) return link;
    // `watch=ws`: the agent watches the link with WebSocket pings too (one built before listens for heartbeat frames).
    session = hub.relay.attach(id, hub.agentUrl(id), principal, link, routed, maxBody, request.query.get('watch') === 'ws');
    answer = TAKEN;
  }
  void readCard(hub, { id, principal, session, routed, shared: shared === 'true', address: request.remoteAddress }, dialIn);
  return answer;
}

/** The largest body a dialling agent takes (`maxBody`, its `serve --max-body`); none when it does not say. */
function maxBodyOf(given: string | null): number | undefined {
  if (given === null) return undefined;
  if (!/^[1-9][0-9]{0,15}$/.test(given) || !Number.isSafeInteger(Number(given))) throw new LiteError('INVALID_PARAMS', '"maxBody" is a whole number of bytes');
  return Number(given);
}

/**
 * Reads the card of the agent on `session` and registers it, then routes the agent's requests
 * there. A new agent whose card does not come, or is refused (another principal registered
 * the id meanwhile, or it is no card), is dropped, telling it why; a known one is marked down.
 */
async function readCard(hub: Hub, dialled: { id: string; principal: string; session: string; routed: boolean; shared: boolean; address: string | undefined }, dialIn: DialIn): Promise<void> {
  const { id, principal, session, routed, shared, address } = dialled;
  const limitMs = dialIn.cardReadMs;
  const told = (outcome: string): void => tell(dialIn.guard.audit, { action: 'register', principal, ...(address === undefined ? {} : { address }), agent: id, outcome, detail: 'dialled in' });
  const failed = (why: string, outcome = 'PEER_ERROR'): void => {
    told(outcome);
    if (routed) hub.health.failed(id, why);
    else hub.relay.drop(session, why);
  };
  const request: HttpRequest = { method: 'GET', path: '/.well-known/agent-card.json', query: new URLSearchParams(), headers: {}, body: '' };
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), limitMs)));
  const response = await Promise.race([hub.relay.forwardOn(session, request, request.path, '').catch(() => undefined), late]);
  clearTimeout(timer);
  if (response === undefined || !('body' in response) || response.status !== 200) {
    failed(response === undefined ? `its card did not come through its connection within ${limitMs / 1000} s` : 'its card could not be read through its connection');
    return;
  }
  try {
    await hub.registry.registerConnected(id, principal, parseJson(response.body, 'its card'), shared);
  } catch (error) {
    failed(isLiteError(error) ? error.message : 'its card could not be stored', outcomeOf(error));
    return;
  }
  told('ok');
  hub.relay.route(session);
}

function frames(hub: Hub, request: HttpRequest, session: string, principal: string): HttpResponse {
  // Someone else's session is as good as none: its id tells a stranger nothing.
  if (hub.relay.sessionOf(session)?.principal !== principal) return statusError(404, 'NOT_FOUND', 'no such relay session; connect again');
  const parsed = parseJson(request.body, 'the relay post');
  hub.relay.accept(session, parseUpFrames(parsed));
  return json(200, { accepted: true });
}
