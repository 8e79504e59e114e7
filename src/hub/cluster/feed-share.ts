// The live feed across a cluster: each instance sends its own events on the bus (agents
// registered and removed, tasks seen in the answers it relayed; health goes by health-share.ts),
// and puts the others' into its own feed, so a watcher anywhere sees the whole cluster. An
// instance reads relayed answers for tasks only while someone follows a feed (hub-events.ts):
// each says with its presence whether a watcher follows its feed, and while one does anywhere,
// every instance reads its answers at once. An agent registered or removed elsewhere is dropped
// from this instance's cache of the registry.

import type { Bus } from '../../cluster/bus.js';
import type { HealthBoard } from '../health.js';
import type { HubEvent, HubEvents } from '../hub-events.js';
import type { Registry } from '../registry.js';
import { FEED, record, type FeedMessage } from './messages.js';

export interface FeedShareOptions {
  bus: Bus;
  self: string;
  events: HubEvents;
  registry: Registry;
  health: HealthBoard;
  /** How long another instance's word that it is watched holds (its presence is sent more often). */
  watchedMs: number;
}

const SHARED = new Set<HubEvent['type']>(['agent.registered', 'agent.removed', 'task']);

export class FeedShare {
  /** Instances followed by a watcher, and until when that holds unless said again. */
  private readonly watched = new Map<string, number>();
  private end: (() => void) | undefined;

  constructor(private readonly options: FeedShareOptions) {}

  async start(): Promise<void> {
    const { events, bus, self } = this.options;
    events.listen((event, at, from) => {
      if (from === undefined && SHARED.has(event.type)) bus.publish(FEED, { from: self, at, event } satisfies FeedMessage);
    });
    events.followedElsewhere = () => this.followedElsewhere();
    this.end = await bus.subscribe(FEED, (message) => this.heard(message));
  }

  close(): void {
    this.end?.();
    this.options.events.followedElsewhere = () => false;
  }

  /** Instance `from` says whether a watcher follows its feed. */
  presence(from: string, watched: boolean): void {
    const before = this.followedElsewhere();
    if (watched) this.watched.set(from, Date.now() + this.options.watchedMs);
    else this.watched.delete(from);
    // Followed from now on: what was put off goes into the feed, and so to the watcher there.
    if (!before && watched) this.options.events.catchUp();
  }

  /** Instance `from` stopped. */
  left(from: string): void {
    this.watched.delete(from);
  }

  private followedElsewhere(): boolean {
    if (this.watched.size === 0) return false;
    const now = Date.now();
    for (const [instance, until] of this.watched) {
      if (until > now) return true;
      this.watched.delete(instance);
    }
    return false;
  }

  private heard(message: unknown): void {
    const heard = record(message);
    const event = record(heard?.event) as HubEvent | undefined;
    if (heard === undefined || event === undefined || typeof heard.from !== 'string' || heard.from === this.options.self || typeof heard.at !== 'number') return;
    if (!SHARED.has(event.type)) return;
    if (event.type === 'task') {
      if (typeof record(event.task)?.principal !== 'string') return;
    } else if (typeof event.agentId !== 'string') return;
    else {
      this.options.registry.forget(event.agentId);
      if (event.type === 'agent.removed') this.options.health.forget(event.agentId);
    }
    this.options.events.publish(event, heard.at, heard.from);
  }
}
