// Push notifications: every task event becomes one delivery per push config of its task. The
// delivery is written to the outbox (PushStore) first, then posted by the config's own queue, in
// event order, with retries; it leaves the outbox when delivered or given up on.
//
//   agent event ──► outbox (store) ──► lane per config ──► slot per webhook origin ──► POST
//                     ▲ on start, what is still there      (FIFO, retries, backoff)   (≤ 4 at once)
//
// The runtime waits for the outbox write, as for its own saves, and never for the network: a
// webhook that is slow, down or failing holds up only its own lane and its own origin's slots.
// Replicas of one agent (AgentOptions.cluster) share the outbox and each sends only what it has
// claimed there (push-claims.ts), so that a notification is sent once.

import type { Context } from '@opentelemetry/api';
import { randomUUID } from 'node:crypto';
import type { PushConfig, PushConfigInput, PushConfigService } from '../model/push-config.js';
import { LiteError } from '../errors.js';
import type { Agent } from '../runtime/agent.js';
import type { Task, TaskEvent } from '../model/task.js';
import { isClusterStore } from '../store/cluster-store.js';
import type { PendingDelivery, PushStore } from '../store/push-store.js';
import { bodyOf, headersOf } from './push-request.js';
import { tracedPost } from './push-trace.js';
import { checkAddress, type Resolver } from '../net/address-guard.js';
import { keptAliveAgents } from '../net/outbound.js';
import { OriginSlots } from './origin-slots.js';
import { PushClaims } from './push-claims.js';
import { postWebhook, webhookRefusal, type PostOutcome } from './webhook-post.js';

export interface PushSenderOptions {
  agent: Agent;
  /** Where configs and the outbox live; usually the agent's task store. */
  store: PushStore;
  /** Allow webhooks on loopback, private, link-local and CGNAT addresses (local testing, private deployments). */
  allowPrivateNetworks?: boolean;
  /** Resolves webhook host names (dns.lookup unless given). */
  resolve?: Resolver;
  /** One attempt's limit, from the DNS lookup to the response headers (default 10 s). */
  timeoutMs?: number;
  /** Attempts per delivery, the first one included (default 6: about a minute of retries). */
  maxAttempts?: number;
  /** The wait after the first failure, doubling after each; jitter takes up to half off (default 2 s). */
  retryBaseMs?: number;
  /** Requests in flight to one webhook origin at once (default 4). */
  perOriginConcurrency?: number;
  /** Where delivery failures are reported. Lines name the task and the webhook's origin, never a token or credentials. */
  log?: (line: string) => void;
  /** For jitter; tests make it fixed. */
  random?: () => number;
  /** Replicas: how long a claim on a delivery lasts unless renewed; a dead replica's are sent by another after it (default 60 s). */
  claimLeaseMs?: number;
}

/** A task has at most this many configs: each multiplies the requests its events cause. */
export const MAX_CONFIGS_PER_TASK = 10;

/** A delivery as queued here: with the trace of the request whose task made it, when known (not stored). */
type Queued = PendingDelivery & { trace?: Context };

interface Lane {
  queue: Queued[];
  running: boolean;
}

/**
 * Starts a push sender: it sends what the outbox still holds from an earlier run, then follows
 * every event of `options.agent`. Pass it to `createA2AHandler({ push })` for the push methods.
 *
 * @example
 * const push = await startPushSender({ agent, store });
 * const handler = createA2AHandler({ agent, baseUrl, push });
 */
export async function startPushSender(options: PushSenderOptions): Promise<PushSender> {
  const sender = new PushSender(options);
  await sender.start();
  return sender;
}

export class PushSender implements PushConfigService {
  private readonly store: PushStore;
  private readonly lanes = new Map<string, Lane>();
  private readonly slots: OriginSlots;
  /** Replicas: the deliveries this one has claimed; none for one process. */
  private readonly claims: PushClaims | undefined;
  /** Outbox writes, one after another, so that `seq` follows the order of events. */
  private writing: Promise<void> = Promise.resolve();
  private readonly draining = new Set<Promise<void>>();
  private readonly sleeping = new Set<{ timer: NodeJS.Timeout; wake(): void }>();
  private readonly stopping = new AbortController();
  private readonly agents = keptAliveAgents();
  private readonly timeoutMs: number;
  private readonly maxAttempts: number;
  private readonly retryBaseMs: number;
  private readonly log: (line: string) => void;
  private readonly random: () => number;
  private started = false;

  /** @internal Use `startPushSender`. */
  constructor(private readonly options: PushSenderOptions) {
    this.store = options.store;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 6);
    this.retryBaseMs = options.retryBaseMs ?? 2_000;
    this.slots = new OriginSlots(Math.max(1, options.perOriginConcurrency ?? 4));
    this.log = options.log ?? (() => undefined);
    this.random = options.random ?? Math.random;
    const replica = options.agent.replica?.name;
    if (replica !== undefined && isClusterStore(options.store)) {
      this.claims = new PushClaims(options.store, replica, options.claimLeaseMs ?? 60_000, (delivery) => this.schedule(delivery), this.log);
    }
  }

  /** @internal Queues what the outbox holds, then starts following the agent. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    if (this.claims !== undefined) await this.claims.claim();
    else for (const delivery of await this.store.pendingDeliveries()) this.schedule(delivery);
    this.options.agent.observe((event, task, _owner, trace) => this.record(event, task, trace));
  }

  async save(input: PushConfigInput): Promise<PushConfig> {
    await checkAddress(input.url, { ...this.guard(), refuse: webhookRefusal });
    const id = input.id ?? randomUUID();
    const existing = await this.store.listPushConfigs(input.taskId);
    if (existing.length >= MAX_CONFIGS_PER_TASK && !existing.some((c) => c.id === id)) {
      throw new LiteError('INVALID_PARAMS', `task "${input.taskId}" already has ${MAX_CONFIGS_PER_TASK} push configs, the most it can have; delete one first`);
    }
    const config: PushConfig = { ...input, id };
    await this.store.savePushConfig(config);
    return config;
  }

  get(taskId: string, id: string): Promise<PushConfig | undefined> {
    return this.store.getPushConfig(taskId, id);
  }

  list(taskId: string): Promise<PushConfig[]> {
    return this.store.listPushConfigs(taskId);
  }

  async delete(taskId: string, id: string): Promise<boolean> {
    const deleted = await this.store.deletePushConfig(taskId, id);
    // The one being sent, if any, finds its config gone and is dropped.
    const lane = this.lanes.get(laneKey(taskId, id));
    if (lane !== undefined) for (const dropped of lane.queue.splice(lane.running ? 1 : 0)) this.claims?.done(dropped.seq);
    return deleted;
  }

  /**
   * Writes one delivery per config of the task to the outbox, and queues them. The agent calls
   * this for every event; call it for changes made outside the agent (tasks failed at start-up).
   * Never rejects: a failed write is logged. `trace` (the task's request span) is the parent of
   * each POST's span.
   */
  record(event: TaskEvent, task: Task, trace?: Context): Promise<void> {
    const step = this.writing.then(async () => {
      const configs = await this.store.listPushConfigs(task.id);
      if (configs.length === 0) return;
      const deliveries = configs.map((config) => ({ taskId: task.id, configId: config.id, body: bodyOf(config, event, task) }));
      const added = await this.store.addDeliveries(deliveries);
      // Replicas: what this one claims of the outbox (these, unless another sweep took them first).
      if (this.claims !== undefined) void this.claims.claim();
      else for (const delivery of added) this.schedule(trace === undefined ? delivery : { ...delivery, trace });
    });
    this.writing = step.catch((error: unknown) => this.log(`push: task ${task.id}: could not queue notifications: ${reasonOf(error)}`));
    return this.writing;
  }

  /**
   * Stops sending: attempts in flight are abandoned and stay in the outbox, as does everything
   * queued, for the next start. Events still reach the outbox until the store closes, so the
   * last updates of a shutdown are sent after the restart.
   */
  async close(): Promise<void> {
    if (this.stopping.signal.aborted) return;
    this.stopping.abort();
    for (const sleeper of this.sleeping) {
      clearTimeout(sleeper.timer);
      sleeper.wake();
    }
    this.slots.wakeAll();
    await Promise.all(this.draining);
    await this.writing;
    await this.claims?.close();
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private get closed(): boolean {
    return this.stopping.signal.aborted;
  }

  private guard(): { allowPrivateNetworks: boolean; resolve?: Resolver } {
    const guard: { allowPrivateNetworks: boolean; resolve?: Resolver } = { allowPrivateNetworks: this.options.allowPrivateNetworks ?? false };
    if (this.options.resolve) guard.resolve = this.options.resolve;
    return guard;
  }

  private schedule(delivery: Queued): void {
    if (this.closed) return;
    const key = laneKey(delivery.taskId, delivery.configId);
    let lane = this.lanes.get(key);
    if (lane === undefined) {
      lane = { queue: [], running: false };
      this.lanes.set(key, lane);
    }
    lane.queue.push(delivery);
    if (lane.running) return;
    lane.running = true;
    const drain = this.drain(key, lane).finally(() => this.draining.delete(drain));
    this.draining.add(drain);
  }

  /** Sends a lane's deliveries one at a time, so that a webhook sees its events in order. */
  private async drain(key: string, lane: Lane): Promise<void> {
    try {
      while (!this.closed && lane.queue.length > 0) {
        await this.deliver(lane.queue[0] as Queued);
        const sent = lane.queue.shift() as Queued;
        this.claims?.done(sent.seq);
      }
    } catch (error) {
      // The store failed; what is left stays in the outbox for the next start (or the next claim).
      this.log(`push: stopped sending to a webhook: ${reasonOf(error)}`);
      for (const left of lane.queue.splice(0)) this.claims?.done(left.seq);
    } finally {
      lane.running = false;
      if (this.lanes.get(key) === lane) this.lanes.delete(key);
    }
  }

  /** Tries a delivery until it is made, fails for good, or runs out of attempts. */
  private async deliver(delivery: Queued): Promise<void> {
    let attempts = delivery.attempts;
    while (!this.closed) {
      const config = await this.store.getPushConfig(delivery.taskId, delivery.configId);
      if (config === undefined) {
        // Deleted since: there is no one to tell.
        await this.store.removeDelivery(delivery.seq);
        return;
      }
      const outcome = await this.attempt(config, delivery.body, delivery.trace);
      if (this.closed) return;
      if (outcome.ok) {
        await this.store.removeDelivery(delivery.seq);
        return;
      }
      attempts += 1;
      const where = `push: task ${delivery.taskId}: ${originOf(config.url)}`;
      if (outcome.permanent || attempts >= this.maxAttempts) {
        this.log(`${where}: gave up on a notification after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${outcome.reason}`);
        await this.store.removeDelivery(delivery.seq);
        return;
      }
      await this.store.recordAttempt(delivery.seq, attempts);
      const wait = this.backoff(attempts);
      this.log(`${where}: attempt ${attempts} of ${this.maxAttempts} failed (${outcome.reason}); trying again in ${(wait / 1000).toFixed(1)} s`);
      await this.sleep(wait);
    }
  }

  /** One POST, once the origin has a free slot. */
  private async attempt(config: PushConfig, body: string, trace: Context | undefined): Promise<PostOutcome> {
    const origin = originOf(config.url);
    await this.slots.take(origin, this.closed);
    try {
      if (this.closed) return { ok: false, permanent: false, reason: 'closing' };
      return await tracedPost(config, headersOf(config), (headers) => postWebhook(config.url, body, { ...this.guard(), headers, timeoutMs: this.timeoutMs, signal: this.stopping.signal, agents: this.agents }), trace);
    } finally {
      this.slots.give(origin);
    }
  }

  /** Exponential: base, 2×base, 4×base…, each cut by up to half at random so that retries spread. */
  private backoff(failures: number): number {
    return Math.round(this.retryBaseMs * 2 ** (failures - 1) * (1 - this.random() / 2));
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const sleeper = {
        timer: setTimeout(() => {
          this.sleeping.delete(sleeper);
          resolve();
        }, ms),
        wake: resolve,
      };
      // A pending retry alone does not keep the process alive: the outbox keeps it.
      sleeper.timer.unref();
      this.sleeping.add(sleeper);
    });
  }
}

function laneKey(taskId: string, configId: string): string {
  return JSON.stringify([taskId, configId]);
}

/** `https://host:port`: what logs name a webhook by, since paths and queries may hold secrets. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(bad URL)';
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
