// Every request the hub makes to an address someone else gave it (a card URL at registration,
// the agent behind it when forwarding) is net's outbound request with the address guard:
// private and loopback addresses are refused unless the hub runs with --allow-private
// (link-local and cloud metadata ones always), on every hop, and the connection goes to the
// address that was checked. Here: the hub's words for a refusal, and its kept connections.

import { LiteError } from '../errors.js';
import type { Refused } from '../net/address-guard.js';
import { keptAliveAgents, request, type IncomingAnswer, type OutboundOptions } from '../net/outbound.js';

/** Connections kept per rule, so that none opened with private networks allowed serves a hub that refuses them. */
const AGENTS = { private: keptAliveAgents(), public: keptAliveAgents() };

function refusal({ url, address, reason, allowable }: Refused): LiteError {
  const hint = allowable ? 'start the hub with --allow-private to allow private addresses' : 'no setting allows it';
  return new LiteError('FORBIDDEN', `the hub does not call ${url.host} (${address}): it is a ${reason} address; ${hint}`, { address, reason, allowable });
}

/** The agent's answer, its body still to be read; FORBIDDEN for an address the hub may not call, PEER_UNREACHABLE when it cannot be reached. */
export async function requestAgent(url: string, options: Omit<OutboundOptions, 'guard' | 'agents'>, allowPrivate: boolean): Promise<IncomingAnswer> {
  try {
    return await request(url, { ...options, guard: { allowPrivateNetworks: allowPrivate, refuse: refusal }, agents: allowPrivate ? AGENTS.private : AGENTS.public });
  } catch (error) {
    if (error instanceof LiteError) throw error;
    const host = URL.canParse(url) ? new URL(url).host : url;
    throw new LiteError('PEER_UNREACHABLE', `cannot reach ${host}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
