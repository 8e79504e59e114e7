// One hub: the registry, the relay for connected agents, health, the tasks seen and the live
// feed, wired together; and the one way a request reaches an agent through the hub, whichever
// way that agent is registered. The HTTP routes are in hub-handler.ts and hub-api.ts. Given a
// cluster (cluster/hub-cluster.ts), it is one instance of a hub that many share.

import { randomUUID } from 'node:crypto';
import { statusError } from '../a2a/server/http.js';
import type { HttpRequest, HttpResponse } from '../net/http-types.js';
import type { RestRoute, RpcCall } from '../a2a/server/request-reading.js';
import type { HubTrail } from '../a2a/wire/hub-trail.js';
import { JWKS_PATH } from '../a2a/wire/card-signature.js';
import { isLiteError, LiteError } from '../errors.js';
import { cardBase, pointedAt, rpcPathsOf } from './agent-card-view.js';
import { EXTENDED_CARD_METHODS } from '../a2a/server/extended-card.js';
import { clusterVia, HubCluster, type HubClusterOptions } from './cluster/hub-cluster.js';
import { HealthBoard } from './health.js';
import { HubEvents, type TaskSeen } from './hub-events.js';
import type { HubStore } from './hub-store.js';
import { DEFAULT_MAX_HOPS, nextTrail, VIA_HEADER, viaFor } from './loop-guard.js';
import { Forwarded, forwardedHeaders, whenDone } from './forwarded.js';
import { forwardTo } from './proxy.js';
import { HubCall } from './observed-hub-call.js';
import { watchRelayLinks } from '../telemetry/metrics.js';
import { Registry } from './registry.js';
import { CardSignatures, type CardSignaturePolicy } from './card-signatures.js';
import { relayedAnswer } from './relayed-answer.js';
import { forwardedBody, readRelayed, refusal } from './relayed-request.js';
import { Relay, type LinkKind } from './relay.js';
import { DELIVERY_HEADER } from './relay-session.js';
import { backendOf, TaskOwners } from './task-owners.js';
import { TaskWatch } from './task-watch.js';

export interface HubOptions {
  store: HubStore;
  /** Where clients reach the hub, e.g. `http://hub.example:7400`; read per request. */
  baseUrl: () => string;
  /** Fetch cards from and forward to private addresses (loopback, LAN). */
  allowPrivate?: boolean;
  /** Relay heartbeat period (default 2 s): a connection silent this long is pinged. */
  heartbeatMs?: number;
  /** Heartbeats in a row with nothing heard before a connection is dropped as dead (default 2). */
  missedPings?: number;
  /** How long data sent down an agent's WebSocket may go unacknowledged before it is dropped (default 3 s). */
  writeTimeoutMs?: number;
  /** How long a request waits for a disconnected agent to come back (default 10 s). */
  graceMs?: number;
  /** How often URL agents' cards are fetched to check them (default 30 s; 0: never). */
  checkMs?: number;
  maxHops?: number;
  /**
   * Run as one instance of a cluster: the store must be one the instances share (PostgreSQL),
   * and `bus` one prefix of one bus. Call `start()` before serving.
   */
  cluster?: HubClusterOptions;
  /** This instance's id, unique while it runs (default: a random UUID). */
  instance?: string;
  /** Told of the hub's own failures in the background (the cluster's); default: a line on stderr. */
  onError?: (error: unknown, where: string) => void;
  /** Check agents' card signatures against trusted keys, and require them to verify or not (A2A §8.4). */
  cardSignatures?: CardSignaturePolicy;
}

/**
 * Told of each call the hub read before relaying it (its method, params, binding): a refusal
 * to answer in its place, or a function given the answer (returning the answer to send), for
 * the caller's limits and the audit trail.
 */
export type CallGate = (call: RpcCall | RestRoute) => HttpResponse | ((response: HttpResponse) => HttpResponse) | undefined;

export class Hub {
  /** The live feed: `hub.events.listen(…)` hears agents come and go, their health, and tasks. */
  readonly events: HubEvents;
  /** @internal */
  readonly health: HealthBoard;
  /** @internal */
  readonly registry: Registry;
  /** @internal */
  readonly relay: Relay;
  /** @internal */
  readonly tasks: TaskWatch;
  private readonly owners: TaskOwners;
  /** This hub while it runs (this instance, in a cluster). */
  readonly instance: string;
  /** How the requests it sends name it (the loop guard's A2A-Lite-Via): in a cluster, the same for every instance. */
  readonly via: string;
  /** @internal This instance's part in its cluster, when it runs in one. */
  readonly cluster: HubCluster | undefined;
  readonly allowPrivate: boolean;
  /** Rounds of checks of the agents at URLs this hub has run (in a cluster, only the instance leading them runs them). */
  checkRounds = 0;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(readonly options: HubOptions) {
    this.allowPrivate = options.allowPrivate ?? false;
    this.instance = options.instance ?? randomUUID();
    this.via = options.cluster === undefined ? this.instance : clusterVia(options.cluster.bus.prefix);
    this.events = new HubEvents(options.cluster === undefined ? '' : `${this.instance.slice(0, 8)}-`);
    this.health = new HealthBoard(this.events);
    this.registry = new Registry(options.store, this.health, this.events, this.allowPrivate, this.via, new CardSignatures(options.cardSignatures));
    this.owners = new TaskOwners(options.store);
    this.tasks = new TaskWatch(this.events);
    const health = this.health;
    const links = (): HubCluster['links'] | undefined => this.cluster?.links;
    this.relay = new Relay({
      observer: {
        up: (id) => {
          health.up(id);
          links()?.up(id, this.relay.linkOf(id) ?? 'websocket');
        },
        down: (id, reason) => {
          health.failed(id, reason);
          links()?.down(id);
        },
        latency: (id, ms) => health.up(id, ms),
      },
      ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
      ...(options.missedPings === undefined ? {} : { maxMissed: options.missedPings }),
      ...(options.writeTimeoutMs === undefined ? {} : { writeTimeoutMs: options.writeTimeoutMs }),
      ...(options.graceMs === undefined ? {} : { graceMs: options.graceMs }),
    });
    this.cluster = options.cluster === undefined ? undefined : this.joined(options.cluster);
    watchRelayLinks(this.relay);
    this.events.keepAlive(15_000);
    const checkMs = options.checkMs ?? 30_000;
    if (checkMs > 0) {
      this.timer = setInterval(() => void this.checkUrlAgents(), checkMs);
      this.timer.unref();
    }
  }

  /** Joins the cluster, when the hub runs in one: resolves once this instance is reachable by the others. */
  async start(): Promise<void> {
    await this.cluster?.start();
  }

  /** Checks the agents registered by URL: at once here, or in a cluster only on the instance leading the checks. */
  async checkUrlAgents(): Promise<void> {
    if (this.cluster !== undefined && !this.cluster.leads) return;
    this.checkRounds += 1;
    await this.registry.checkUrlAgents().catch(() => undefined);
  }

  /** True while agent `id` is connected to this hub (to any instance of its cluster). */
  isConnected(id: string): boolean {
    return this.relay.isConnected(id) || this.cluster?.links.cached(id) !== undefined;
  }

  /** How agent `id` is connected now, and to which instance of a cluster; undefined when it is not. */
  linkOf(id: string): { kind: LinkKind; instance?: string } | undefined {
    const kind = this.relay.linkOf(id);
    if (this.cluster === undefined) return kind === undefined ? undefined : { kind };
    if (kind !== undefined) return { kind, instance: this.instance };
    const link = this.cluster.links.cached(id);
    return link === undefined ? undefined : { kind: link.kind, instance: link.instance };
  }

  /** How many agents are connected (to any instance of the cluster). */
  connectedCount(): number {
    return this.cluster === undefined ? this.relay.connectedCount() : Math.max(this.relay.connectedCount(), this.cluster.links.count());
  }

  /** The tasks `principal` sent through the hub (any instance of its cluster), newest first. */
  async listTasks(principal: string, agentId?: string): Promise<TaskSeen[]> {
    return this.cluster === undefined ? this.tasks.list(principal, agentId) : this.cluster.tasks(principal, agentId);
  }

  /** Stops as `close` does, first leaving the cluster (the others are told, the lease dropped). */
  async stop(): Promise<void> {
    await this.cluster?.leave();
    this.close();
  }

  private joined(options: HubClusterOptions): HubCluster {
    const directory = options.directory ?? this.options.store.directory?.();
    if (directory === undefined) throw new LiteError('USAGE', 'a hub cluster needs a registry its instances share: a postgres:// store');
    const onError = this.options.onError ?? ((error: unknown, where: string) => process.stderr.write(`a2a-lite hub: ${where}: ${error instanceof Error ? error.message : String(error)}\n`));
    const member = { instance: this.instance, relay: this.relay, registry: this.registry, health: this.health, events: this.events, tasks: this.tasks, graceMs: this.options.graceMs ?? 10_000, onError };
    return new HubCluster(member, { ...options, directory });
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
  call(id: string, request: HttpRequest, path: string, principal = ''): Promise<HttpResponse> {
    return this.gatedCall(id, request, path, principal);
  }

  /** @internal `call`, with `gate` told of the call as read, before it goes on (the caller limits, the audit trail). */
  async gatedCall(id: string, request: HttpRequest, path: string, principal: string, gate?: CallGate): Promise<HttpResponse> {
    const agent = this.registry.cached(id) ?? (await this.registry.lookup(id));
    if (agent === undefined) return statusError(404, 'NOT_FOUND', `no agent "${id}" is registered at this hub`);
    let via: string;
    try {
      via = viaFor(this.via, request.headers[VIA_HEADER]);
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
    const gated = gate !== undefined && read.call !== undefined ? gate(read.call) : undefined;
    if (gated !== undefined && typeof gated !== 'function') return gated;
    const headers = forwardedHeaders(request.headers, via, backend === undefined ? undefined : principal);
    const observed = HubCall.start(id, request, read.call, agent.kind === 'url' ? agent.url : undefined);
    observed?.inject(headers);
    const forwarded = new Forwarded(request, read.path, forwardedBody(read, request.body, trail), headers);
    const send = use?.kind === 'send';
    if (send) this.health.busy(id, 1);
    const started = agent.kind === 'url' ? performance.now() : 0;
    let response: HttpResponse;
    try {
      if (agent.kind === 'url') response = await forwardTo(agent.url ?? '', forwarded, read.path, this.allowPrivate);
      else response = this.cluster === undefined ? await this.relay.forward(id, forwarded, read.path, principal) : await this.cluster.forward(id, forwarded, read.path, principal);
    } catch (error) {
      if (send) this.health.busy(id, -1);
      observed?.failed(error);
      // The gate hears of every call it let through, answered or not.
      gated?.(statusError(502, 'UNAVAILABLE', 'the agent could not be reached'));
      throw error;
    }
    // What the hub says of delivery is the hub's alone: an agent at a URL does not say it.
    if (agent.kind === 'url' && DELIVERY_HEADER in response.headers) response = { ...response, headers: withoutDelivery(response.headers) };
    if (response.status >= 502 && response.status <= 504) this.health.failed(id, `it did not answer a relayed request (HTTP ${response.status})`, 3);
    else if (agent.kind === 'url') this.health.up(id, performance.now() - started);
    response = relayedAnswer(response);
    // The public card, and the extended one (in a JSON-RPC result or a REST body), name the hub;
    // an agent's key set is passed on as it is.
    const card = read.call === undefined ? (read.path === JWKS_PATH ? undefined : 'body') : EXTENDED_CARD_METHODS.has(read.call.method) ? (read.call.binding === 'jsonrpc' ? 'result' : 'body') : undefined;
    if (card !== undefined && 'body' in response && response.status === 200) response = this.rewriteCard(id, agent.url, response, card);
    if (backend !== undefined && use !== undefined && use.kind !== 'none') {
      response = use.kind === 'list' ? await this.owners.filterList(backend, principal, response) : await this.owners.read(backend, principal, use.kind === 'send' && !use.message.taskId, response);
    }
    const tapped = this.tasks.tap(id, principal, observed === undefined ? response : observed.finish(response));
    const answer = send ? whenDone(tapped, () => this.health.busy(id, -1)) : tapped;
    return gated === undefined ? answer : gated(answer);
  }

  /** Stops timers, connections and watchers (and leaves the cluster, without waiting: `stop` waits). */
  close(): void {
    if (this.cluster !== undefined) void this.cluster.leave();
    if (this.timer !== undefined) clearInterval(this.timer);
    this.relay.close();
    this.events.close();
  }

  /** `response` with the card it holds (its body, or its JSON-RPC `result`) pointed at the hub. */
  private rewriteCard(id: string, url: string | undefined, response: Extract<HttpResponse, { body: string }>, where: 'body' | 'result'): HttpResponse {
    try {
      const body = JSON.parse(response.body) as Record<string, unknown>;
      const card = where === 'body' ? body : body.result;
      if (typeof card !== 'object' || card === null || Array.isArray(card)) return response;
      const pointed = pointedAt(card as Record<string, unknown>, url ?? cardBase(card as Record<string, unknown>), this.agentUrl(id));
      const headers = { ...response.headers };
      delete headers.etag;
      return { ...response, headers, body: JSON.stringify(where === 'body' ? pointed : { ...body, result: pointed }) };
    } catch {
      return response;
    }
  }
}

function withoutDelivery(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name !== DELIVERY_HEADER));
}
