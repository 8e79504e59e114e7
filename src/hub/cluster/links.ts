// Which instance of the cluster holds each connected agent's link. The directory is the truth:
// an instance records each link it takes and drops each it loses, and says so on the bus; every
// instance keeps what it heard in memory (for the console, and to route without a query), reads
// the directory again where that has nothing, and reloads it all every few seconds, so that a
// lost message is mended. An instance the bus finds gone is passed over until it is seen again.

import type { Bus } from '../../cluster/bus.js';
import type { LinkKind } from '../relay.js';
import type { AgentLink, HubDirectory } from './directory.js';
import { LINKS, record, type LinksMessage } from './messages.js';

export interface ClusterLinksOptions {
  bus: Bus;
  directory: HubDirectory;
  self: string;
  /** Another instance took the link of `agentId`, which this one holds too: this one's is stale. */
  takenOver: (agentId: string) => void;
  onError: (error: unknown, where: string) => void;
}

export class ClusterLinks {
  /** Every link heard of or read, this instance's own included. */
  private readonly known = new Map<string, AgentLink>();
  /** The links this instance holds, and their kind. */
  private readonly own = new Map<string, LinkKind>();
  /** Instances the bus found gone, passed over until they are seen again. */
  private readonly gone = new Set<string>();
  /** Per agent, the writes to the directory in the order they were made. */
  private readonly writes = new Map<string, Promise<void>>();
  private readonly waiting = new Map<string, Set<() => void>>();
  private readonly lookups = new Map<string, Promise<AgentLink | undefined>>();
  /** Links found not there (the instance no longer holds them) whose rows may still be read: agent → epoch. */
  private readonly notThere = new Map<string, number>();

  /** True once this instance left the cluster: its links went with its lease. */
  private stopped = false;
  private end: (() => void) | undefined;

  constructor(private readonly options: ClusterLinksOptions) {}

  async start(): Promise<void> {
    this.end = await this.options.bus.subscribe(LINKS, (message) => this.heard(message));
  }

  /** Stops recording and hearing links (this instance left, and its lease took its links with it). */
  stop(): void {
    this.stopped = true;
    this.end?.();
  }

  /** The link of `agentId` as last heard, if an instance not found gone holds it. */
  cached(agentId: string): AgentLink | undefined {
    const link = this.known.get(agentId);
    return link === undefined || this.gone.has(link.instance) ? undefined : link;
  }

  /** The link of `agentId`: as heard, else as the directory has it (one read at a time per agent). */
  async where(agentId: string): Promise<AgentLink | undefined> {
    const cached = this.cached(agentId);
    if (cached !== undefined) return cached;
    let lookup = this.lookups.get(agentId);
    if (lookup === undefined) {
      lookup = this.options.directory.linkOf(agentId).finally(() => this.lookups.delete(agentId));
      this.lookups.set(agentId, lookup);
    }
    const found = await lookup;
    if (found === undefined || this.gone.has(found.instance) || found.epoch <= (this.notThere.get(agentId) ?? 0)) return undefined;
    this.learn(found);
    return this.cached(agentId);
  }

  /** How many agents are linked to the cluster now. */
  count(): number {
    let count = 0;
    for (const link of this.known.values()) if (!this.gone.has(link.instance)) count += 1;
    return count;
  }

  /** This instance took the link of `agentId`: recorded, then told. */
  up(agentId: string, kind: LinkKind): void {
    this.own.set(agentId, kind);
    this.write(agentId, async () => {
      const epoch = await this.options.directory.link(agentId, this.options.self, kind);
      if (epoch === undefined || this.own.get(agentId) !== kind) return;
      const link: AgentLink = { agentId, instance: this.options.self, kind, epoch };
      this.learn(link);
      this.options.bus.publish(LINKS, { from: this.options.self, link } satisfies LinksMessage);
    });
    this.wake(agentId);
  }

  /** This instance lost the link of `agentId`. */
  down(agentId: string): void {
    this.own.delete(agentId);
    if (this.known.get(agentId)?.instance === this.options.self) this.known.delete(agentId);
    this.write(agentId, async () => {
      if (this.own.has(agentId)) return;
      await this.options.directory.unlink(agentId, this.options.self);
      this.options.bus.publish(LINKS, { from: this.options.self, gone: agentId } satisfies LinksMessage);
    });
  }

  /**
   * Claims this instance's links back after its lease ran out: those another instance took
   * meanwhile are stale here.
   */
  reclaim(): void {
    for (const [agentId, kind] of this.own) {
      this.write(agentId, async () => {
        const epoch = await this.options.directory.link(agentId, this.options.self, kind, false);
        if (epoch === undefined) this.options.takenOver(agentId);
        else this.learn({ agentId, instance: this.options.self, kind, epoch });
      });
    }
  }

  /** Reloads every link from the directory; `alive`: the instances whose lease runs. */
  async refresh(alive: readonly string[]): Promise<void> {
    for (const instance of this.gone) if (!alive.includes(instance)) this.gone.delete(instance);
    const links = await this.options.directory.links();
    const seen = new Set<string>();
    for (const link of links) {
      seen.add(link.agentId);
      this.learn(link);
    }
    for (const [agentId, link] of this.known) if (!seen.has(agentId) && link.instance !== this.options.self) this.known.delete(agentId);
  }

  /** The instance of `link` said it does not hold it: passed over until a later link is known. */
  stale(link: AgentLink): void {
    this.notThere.set(link.agentId, Math.max(link.epoch, this.notThere.get(link.agentId) ?? 0));
    if (this.known.get(link.agentId)?.epoch === link.epoch) this.known.delete(link.agentId);
  }

  /** The bus found nobody at `instance`: its links are passed over until it is heard again. */
  lost(instance: string): void {
    if (instance !== this.options.self) this.gone.add(instance);
  }

  /** `instance` was heard from: it is not gone. */
  seen(instance: string): void {
    this.gone.delete(instance);
  }

  /** `instance` stopped: its links are forgotten. */
  left(instance: string): void {
    for (const [agentId, link] of this.known) if (link.instance === instance) this.known.delete(agentId);
  }

  /** Resolves when `agentId` is linked anywhere (as far as this instance hears), or after `ms`. */
  arrival(agentId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const waiting = this.waiting.get(agentId) ?? new Set();
      this.waiting.set(agentId, waiting);
      const done = (): void => {
        clearTimeout(timer);
        waiting.delete(done);
        if (waiting.size === 0 && this.waiting.get(agentId) === waiting) this.waiting.delete(agentId);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiting.add(done);
    });
  }

  /** A link or its loss heard on the bus. */
  private heard(message: unknown): void {
    const heard = record(message) as LinksMessage | undefined;
    if (heard === undefined || typeof heard.from !== 'string' || heard.from === this.options.self) return;
    this.gone.delete(heard.from);
    if ('gone' in heard && typeof heard.gone === 'string') {
      if (this.known.get(heard.gone)?.instance === heard.from) this.known.delete(heard.gone);
      return;
    }
    const link = 'link' in heard ? record(heard.link) : undefined;
    if (link === undefined || typeof link.agentId !== 'string' || typeof link.instance !== 'string' || typeof link.epoch !== 'number') return;
    this.learn({ agentId: link.agentId, instance: link.instance, kind: link.kind === 'event-stream' ? 'event-stream' : 'websocket', epoch: link.epoch });
  }

  /**
   * Keeps `link` unless a later one is known. Of this instance's own link and another's, the
   * later wins: when it is the other's, this instance's is stale (the agent dialled elsewhere).
   */
  private learn(link: AgentLink): void {
    const { self } = this.options;
    const known = this.known.get(link.agentId);
    if (link.epoch <= (this.notThere.get(link.agentId) ?? 0)) return;
    this.notThere.delete(link.agentId);
    if (known !== undefined && known.epoch > link.epoch) {
      if (link.instance === self && known.instance !== self && this.own.has(link.agentId)) this.options.takenOver(link.agentId);
      return;
    }
    this.known.set(link.agentId, link);
    if (link.instance !== self && known?.instance === self && this.own.has(link.agentId)) this.options.takenOver(link.agentId);
    this.wake(link.agentId);
  }

  private wake(agentId: string): void {
    for (const done of [...(this.waiting.get(agentId) ?? [])]) done();
  }

  private write(agentId: string, step: () => Promise<void>): void {
    if (this.stopped) return;
    const next = (this.writes.get(agentId) ?? Promise.resolve())
      .then(step)
      .catch((error: unknown) => this.options.onError(error, `recording the link of agent ${agentId}`))
      .finally(() => {
        if (this.writes.get(agentId) === next) this.writes.delete(agentId);
      });
    this.writes.set(agentId, next);
  }
}
