// One hub: the registry, the relay for connected agents, health, the tasks seen and the live
// feed, wired together; and the one way a request reaches an agent through the hub, whichever
// way that agent is registered. The HTTP routes are in hub-handler.ts and hub-api.ts.

import { json, statusError, whenGone, type HttpRequest, type HttpResponse } from '../a2a/server/http.js';
import { ERROR_TABLE, isLiteError, LiteError } from '../errors.js';
import { cardBase, pointedAt } from './agent-card-view.js';
import { HealthBoard } from './health.js';
import { HubEvents } from './hub-events.js';
import type { HubStore } from './hub-store.js';
import { DEFAULT_MAX_HOPS, guardLoop, isSend } from './loop-guard.js';
import { forwardTo } from './proxy.js';
import { Registry } from './registry.js';
import { Relay } from './relay.js';
import { taskUse, TaskOwners } from './task-owners.js';
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

const CARD_PATHS = new Set(['/.well-known/agent-card.json', '/.well-known/agent.json']);

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
  private readonly owners = new TaskOwners();
  readonly allowPrivate: boolean;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(readonly options: HubOptions) {
    this.allowPrivate = options.allowPrivate ?? false;
    this.health = new HealthBoard(this.events);
    this.registry = new Registry(options.store, this.health, this.events, this.allowPrivate);
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
   * or on to its URL. Message sends pass the loop guard first; answers are read for tasks. A
   * connected agent is told `principal` (who the hub authenticated; '' for the public card), so
   * that each caller reaches only the tasks it made; an agent reached by URL is not.
   */
  async call(id: string, request: HttpRequest, path: string, principal = ''): Promise<HttpResponse> {
    const agent = await this.registry.lookup(id);
    if (agent === undefined) return statusError(404, 'NOT_FOUND', `no agent "${id}" is registered at this hub`);
    let body = request.body;
    const send = isSend(request.method, path, body);
    // An agent at a URL sees every caller of the hub as one: the hub keeps their tasks apart.
    const use = agent.kind === 'url' && principal !== '' ? taskUse(request.method, path, body) : undefined;
    if (use?.kind === 'task') {
      try {
        this.owners.check(id, use.taskId, principal);
      } catch (error) {
        return refusal(path, body, error);
      }
    }
    if (send) {
      try {
        body = guardLoop(path, body, id, this.options.maxHops ?? DEFAULT_MAX_HOPS);
      } catch (error) {
        return refusal(path, body, error);
      }
    }
    const forwarded = new Forwarded(request, body);
    if (send) this.health.busy(id, 1);
    const started = performance.now();
    let response: HttpResponse;
    try {
      response = agent.kind === 'connected' ? await this.relay.forward(id, forwarded, path, principal) : await forwardTo(agent.url ?? '', forwarded, path, this.allowPrivate);
    } catch (error) {
      if (send) this.health.busy(id, -1);
      throw error;
    }
    if (response.status >= 502 && response.status <= 504) this.health.failed(id, `it did not answer a relayed request (HTTP ${response.status})`, 3);
    else if (agent.kind === 'url') this.health.up(id, performance.now() - started);
    if (CARD_PATHS.has(path) && 'body' in response && response.status === 200) response = this.rewriteCard(id, agent.url, response);
    if (use?.kind === 'list') response = this.owners.filterList(id, principal, response);
    else if (use !== undefined) response = this.owners.learn(id, principal, response);
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
 * `request` with the body the loop guard gave it. Not a spread: the node adapter's query and
 * signal are getters, made on first use, which a spread would make at once or drop.
 */
class Forwarded implements HttpRequest {
  constructor(
    private readonly request: HttpRequest,
    readonly body: string,
  ) {}

  get method(): string {
    return this.request.method;
  }

  get path(): string {
    return this.request.path;
  }

  get query(): URLSearchParams {
    return this.request.query;
  }

  get headers(): HttpRequest['headers'] {
    return this.request.headers;
  }

  get signal(): AbortSignal | undefined {
    return this.request.signal;
  }

  onGone(listener: () => void): () => void {
    return whenGone(this.request, listener);
  }
}

/** The loop guard's refusal, in the binding the request used. */
function refusal(path: string, body: string, error: unknown): HttpResponse {
  const lite = isLiteError(error) ? error : new LiteError('INTERNAL', 'internal error');
  const row = ERROR_TABLE[lite.code];
  if (path === '/jsonrpc' || path === '/') {
    const id = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)/.exec(body)?.[1];
    return json(200, { jsonrpc: '2.0', id: id === undefined ? null : (JSON.parse(id) as string | number), error: { code: row.rpc, message: lite.message } });
  }
  return statusError(row.http, row.status, lite.message);
}

/** `response`, running `done` once when its body has been answered or its stream has ended. */
function whenDone(response: HttpResponse, done: () => void): HttpResponse {
  if ('body' in response) {
    done();
    return response;
  }
  return { ...response, events: watchedEvents(response.events, { end: done }) };
}
