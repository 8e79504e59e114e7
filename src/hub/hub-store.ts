// What the hub keeps across restarts: the registered agents, each with the card it last
// published and the principal that owns its id, and whose send made each task at an agent the
// hub calls at its URL. Health and open connections are not kept: they are facts about the
// moment, learned again when agents reconnect or answer a check. A store that instances of a
// cluster share also holds the cluster's directory (cluster/directory.ts).

import { MemoryHubDirectory, type HubDirectory } from './cluster/directory.js';

/** One registered agent as the hub stores it. */
export interface HubAgent {
  /** The id clients use: `<hub>/agents/<id>`. */
  id: string;
  /** The principal that registered it first; no other may replace or delete it. */
  owner: string;
  /** `url`: the hub fetches its card and forwards to it; `connected`: it dials in to the hub. */
  kind: 'url' | 'connected';
  /**
   * Offered by its owner to every principal's routed sends; otherwise the hub routes to it only
   * for its owner (anyone may still call it by its id).
   */
  shared?: boolean;
  /** For `url` agents, the base URL of the agent (where its card was found). */
  url?: string;
  /** The A2A card exactly as the agent published it (its own addresses, not the hub's). */
  card: Record<string, unknown>;
  /** The card's `version`, kept apart for search and for the history below. */
  version: string;
  /** Card versions seen before this one, oldest first (at most ten). */
  previousVersions: string[];
  registeredAt: string;
  updatedAt: string;
}

export interface HubStore {
  get(id: string): Promise<HubAgent | undefined>;
  list(): Promise<HubAgent[]>;
  /** Saves `agent` under its id, replacing what was there. */
  put(agent: HubAgent): Promise<void>;
  /**
   * Saves `agent` unless another principal owns its id; false, saving nothing, when one does.
   * One step, so that two instances registering one new id at once cannot both win it.
   */
  putOwned(agent: HubAgent): Promise<boolean>;
  /** True when there was an agent to remove. */
  remove(id: string): Promise<boolean>;
  /** The principal whose send made task `taskId` at the agent whose URL is `backend`. */
  taskOwner(backend: string, taskId: string): Promise<string | undefined>;
  /**
   * Records that `principal` made task `taskId` at `backend`, unless someone already did; the
   * owner recorded, whoever it is.
   */
  claimTask(backend: string, taskId: string, principal: string): Promise<string>;
  /** The directory of the hub instances that share this store, for a store they can share. */
  directory?(): HubDirectory;
  close(): Promise<void>;
}

/** The most card versions remembered per agent. */
export const MAX_VERSIONS = 10;

/**
 * The agent that results from `id` publishing `card` again: its version history grows when
 * the version changed. The caller has checked ownership.
 */
export function withNewCard(previous: HubAgent | undefined, next: Omit<HubAgent, 'previousVersions' | 'registeredAt' | 'updatedAt'>, now: Date): HubAgent {
  const history = previous === undefined ? [] : [...previous.previousVersions];
  if (previous !== undefined && previous.version !== next.version) history.push(previous.version);
  return {
    ...next,
    previousVersions: history.slice(-MAX_VERSIONS),
    registeredAt: previous?.registeredAt ?? now.toISOString(),
    updatedAt: now.toISOString(),
  };
}

/** A store for one hub process (or several hubs in one process): everything is lost when it stops. */
export class MemoryHubStore implements HubStore {
  private readonly agents = new Map<string, HubAgent>();
  private readonly owners = new Map<string, string>();
  private shared: MemoryHubDirectory | undefined;

  get(id: string): Promise<HubAgent | undefined> {
    const agent = this.agents.get(id);
    return Promise.resolve(agent === undefined ? undefined : structuredClone(agent));
  }

  list(): Promise<HubAgent[]> {
    return Promise.resolve([...this.agents.values()].map((agent) => structuredClone(agent)).sort((a, b) => a.id.localeCompare(b.id)));
  }

  put(agent: HubAgent): Promise<void> {
    this.agents.set(agent.id, structuredClone(agent));
    return Promise.resolve();
  }

  putOwned(agent: HubAgent): Promise<boolean> {
    const owner = this.agents.get(agent.id)?.owner;
    if (owner !== undefined && owner !== agent.owner) return Promise.resolve(false);
    this.agents.set(agent.id, structuredClone(agent));
    return Promise.resolve(true);
  }

  remove(id: string): Promise<boolean> {
    return Promise.resolve(this.agents.delete(id));
  }

  taskOwner(backend: string, taskId: string): Promise<string | undefined> {
    return Promise.resolve(this.owners.get(`${backend}\n${taskId}`));
  }

  claimTask(backend: string, taskId: string, principal: string): Promise<string> {
    const key = `${backend}\n${taskId}`;
    const owner = this.owners.get(key) ?? principal;
    this.owners.set(key, owner);
    return Promise.resolve(owner);
  }

  /** One directory for every hub given this store. */
  directory(): HubDirectory {
    return (this.shared ??= new MemoryHubDirectory());
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
