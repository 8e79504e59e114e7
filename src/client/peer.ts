// Who `a2a-lite send` talks to: a URL (its card is fetched and cached first) or a known agent's
// id; the credential for it, read from the environment variable named on the command line or
// in its cache entry; and, with only a skill, the known agent best placed to do it.

import { LiteError } from '../errors.js';
import type { AgentDirectory, KnownAgent } from '../home/known-agents.js';
import { cacheDiscovered, fetchAgentCard, type FetchCardOptions } from './discover.js';
import type { Binding, RemoteAccess } from '../model/remote-access.js';
import { openTransport } from './open-transport.js';
import { ENV_NAME, type TokenRules } from './token-rules.js';
import type { Credential, Transport, TransportOptions } from './transport.js';

export interface Peer {
  id: string;
  agent: KnownAgent;
  access: RemoteAccess;
}

/** True when `target` is a URL rather than an agent id. */
export function isUrl(target: string): boolean {
  return /^https?:\/\//i.test(target);
}

/**
 * The peer `target` names. A URL is discovered (its card fetched and cached, so that the task
 * is recorded under the agent's id); an id must be a cached agent found with `discover`. A
 * `tokenEnv` the `tokenRules` do not let go to the agent's interface is refused before it is
 * kept with the agent (where a later call without those rules would find it).
 */
export async function resolvePeer(target: string, agents: AgentDirectory, options: FetchCardOptions & { tokenEnv?: string; tokenRules?: TokenRules | undefined } = {}): Promise<Peer> {
  if (isUrl(target)) {
    const found = await fetchAgentCard(target, options);
    if (options.tokenEnv !== undefined) options.tokenRules?.check(options.tokenEnv, found.card.interfaces[0]?.url, 'tokenEnv');
    const { agent } = cacheDiscovered(agents, found, options.tokenEnv === undefined ? {} : { tokenEnv: options.tokenEnv });
    return peerOf(agent);
  }
  return peerOf(agents.get(target));
}

export function peerOf(agent: KnownAgent): Peer {
  const access = agent.cache.a2a;
  if (access === undefined) {
    throw new LiteError(
      'USAGE',
      `"${agent.card.agent.id}" is known from ${agent.cache.source}, not from its A2A card, so there is no address to call; run: a2a-lite discover URL`,
      { agent: agent.card.agent.id },
    );
  }
  return { id: agent.card.agent.id, agent, access };
}

/**
 * The credential for `peer`: the token in the variable `flag` names, else in the one its cache
 * entry names. Only the name is ever stored; a named variable that is unset is an error, so a
 * typo does not turn into an anonymous request. With `rules` (the OpenClaw plugin's), the name,
 * wherever it came from, must be one the operator bound to the origin of the interface called.
 */
export function credentialFor(peer: Peer | undefined, env: NodeJS.ProcessEnv, flag?: string, rules?: TokenRules): Credential | undefined {
  const name = flag ?? peer?.agent.cache.tokenEnv;
  if (name === undefined) return undefined;
  if (!ENV_NAME.test(name)) throw new LiteError('USAGE', `--token-env takes the name of an environment variable, not ${JSON.stringify(name.slice(0, 3) + '…')}`);
  if (rules !== undefined) rules.check(name, peer?.access.interfaces[0]?.url, flag !== undefined || peer === undefined ? 'tokenEnv' : `the cache entry of ${peer.id}`);
  const token = env[name];
  if (token === undefined || token === '') throw new LiteError('USAGE', `the environment variable ${name} (named by ${flag !== undefined ? '--token-env' : `the cache entry of ${peer?.id}`}) is not set`);
  // What an HTTP header (or a cookie) can carry; the token itself is never quoted.
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new LiteError('USAGE', `the token in ${name} holds spaces, line breaks or other characters a request header cannot carry; check how the variable was set`);
  }
  return { token };
}

/** `--transport` names: the binding each stands for. */
export const TRANSPORTS: Readonly<Record<string, Binding>> = { jsonrpc: 'JSONRPC', rest: 'HTTP+JSON', grpc: 'GRPC' };

/** The binding a `--transport` value names; USAGE for any other. */
export function bindingOf(transport: string): Binding {
  const binding = Object.hasOwn(TRANSPORTS, transport) ? TRANSPORTS[transport] : undefined;
  if (binding === undefined) throw new LiteError('USAGE', `--transport is ${Object.keys(TRANSPORTS).join(', ')}, not ${JSON.stringify(transport.slice(0, 40))}`);
  return binding;
}

/**
 * The transport for the interface a2a-lite prefers among those the agent offers (the first of
 * `binding` when one is asked for); with `guard`, every request it makes has its address
 * checked when it connects.
 */
export function transportFor(peer: Peer, credential: Credential | undefined, options: Pick<TransportOptions, 'timeoutMs' | 'guard' | 'trace'> & { binding?: Binding } = {}): Transport {
  const { binding, ...rest } = options;
  const target = binding === undefined ? peer.access.interfaces[0] : peer.access.interfaces.find((i) => i.binding === binding);
  if (target === undefined && binding !== undefined) {
    const offered = peer.access.interfaces.map((i) => `${i.binding} ${i.version}`).join(', ');
    throw new LiteError('USAGE', `${peer.id} offers no ${binding} interface (it offers ${offered || 'none'}); run a2a-lite discover again if its card changed`);
  }
  if (target === undefined) throw new LiteError('INVALID_CARD', `the cached card of ${peer.id} lists no interface; run a2a-lite discover again`);
  const made: TransportOptions = { security: peer.access.security, ...rest };
  if (credential !== undefined) made.credential = credential;
  return openTransport(target, made);
}

export interface Choice {
  peer: Peer;
  /** Why this one, in a sentence. */
  why: string;
}

/**
 * The known A2A agent to ask for `skill`: among those offering it (by skill id, tag or name),
 * an exact skill id beats a tag or name, then the one that answered most recently, then the one
 * discovered most recently, then the id. Agents known only from chat have no address and are
 * left out.
 */
export function chooseBySkill(agents: AgentDirectory, skill: string): Choice {
  const callable = agents.list({ skill }).filter((a) => a.cache.a2a !== undefined);
  if (callable.length === 0) {
    throw new LiteError('AGENT_NOT_FOUND', `no known A2A agent offers "${skill}"; find one with: a2a-lite discover URL`, { skill });
  }
  const wanted = skill.toLowerCase();
  const exact = (a: KnownAgent): boolean => (a.card.skills ?? []).some((s) => s.id.toLowerCase() === wanted);
  const ranked = [...callable].sort(
    (a, b) =>
      Number(exact(b)) - Number(exact(a)) ||
      (b.cache.answeredAt ?? '').localeCompare(a.cache.answeredAt ?? '') ||
      b.cache.updatedAt.localeCompare(a.cache.updatedAt) ||
      a.card.agent.id.localeCompare(b.card.agent.id),
  );
  const best = ranked[0] as KnownAgent;
  const reasons = [exact(best) ? `its skill "${skill}"` : `a skill tagged or named "${skill}"`];
  if (best.cache.answeredAt) reasons.push(`it last answered at ${best.cache.answeredAt}`);
  const others = ranked.length - 1;
  const why = `chose ${best.card.agent.id} (${best.card.agent.name}) for "${skill}": ${reasons.join('; ')}${others > 0 ? `; ${others} other${others === 1 ? '' : 's'} also offer it: ${ranked.slice(1, 4).map((a) => a.card.agent.id).join(', ')}` : ''}`;
  return { peer: peerOf(best), why };
}

/** Notes that `peer` answered now, for routing. */
export function markAnswered(agents: AgentDirectory, peer: Peer, now = new Date()): void {
  agents.add(peer.agent.card, peer.agent.cache.source, now, { answeredAt: now.toISOString() });
}

