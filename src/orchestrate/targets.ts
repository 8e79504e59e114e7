// Turning a step's target into the agent to call: a URL (its card fetched and cached once per
// run), a known agent's id, or a skill chosen among the known agents; and the agents a
// fan-out over a skill runs on.

import { chooseBySkill, isUrl, markAnswered, peerOf, resolvePeer, type Peer } from '../client/peer.js';
import type { TokenRules } from '../client/token-rules.js';
import { LiteError } from '../errors.js';
import type { Stores } from '../home/stores.js';
import type { AddressGuardOptions } from '../net/address-guard.js';
import { hubCandidates, mayTryAnother, type HubCallOptions } from '../hub/hub-client.js';
import type { HubRef, Target } from './plan.js';

/** One agent of a fan-out over a skill, as `{{item}}` shows it. */
export interface AgentItem {
  agent: string;
  name: string;
  url: string;
}

/** The peers of one run, each resolved once. */
export class Targets {
  private readonly known = new Map<string, Promise<Peer>>();
  private readonly answering = new Map<string, Peer>();
  /** For each skill the hub chooses for: the agent chosen now, and those passed over with why. */
  private readonly chosen = new Map<string, string>();
  private readonly passed = new Map<string, Map<string, string>>();

  constructor(
    private readonly stores: Stores,
    /** Refuses an address the caller may not call (the OpenClaw tool's network rules). */
    private readonly checkUrl: (url: string) => Promise<void> = async () => {},
    /** The hub that chooses agents for skills, with the environment its token is read from (under `rules`, when given). */
    private readonly hub?: { ref: HubRef; env: NodeJS.ProcessEnv; rules?: TokenRules | undefined },
    /** Checks the address of the cards and the hub when they are fetched. */
    private readonly guard?: AddressGuardOptions,
  ) {}

  /** The peer `target` names (`agent` already rendered). */
  peer(target: Target): Promise<Peer> {
    const key = 'agent' in target ? `agent:${target.agent}` : `skill:${target.skill}`;
    let found = this.known.get(key);
    if (found === undefined) {
      found = this.resolve(target).then(async (peer) => {
        // Where the task really goes is the interface the card names, whoever named the agent
        // (a URL, a known id, a skill, the hub): it passes the same check as a URL in the plan.
        const called = peer.access.interfaces[0]?.url;
        if (called !== undefined) await this.checkUrl(called);
        return peer;
      });
      this.known.set(key, found);
      // A failure is not kept: the next attempt asks again (the agent may be up by then).
      found.catch(() => this.known.delete(key));
    }
    return found;
  }

  /**
   * A send to the agent the hub chose for `target`'s skill failed where another may take it (the
   * hub never gave it the request, or it had not acknowledged it, or it could not be reached):
   * the next agent the hub ranks is chosen from now on. False when `target` is not chosen so.
   */
  passOver(target: Target, error: unknown): boolean {
    if (!('skill' in target) || this.hub === undefined || !mayTryAnother(error)) return false;
    const key = `skill:${target.skill}`;
    const agent = this.chosen.get(key);
    if (agent === undefined) return false;
    const passed = this.passed.get(key) ?? new Map<string, string>();
    passed.set(agent, error instanceof Error ? error.message : String(error));
    this.passed.set(key, passed);
    this.known.delete(key);
    this.chosen.delete(key);
    return true;
  }

  /** Notes that `peer` answered; the cache hears of it once per run, in `markAnswered`. */
  answered(peer: Peer): void {
    this.answering.set(peer.id, peer);
  }

  /** Notes in the cache, once for each agent, that it answered (routing by skill prefers those). */
  markAnswered(): void {
    for (const peer of this.answering.values()) {
      try {
        markAnswered(this.stores.agents, peer);
      } catch {
        // Routing works without it.
      }
    }
  }

  private async resolve(target: Target): Promise<Peer> {
    if ('skill' in target && this.hub !== undefined) {
      // The hub ranks the agents that are up; the best not passed over is called at its endpoint on the hub.
      const key = `skill:${target.skill}`;
      const passed = this.passed.get(key) ?? new Map<string, string>();
      const best = (await hubCandidates(this.hub.ref.url, target.skill, hubOptions(this.hub.ref, this.hub.env, this.hub.rules, this.guard))).find((c) => !passed.has(c.id));
      if (best === undefined) throw new LiteError('AGENT_NOT_FOUND', `no other agent at the hub offers "${target.skill}": ${[...passed].map(([id, why]) => `${id}: ${why}`).join('; ')}`, { skill: target.skill });
      this.chosen.set(key, best.id);
      return this.resolve({ agent: best.url });
    }
    if ('skill' in target) return chooseBySkill(this.stores.agents, target.skill).peer;
    if (isUrl(target.agent)) {
      await this.checkUrl(target.agent);
      // An agent reached through the hub takes the hub's token.
      const atHub = this.hub !== undefined && target.agent.startsWith(this.hub.ref.url.replace(/\/+$/, ''));
      return resolvePeer(target.agent, this.stores.agents, { ...(atHub && this.hub?.ref.tokenEnv !== undefined ? { tokenEnv: this.hub.ref.tokenEnv, tokenRules: this.hub.rules } : {}), ...(this.guard === undefined ? {} : { guard: this.guard }) });
    }
    if (this.stores.agents.find(target.agent) === undefined) {
      throw new LiteError('AGENT_NOT_FOUND', `"${target.agent}" is neither a URL nor a known agent; give a URL, or an id from a2a-lite agents list`, { agent: target.agent });
    }
    return peerOf(this.stores.agents.get(target.agent));
  }
}

/** Every known agent that can be called and offers `skill`, by id. */
export function agentsWithSkill(stores: Stores, skill: string): AgentItem[] {
  return stores.agents
    .list({ skill })
    .filter((a) => a.cache.a2a !== undefined)
    .map((a) => ({ agent: a.card.agent.id, name: a.card.agent.name, url: a.cache.a2a?.interfaces[0]?.url ?? '' }))
    .sort((a, b) => a.agent.localeCompare(b.agent));
}

/** The agents a fan-out over `skill` runs on: those the hub finds up, else the known ones. */
export async function fanOutAgents(stores: Stores, skill: string, hub: HubRef | undefined, env: NodeJS.ProcessEnv, rules?: TokenRules, guard?: AddressGuardOptions): Promise<AgentItem[]> {
  if (hub === undefined) return agentsWithSkill(stores, skill);
  const found = await hubCandidates(hub.url, skill, hubOptions(hub, env, rules, guard));
  return found.map((c) => ({ agent: c.url, name: c.name, url: c.url }));
}

/** What calling the hub takes: its token, read from the variable the plan names (if `rules` let it go there), and the address check. */
function hubOptions(hub: HubRef, env: NodeJS.ProcessEnv, rules?: TokenRules, guard?: AddressGuardOptions): HubCallOptions {
  const options: HubCallOptions = guard === undefined ? {} : { guard };
  if (hub.tokenEnv === undefined) return options;
  rules?.check(hub.tokenEnv, hub.url, "the plan's hub.tokenEnv");
  const token = env[hub.tokenEnv];
  if (token === undefined || token === '') throw new LiteError('USAGE', `the environment variable ${hub.tokenEnv} (the plan's hub.tokenEnv) is not set`);
  return { ...options, token };
}

/** Checks, before anything is sent, that a literal target names something that can be called. */
export function checkTarget(stores: Stores, target: Target, path: string, hub?: HubRef): string | undefined {
  if ('skill' in target && hub !== undefined) return undefined;
  if ('skill' in target) {
    return agentsWithSkill(stores, target.skill).length === 0 ? `${path}: no known A2A agent offers the skill "${target.skill}"; find one with: a2a-lite discover URL` : undefined;
  }
  if (target.agent.includes('{{') || isUrl(target.agent)) return undefined;
  return stores.agents.find(target.agent) === undefined ? `${path}: "${target.agent}" is neither a URL nor a known agent (a2a-lite agents list)` : undefined;
}
