// The hub's registry: who is registered (by card URL or by connecting), who owns each id, what
// each card offers, and the search and ranking clients use to pick an agent. The store keeps
// agents and owners across restarts; health is in memory (health.ts).

import { LITE_CARD_EXTENSION } from '../a2a/wire/agent-card.js';
import { isLiteError, LiteError } from '../errors.js';
import { cardProblem, viewOf, type CardView } from './agent-card-view.js';
import { CardSignatures } from './card-signatures.js';
import { readText } from '../net/body.js';
import { requestAgent } from './agent-request.js';
import { VIA_HEADER } from './loop-guard.js';
import type { HealthBoard } from './health.js';
import type { HubEvents } from './hub-events.js';
import { withNewCard, type HubAgent, type HubStore } from './hub-store.js';

/** Agent ids: what a URL path segment and a file name both carry safely. */
export const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

const MAX_CARD_BYTES = 256 * 1024;

export interface SearchQuery {
  skill?: string;
  tag?: string;
  /** Words matched against name, description, skill names and descriptions. */
  text?: string;
  version?: string;
  /** Only agents that are up. */
  healthy?: boolean;
}

export interface Candidate {
  agent: HubAgent;
  /** Smaller is better. */
  score: number;
  why: string;
}

export class Registry {
  /** Calls of `candidates` so far: where each starts a run of equally good agents. */
  private turns = 0;
  /** Ids being saved for their first owner, and for whom. */
  private readonly claims = new Map<string, string>();
  /** The agents as last stored, read on every relayed request without a copy or a parse. */
  private readonly known = new Map<string, HubAgent>();

  constructor(
    readonly store: HubStore,
    private readonly health: HealthBoard,
    private readonly events: HubEvents,
    private readonly allowPrivate: boolean,
    /** The hub's instance id, sent on every card read so that a URL leading back to the hub is refused there. */
    private readonly via = '',
    /** What is made of card signatures: checked, and required or not. */
    readonly signatures = new CardSignatures(),
  ) {}

  /** The principal that owns `id`, or undefined when nobody does; INVALID_PARAMS for an id no agent could have. */
  async ownerOf(id: string): Promise<string | undefined> {
    if (!AGENT_ID.test(id)) throw new LiteError('INVALID_PARAMS', 'an agent id is 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit');
    return (await this.store.get(id))?.owner;
  }

  /** Registers the agent whose card is at `url`, fetched through the SSRF guard; `shared` offers it to everyone's routed sends. */
  async registerUrl(url: string, principal: string, wantedId?: string, shared = false): Promise<HubAgent> {
    const base = parseBase(url);
    const card = await this.fetchCard(base);
    const id = wantedId ?? idFromCard(card);
    this.signatures.admit(card, id);
    return this.claimed(id, principal, () => this.save({ id, owner: principal, kind: 'url', card, url: base, shared }));
  }

  /** Stores the card a connected agent published (through its connection); `shared` as for `registerUrl`. */
  async registerConnected(id: string, principal: string, card: unknown, shared = false): Promise<HubAgent> {
    const problem = cardProblem(card);
    if (problem !== undefined) throw new LiteError('INVALID_CARD', `agent ${id}: ${problem}`);
    this.signatures.admit(card as Record<string, unknown>, id);
    return this.claimed(id, principal, () => this.save({ id, owner: principal, kind: 'connected', card: card as Record<string, unknown>, shared }));
  }

  /**
   * Runs `store` (the save of `id` for `principal`) holding a claim on the id, so that two first
   * registrations at once cannot both win; FORBIDDEN when another principal owns or is saving
   * it. The claim lasts as long as the save, never longer.
   */
  private async claimed(id: string, principal: string, store: () => Promise<HubAgent>): Promise<HubAgent> {
    const owner = (await this.ownerOf(id)) ?? this.claims.get(id);
    if (owner !== undefined && owner !== principal) throw new LiteError('FORBIDDEN', `the agent id "${id}" is registered by another principal`);
    this.claims.set(id, principal);
    try {
      return await store();
    } finally {
      if (this.claims.get(id) === principal) this.claims.delete(id);
    }
  }

  /** Removes `id`; FORBIDDEN for anyone but its owner. */
  async remove(id: string, principal: string): Promise<void> {
    const agent = await this.store.get(id);
    if (agent === undefined) throw new LiteError('AGENT_NOT_FOUND', `no agent "${id}" is registered at this hub`);
    if (agent.owner !== principal) throw new LiteError('FORBIDDEN', `the agent "${id}" is registered by another principal`);
    await this.store.remove(id);
    this.known.delete(id);
    this.claims.delete(id);
    this.health.forget(id);
    this.events.publish({ type: 'agent.removed', agentId: id });
  }

  async get(id: string): Promise<HubAgent> {
    const agent = await this.lookup(id);
    if (agent === undefined) throw new LiteError('AGENT_NOT_FOUND', `no agent "${id}" is registered at this hub`);
    return agent;
  }

  /** Drops what is cached of agent `id`, or of every agent: another instance of the cluster changed it. */
  forget(id?: string): void {
    if (id === undefined) this.known.clear();
    else this.known.delete(id);
  }

  /** Agent `id` when it was looked up before (the same object as `lookup` gives), without a wait. */
  cached(id: string): HubAgent | undefined {
    return this.known.get(id);
  }

  /** Agent `id` as stored, or undefined; the same object each time, not to be changed. */
  async lookup(id: string): Promise<HubAgent | undefined> {
    const cached = this.known.get(id);
    if (cached !== undefined) return cached;
    const stored = await this.store.get(id);
    if (stored !== undefined) this.known.set(id, stored);
    return stored;
  }

  async search(query: SearchQuery): Promise<HubAgent[]> {
    const words = (query.text ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    return (await this.store.list()).filter((agent) => {
      const view = viewOf(agent.card);
      if (query.skill !== undefined && !offers(view, query.skill)) return false;
      if (query.tag !== undefined && !view.skills.some((skill) => skill.tags.some((tag) => tag.toLowerCase() === query.tag?.toLowerCase()))) return false;
      if (query.version !== undefined && agent.version !== query.version) return false;
      if (query.healthy === true && !this.health.of(agent.id).up) return false;
      const haystack = [agent.id, view.name, view.description, ...view.skills.flatMap((s) => [s.id, s.name, s.description, ...s.tags])].join(' ').toLowerCase();
      return words.every((word) => haystack.includes(word));
    });
  }

  /**
   * The healthy agents offering `skill` that `principal` may be routed to (its own, and those
   * their owners share), best first: an exact skill id before a tag or name, the caller's own
   * before shared ones, then fewer active tasks, then lower recent latency in steps of 100 ms
   * (unmeasured counts as the fastest, so a new agent gets its turn). Agents equal in all of
   * these take turns: each call starts the run of equals one further on. Each says why.
   */
  async candidates(skill: string, principal: string): Promise<Candidate[]> {
    const wanted = skill.toLowerCase();
    const turn = (this.turns += 1);
    const ranked = (await this.search({ skill, healthy: true }))
      .filter((agent) => agent.owner === principal || agent.shared === true)
      .map((agent) => {
        const view = viewOf(agent.card);
        const exact = view.skills.some((s) => s.id.toLowerCase() === wanted);
        const own = agent.owner === principal;
        const health = this.health.of(agent.id);
        const step = Math.min(9, Math.floor((health.latencyMs ?? 0) / 100));
        // A second of latency weighs as one task in flight; the caller's own agent before any shared one.
        const score = (exact ? 0 : 2_000_000_000) + (own ? 0 : 1_000_000_000) + Math.min(health.activeTasks, 99_999_999) * 10 + step;
        const why = `${exact ? `skill "${skill}"` : `a skill tagged or named "${skill}"`}, ${own ? 'yours' : 'shared by its owner'}, ${health.activeTasks} active task${health.activeTasks === 1 ? '' : 's'}, latency ${health.latencyMs === undefined ? 'not measured' : `${health.latencyMs} ms`}`;
        return { agent, score, why };
      })
      .sort((a, b) => a.score - b.score);
    return takingTurns(ranked, turn);
  }

  /** Fetches each URL agent's card again: up when it answers (its new card saved), down after three misses. */
  async checkUrlAgents(): Promise<void> {
    for (const agent of await this.store.list()) {
      if (agent.kind !== 'url' || agent.url === undefined) continue;
      const started = performance.now();
      try {
        const card = await this.fetchCard(agent.url);
        const latency = performance.now() - started;
        if (JSON.stringify(card) !== JSON.stringify(agent.card)) {
          // A card that no longer verifies is not taken: the agent is down until it does again.
          this.signatures.admit(card, agent.id);
          await this.save({ ...agent, card });
        }
        this.health.up(agent.id, latency);
      } catch (error) {
        this.health.failed(agent.id, isLiteError(error) ? error.message : 'its card could not be fetched', isLiteError(error, 'CARD_SIGNATURE_INVALID') ? 1 : 3);
      }
    }
  }

  private async save(next: Pick<HubAgent, 'id' | 'owner' | 'kind' | 'card' | 'url' | 'shared'>): Promise<HubAgent> {
    const { id, owner, kind, card, url, shared } = next;
    const view = viewOf(card);
    const previous = await this.store.get(id);
    const agent = withNewCard(previous, { id, owner, kind, ...(url === undefined ? {} : { url }), ...(shared === true ? { shared } : {}), card, version: view.version }, new Date());
    // Another instance of a cluster may have given the id to someone else since it was checked.
    if (!(await this.store.putOwned(agent))) throw new LiteError('FORBIDDEN', `the agent id "${id}" is registered by another principal`);
    this.known.set(id, agent);
    if (kind === 'url') this.health.up(id);
    this.events.publish({ type: 'agent.registered', agentId: id, kind, name: view.name, version: view.version });
    return agent;
  }

  /**
   * The card at `base`. An address the hub may not call is FORBIDDEN; one it cannot reach or
   * read (no name, no answer, not 200, too large) is PEER_UNREACHABLE or PEER_ERROR, saying
   * that the card could not be fetched and why; what it holds that is no card, INVALID_CARD.
   */
  private async fetchCard(base: string): Promise<Record<string, unknown>> {
    const url = base.endsWith('.json') ? base : `${base}/.well-known/agent-card.json`;
    const failed = (code: 'PEER_UNREACHABLE' | 'PEER_ERROR', why: string): LiteError => new LiteError(code, `the agent card could not be fetched from ${url}: ${why}`, { cardUrl: url });
    let text: string;
    try {
      const response = await requestAgent(url, { headers: { accept: 'application/json', ...(this.via === '' ? {} : { [VIA_HEADER]: this.via }) }, timeoutMs: 10_000 }, this.allowPrivate);
      if (response.statusCode === 508) {
        response.resume();
        throw failed('PEER_ERROR', 'the request came back to this hub (HTTP 508: a loop); register the address the agent itself serves, not one of this hub or of a hub that leads back here');
      }
      if (response.statusCode !== 200) {
        response.resume();
        throw failed('PEER_ERROR', `it answered HTTP ${response.statusCode}`);
      }
      text = await readText(response, MAX_CARD_BYTES);
    } catch (error) {
      if (isLiteError(error, 'FORBIDDEN') || isLiteError(error, 'PEER_ERROR')) throw error;
      throw failed(isLiteError(error, 'INPUT_TOO_LARGE') ? 'PEER_ERROR' : 'PEER_UNREACHABLE', error instanceof Error ? error.message : 'the connection failed');
    }
    let card: unknown;
    try {
      card = JSON.parse(text);
    } catch {
      throw new LiteError('INVALID_CARD', `${url} does not hold JSON, so it is no agent card`);
    }
    const problem = cardProblem(card);
    if (problem !== undefined) throw new LiteError('INVALID_CARD', `${url}: ${problem}`);
    return card as Record<string, unknown>;
  }
}

/** `ranked` (sorted by score) with each run of equal scores rotated by `turn`: equals take turns at the front. */
function takingTurns(ranked: Candidate[], turn: number): Candidate[] {
  const out: Candidate[] = [];
  for (let start = 0; start < ranked.length; ) {
    let end = start + 1;
    while (end < ranked.length && (ranked[end] as Candidate).score === (ranked[start] as Candidate).score) end += 1;
    const run = ranked.slice(start, end);
    const shift = turn % run.length;
    out.push(...run.slice(shift), ...run.slice(0, shift));
    start = end;
  }
  return out;
}

function offers(view: CardView, skill: string): boolean {
  const wanted = skill.toLowerCase();
  return view.skills.some((s) => s.id.toLowerCase() === wanted || s.name.toLowerCase() === wanted || s.tags.some((tag) => tag.toLowerCase() === wanted));
}

function parseBase(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new LiteError('INVALID_PARAMS', '"url" is not an absolute URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new LiteError('INVALID_PARAMS', '"url" is an http or https URL');
  return parsed.href.replace(/\/+$/, '').replace(/\/\.well-known\/agent-card\.json$/, '');
}

/** The id an a2a-lite agent gives itself in its card, else one made from the card's name. */
function idFromCard(card: Record<string, unknown>): string {
  const extensions = (card.capabilities as { extensions?: unknown } | undefined)?.extensions;
  if (Array.isArray(extensions)) {
    for (const extension of extensions) {
      const { uri, params } = (extension ?? {}) as { uri?: unknown; params?: { id?: unknown } };
      if (uri === LITE_CARD_EXTENSION && typeof params?.id === 'string' && AGENT_ID.test(params.id)) return params.id;
    }
  }
  const slug = String(card.name).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64);
  if (slug === '') throw new LiteError('INVALID_PARAMS', 'the card gives no usable id; give "id" with the registration');
  return slug;
}
