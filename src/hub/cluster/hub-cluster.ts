// One hub instance's part in a cluster (`hub --store postgres://… --cluster nats://…`): any number
// of instances on one database and one bus prefix behave as one hub. The registry and the task
// owners are in the shared store; which instance holds each agent's link is in the directory
// (links.ts); a request for an agent linked elsewhere crosses the bus (cross-request.ts,
// cross-answer.ts); health and the live feed are shared (health-share.ts, feed-share.ts).
// Each instance renews a lease every `renewMs`; the one holding the lease of the periodic checks
// fetches the cards of agents at URLs, so that they are checked once, not once per instance.

import { createHash } from 'node:crypto';
import type { Bus } from '../../cluster/bus.js';
import { statusError } from '../../a2a/server/http.js';
import { whenGone, type HttpRequest, type HttpResponse } from '../../net/http-types.js';
import type { HealthBoard } from '../health.js';
import type { HubEvents, TaskSeen } from '../hub-events.js';
import type { Registry } from '../registry.js';
import type { Relay } from '../relay.js';
import type { TaskWatch } from '../task-watch.js';
import { CrossAnswers } from './cross-answer.js';
import { CrossRequests } from './cross-request.js';
import type { HubDirectory } from './directory.js';
import { FeedShare } from './feed-share.js';
import { HealthShare } from './health-share.js';
import { ClusterLinks } from './links.js';
import { atInstance, PRESENCE, record, type PresenceMessage } from './messages.js';

export interface HubClusterOptions {
  /** The bus between the instances; all of one cluster use one prefix. */
  bus: Bus;
  /** Where the instances find each other (default: the hub store's, which must have one). */
  directory?: HubDirectory;
  /** How often this instance renews its lease and says it is alive (default 1 s). */
  renewMs?: number;
  /** How long a lease holds unrenewed (default 5 s): an instance silent that long is taken for dead. */
  leaseMs?: number;
  /** How often every link is read again and every health view sent again, to mend lost messages (default 5 s). */
  refreshMs?: number;
}

/** What of its hub an instance of a cluster works with. */
export interface ClusterMember {
  instance: string;
  relay: Relay;
  registry: Registry;
  health: HealthBoard;
  events: HubEvents;
  tasks: TaskWatch;
  /** How long a request waits for its agent to (re)connect anywhere. */
  graceMs: number;
  onError: (error: unknown, where: string) => void;
}

/** The job whose lease says which instance checks the agents at URLs. */
const CHECKS = 'checks';
/** How often a request waiting for its agent looks in the directory again. */
const POLL_MS = 500;
/** Instances whose lease ran out this long ago are forgotten, with their links. */
const SWEEP_MS = 60_000;
/** How long another instance has to give the tasks it saw for a list. */
const TASKS_MS = 1_000;
const KEPT_TASKS = 500;

/** The id every instance of the cluster on `prefix` names itself by in `A2A-Lite-Via`: a request back to any of them is a loop. */
export function clusterVia(prefix: string): string {
  return `cluster-${createHash('sha256').update(prefix).digest('hex').slice(0, 16)}`;
}

export class HubCluster {
  readonly links: ClusterLinks;
  /** The instances alive at the last renewal, this one included. */
  alive: string[] = [];
  /** True while this instance holds the lease of the periodic checks. */
  leads = false;
  private readonly directory: HubDirectory;
  private readonly cross: CrossRequests;
  private readonly answers: CrossAnswers;
  private readonly shareHealth: HealthShare;
  private readonly feed: FeedShare;
  private readonly renewMs: number;
  private readonly leaseMs: number;
  private readonly refreshEvery: number;
  private timer: NodeJS.Timeout | undefined;
  private ticks = 0;
  private ticking = false;
  /** True while renewals fail (the database is away). */
  private failing = false;
  private stopped = false;
  private readonly ends: (() => void)[] = [];

  constructor(
    private readonly member: ClusterMember,
    readonly options: HubClusterOptions & { directory: HubDirectory },
  ) {
    const { bus } = options;
    const self = member.instance;
    this.directory = options.directory;
    this.renewMs = options.renewMs ?? 1_000;
    this.leaseMs = options.leaseMs ?? 5_000;
    this.refreshEvery = Math.max(1, Math.round((options.refreshMs ?? 5_000) / this.renewMs));
    const onError = member.onError;
    this.links = new ClusterLinks({ bus, directory: this.directory, self, onError, takenOver: (agentId) => member.relay.release(agentId) });
    this.cross = new CrossRequests({ bus, self, onGone: (instance) => this.links.lost(instance) });
    this.answers = new CrossAnswers({ bus, self, relay: member.relay, onError, tasks: (principal, agentId) => member.tasks.list(principal, agentId) });
    this.shareHealth = new HealthShare({ bus, self, health: member.health });
    this.feed = new FeedShare({ bus, self, events: member.events, registry: member.registry, health: member.health, watchedMs: 3 * this.renewMs });
  }

  /** This instance's id. */
  get instance(): string {
    return this.member.instance;
  }

  /** Joins: the first lease, then every subscription, then says hello (the others send their views). */
  async start(): Promise<void> {
    const { bus } = this.options;
    this.alive = (await this.directory.renew(this.instance, this.leaseMs)).alive;
    await this.links.start();
    await this.cross.start();
    await this.answers.start();
    await this.shareHealth.start();
    await this.feed.start();
    this.ends.push(await bus.subscribe(PRESENCE, (message) => this.presence(message)));
    this.member.events.onWatch = () => this.say({ watched: true });
    this.ends.push(bus.onReconnect(() => this.mend()));
    this.say({ hello: true });
    await this.links.refresh(this.alive);
    this.leads = await this.directory.lead(CHECKS, this.instance, this.leaseMs);
    this.timer = setInterval(() => void this.tick(), this.renewMs);
    this.timer.unref();
  }

  /**
   * Sends `request` to connected agent `agentId`: down this instance's link to it, or across to
   * the instance holding it. One that is linked nowhere is waited for (the grace period) while
   * it dials in anywhere; then 503 with Retry-After.
   */
  async forward(agentId: string, request: HttpRequest, path: string, principal: string): Promise<HttpResponse> {
    const { relay, graceMs } = this.member;
    let deadline: number | undefined;
    let gone = false;
    let stopListening: (() => void) | undefined;
    try {
      for (;;) {
        if (relay.isConnected(agentId)) return await relay.forward(agentId, request, path, principal);
        const link = await this.links.where(agentId);
        if (link !== undefined && link.instance !== this.instance) {
          const answer = await this.cross.send(link.instance, agentId, request, path, principal);
          if (!('miss' in answer)) return answer;
          if (answer.miss === 'gone') this.links.lost(link.instance);
          else this.links.stale(link);
          continue;
        }
        deadline ??= performance.now() + graceMs;
        stopListening ??= whenGone(request, () => (gone = true));
        const left = deadline - performance.now();
        if (left <= 0 || gone) break;
        await this.links.arrival(agentId, Math.min(left, POLL_MS));
      }
    } finally {
      stopListening?.();
    }
    return statusError(503, 'UNAVAILABLE', `agent ${agentId} is not connected to the hub; try again when it is`, { 'retry-after': '5' });
  }

  /** The tasks `principal` sent through any instance, newest first (each instance's last 500). */
  async tasks(principal: string, agentId?: string): Promise<TaskSeen[]> {
    const others = this.alive.filter((instance) => instance !== this.instance);
    const lists = await Promise.all(
      others.map((instance) =>
        this.options.bus.request(atInstance(instance), { type: 'tasks', principal, ...(agentId === undefined ? {} : { agentId }) }, TASKS_MS).catch(() => []),
      ),
    );
    const newest = new Map<string, TaskSeen>();
    for (const task of [...this.member.tasks.list(principal, agentId), ...lists.flatMap((list) => (Array.isArray(list) ? list : []))]) {
      const seen = record(task) as TaskSeen | undefined;
      if (seen === undefined || seen.principal !== principal || typeof seen.taskId !== 'string' || typeof seen.updatedAt !== 'string') continue;
      const key = `${seen.agentId}\n${seen.taskId}`;
      const before = newest.get(key);
      if (before === undefined || before.updatedAt < seen.updatedAt) newest.set(key, seen);
    }
    return [...newest.values()].sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0)).slice(0, KEPT_TASKS);
  }

  /** Leaves the cluster: the others are told, the lease and the links are dropped. */
  async leave(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    this.say({ bye: true });
    for (const end of this.ends.splice(0)) end();
    this.links.stop();
    this.answers.close();
    this.cross.close();
    this.shareHealth.close();
    this.feed.close();
    await this.directory.leave(this.instance).catch((error: unknown) => this.member.onError(error, 'leaving the cluster'));
  }

  private say(what: Omit<PresenceMessage, 'from' | 'watched'> & { watched?: boolean }): void {
    if (this.stopped && what.bye !== true) return;
    this.options.bus.publish(PRESENCE, { from: this.instance, watched: this.member.events.watched, ...what } satisfies PresenceMessage);
  }

  private presence(message: unknown): void {
    const heard = record(message);
    if (heard === undefined || typeof heard.from !== 'string' || heard.from === this.instance) return;
    const from = heard.from;
    if (heard.bye === true) {
      this.left(from);
      return;
    }
    // Known alive from now, not only from the next renewal: its tasks are asked for in lists.
    if (!this.alive.includes(from)) this.alive = [...this.alive, from];
    this.links.seen(from);
    this.feed.presence(from, heard.watched === true);
    if (heard.hello === true) this.shareHealth.announce();
  }

  /** `instance` stopped, or its lease ran out. */
  private left(instance: string): void {
    this.alive = this.alive.filter((alive) => alive !== instance);
    this.links.left(instance);
    this.member.health.forgetInstance(instance);
    this.feed.left(instance);
  }

  /** The bus came back after a loss: what was said meanwhile is lost, so it is all read and sent again. */
  private mend(): void {
    this.member.registry.forget();
    this.say({ hello: true });
    this.shareHealth.announce();
    void this.links.refresh(this.alive).catch((error: unknown) => this.member.onError(error, 'reading the links of agents'));
  }

  private async tick(): Promise<void> {
    if (this.ticking || this.stopped) return;
    this.ticking = true;
    try {
      const { fresh, alive } = await this.directory.renew(this.instance, this.leaseMs);
      if (fresh) this.links.reclaim();
      for (const instance of this.alive) if (!alive.includes(instance)) this.left(instance);
      this.alive = alive;
      this.say({});
      this.leads = await this.directory.lead(CHECKS, this.instance, this.leaseMs);
      if ((this.ticks += 1) % this.refreshEvery === 0) {
        this.member.registry.forget();
        this.shareHealth.announce();
        await this.links.refresh(alive);
        if (this.leads) await this.directory.sweep(SWEEP_MS);
      }
      if (this.failing) this.member.onError(new Error('the registry answers again'), 'renewing the lease of this hub instance');
      this.failing = false;
    } catch (error) {
      // Without the database this instance cannot know that it still leads. Said once, not every second.
      this.leads = false;
      if (!this.failing) this.member.onError(error, 'renewing the lease of this hub instance');
      this.failing = true;
    } finally {
      this.ticking = false;
    }
  }
}
