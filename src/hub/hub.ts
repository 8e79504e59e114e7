// One hub: the registry, the relay for connected agents, health, the tasks seen and the live
// feed, wired together; and the one way a request reaches an agent through the hub, whichever
// way that agent is registered. The HTTP routes are in hub-handler.ts and hub-api.ts.

import { createHash, randomUUID } from 'node:crypto';
import { statusError } from '../a2a/server/http.js';
import { whenGone, type HttpRequest, type HttpResponse } from '../net/http-types.js';
import type { HubTrail } from '../a2a/wire/hub-trail.js';
import { isLiteError, LiteError } from '../errors.js';
import { cardBase, pointedAt, rpcPathsOf } from './agent-card-view.js';
import { HealthBoard } from './health.js';
import { HubEvents } from './hub-events.js';
import type { HubStore } from './hub-store.js';
import { DEFAULT_MAX_HOPS, nextTrail, VIA_HEADER, viaFor } from './loop-guard.js';
import { forwardTo } from './proxy.js';
import { Registry } from './registry.js';
import { relayedAnswer } from './relayed-answer.js';
import { forwardedBody, readRelayed, refusal } from './relayed-request.js';
import { Relay } from './relay.js';
import { passedHeaders } from './passed-headers.js';
import { backendOf, TaskOwners } from './task-owners.js';
import { TaskWatch } from './task-watch.js';
import { watchedEvents } from './watched-events.js';

export interface HubOptions {
  store: HubStore;
  /** Where clients reach the hub, e.g. `http://hub.example:7400`; read per request. */
  baseUrl: () => string;
  /** Fetch cards from and forward to private addresses (loopback, LAN). */
  allowPrivate?: boolean;
  /** Relay heartbeat period (default 10 s); a connection missing three in a row is dropped. */
  heartbeatMs?: number;
  /** How long a request waits for a disconnected agent to come back (default 10 s). */
  graceMs?: number;
  /** How often URL agents' cards are fetched to check them (default 30 s; 0: never). */
  checkMs?: number;
  maxHops?: number;
}

export class Hub {
  /** The live feed: `hub.events.listen(…)` hears agents come and go, their health, and tasks. */
  readonly events = new HubEvents();
  /** @internal */
  readonly health: HealthBoard;
  /** @internal */
  readonly registry: Registry;
  /** @internal */
  readonly relay: Relay;
  /** @internal */
  readonly tasks: TaskWatch;
  private readonly owners: TaskOwners;
  /** This hub while it runs, as the requests it sends name it (the loop guard's A2A-Lite-Via). */
  readonly instance = randomUUID();
  readonly allowPrivate: boolean;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(readonly options: HubOptions) {
    this.allowPrivate = options.allowPrivate ?? false;
    this.health = new HealthBoard(this.events);
    this.registry = new Registry(options.store, this.health, this.events, this.allowPrivate, this.instance);
    this.owners = new TaskOwners(options.store);
    this.tasks = new TaskWatch(this.events);
    const health = this.health;
    this.relay = new Relay({
      observer: { up: (id) => health.up(id), down: (id, reason) => health.failed(id, reason), latency: (id, ms) => health.up(id, ms) },
      ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
      ...(options.graceMs === undefined ? {} : { graceMs: options.graceMs }),
    });
    this.events.keepAlive(15_000);
    const checkMs = options.checkMs ?? 30_000;
    if (checkMs > 0) {
      this.timer = setInterval(() => void this.registry.checkUrlAgents().catch(() => undefined), checkMs);
      this.timer.unref();
    }
  }

  /** Where the hub publishes agent `id`. */
  agentUrl(id: string): string {
    return `${this.options.baseUrl()}/agents/${id}`;
  }

  /** The agent's card as a client of the hub should see it: its interfaces at the hub. */
  async publishedCard(id: string): Promise<Record<string, unknown>> {
    const agent = await this.registry.get(id);
    return pointedAt(agent.card, agent.url ?? cardBase(agent.card), this.agentUrl(id));
  }

  /**
   * Sends `request` (its path already relative to the agent) to agent `id`: down its connection
   * or on to its URL. The request is read once, as the agent's server reads it; the hub decides
   * on that reading (the loop guard, whose task it is) and forwards what it read. A connected
   * agent is told `principal` (who the hub authenticated; '' for the public card), so that each
   * caller reaches only the tasks it made; for an agent reached by URL the hub keeps them apart.
   */
  async call(id: string, request: HttpRequest, path: string, principal = ''): Promise<HttpResponse> {
    const agent = this.registry.cached(id) ?? (await this.registry.lookup(id));
    if (agent === undefined) return statusError(404, 'NOT_FOUND', `no agent "${id}" is registered at this hub`);
    let via: string;
    try {
      via = viaFor(this.instance, request.headers[VIA_HEADER]);
    } catch (error) {
      return statusError(508, 'FAILED_PRECONDITION', (error as Error).message);
    }
    let read = readRelayed(request, path, agent.kind === 'url' ? rpcPathsOf(agent.card, agent.url ?? '') : undefined);
    if (read instanceof Promise) read = await read;
    if ('answer' in read) return read.answer;
    const use = read.use;
    // An agent at a URL sees every caller of the hub as one: the hub keeps their tasks apart.
    const backend = agent.kind === 'url' && principal !== '' ? backendOf(agent.url ?? '') : undefined;
    let trail: HubTrail | undefined;
    try {
      const named = use?.kind === 'task' ? use.taskId : use?.kind === 'send' ? use.message.taskId : undefined;
      if (backend !== undefined && named) await this.owners.check(backend, named, principal);
      if (use?.kind === 'send') trail = nextTrail(use.message.metadata, id, this.options.maxHops ?? DEFAULT_MAX_HOPS);
    } catch (error) {
      return refusal(read.call as NonNullable<typeof read.call>, isLiteError(error) ? error : new LiteError('INTERNAL', 'internal error'));
    }
    const headers = forwardedHeaders(request.headers, via, backend === undefined ? undefined : principal);
    const forwarded = new Forwarded(request, read.path, forwardedBody(read, request.body, trail), headers);
    const send = use?.kind === 'send';
    if (send) this.health.busy(id, 1);
    const started = agent.kind === 'url' ? performance.now() : 0;
    let response: HttpResponse;
    try {
      response = agent.kind === 'connected' ? await this.relay.forward(id, forwarded, read.path, principal) : await forwardTo(agent.url ?? '', forwarded, read.path, this.allowPrivate);
    } catch (error) {
      if (send) this.health.busy(id, -1);
      throw error;
    }
    if (response.status >= 502 && response.status <= 504) this.health.failed(id, `it did not answer a relayed request (HTTP ${response.status})`, 3);
    else if (agent.kind === 'url') this.health.up(id, performance.now() - started);
    response = relayedAnswer(response);
    if (read.call === undefined && 'body' in response && response.status === 200) response = this.rewriteCard(id, agent.url, response);
    if (backend !== undefined && use !== undefined && use.kind !== 'none') {
      response = use.kind === 'list' ? await this.owners.filterList(backend, principal, response) : await this.owners.read(backend, principal, use.kind === 'send' && !use.message.taskId, response);
    }
    const tapped = this.tasks.tap(id, principal, response);
    if (!send) return tapped;
    return whenDone(tapped, () => this.health.busy(id, -1));
  }

  /** Stops timers, connections and watchers. */
  close(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.relay.close();
    this.events.close();
  }

  private rewriteCard(id: string, url: string | undefined, response: Extract<HttpResponse, { body: string }>): HttpResponse {
    try {
      const card = JSON.parse(response.body) as Record<string, unknown>;
      const headers = { ...response.headers };
      delete headers.etag;
      return { ...response, headers, body: JSON.stringify(pointedAt(card, url ?? cardBase(card), this.agentUrl(id))) };
    } catch {
      return response;
    }
  }
}

/**
 * `request` as the hub forwards it: the path and body it read, the headers it passes on. Not a
 * spread: the node adapter's query and signal are getters, made on first use, which a spread
 * would make at once or drop.
 */
class Forwarded implements HttpRequest {
  constructor(
    private readonly request: HttpRequest,
    readonly path: string,
    readonly body: string,
    readonly headers: HttpRequest['headers'],
  ) {}

  get method(): string {
    return this.request.method;
  }

  get query(): URLSearchParams {
    return this.request.query;
  }

  get search(): string | undefined {
    return this.request.search;
  }

  get signal(): AbortSignal | undefined {
    return this.request.signal;
  }

  onGone(listener: () => void): () => void {
    return whenGone(this.request, listener);
  }
}

/**
 * The headers passed on: the hubs the request went through, and for an agent at a URL (which
 * sees every caller as the hub) an Idempotency-Key of the caller's own, so that two callers who
 * chose the same key do not get one task.
 */
function forwardedHeaders(headers: HttpRequest['headers'], via: string, principal: string | undefined): Record<string, string> {
  const key = headers['idempotency-key'];
  if (principal === undefined || key === undefined) return passedHeaders(headers, [[VIA_HEADER, via]]);
  return passedHeaders(headers, [
    [VIA_HEADER, via],
    ['idempotency-key', createHash('sha256').update(`${principal}\n${key}`).digest('base64url')],
  ]);
}

/** `response`, running `done` once when its body has been answered or its stream has ended. */
function whenDone(response: HttpResponse, done: () => void): HttpResponse {
  if ('body' in response) {
    done();
    return response;
  }
  return { ...response, events: watchedEvents(response.events, { end: done }) };
}
